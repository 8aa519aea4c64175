"""Step time of one layout (docs/MODEL.md §Step time): compute at the GPU's achievable efficiency,
tensor/context/expert-parallel collectives per microbatch, the pipeline bubble and transfers, the
exposed data-parallel / ZeRO traffic and the optimizer step."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from domain.trainmodel.arch import stage_imbalance
from domain.trainmodel.attention import counted_attention_flops_per_token, flash_attention_s
from domain.trainmodel.calibration import cal, register_cache
from domain.trainmodel.context import ring_exposed_s
from domain.trainmodel.gpus import GpuSpec
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec
from domain.trainmodel.links import (
    Links,
    collective_latency_s,
    collective_s,
    p2p_s,
    reduce_s,
    transfer_s,
)
from domain.trainmodel.memory import grad_bytes, params_per_rank
from domain.trainmodel.moe import (
    a2a_layers,
    a2a_s,
    expert_cast_bytes_per_token,
    exposed_a2a_s,
    moe_fixed_s,
    router_bytes_per_token,
    routing_bytes_per_hidden,
    routing_imbalance,
    sort_bytes_per_token,
    tokens_per_expert,
)
from domain.trainmodel.peft import adapter_bytes_per_token, is_lora, lora_params, trainable_share
from domain.trainmodel.precision import cast_bytes, expert_matmul_s, flop_split, matmul_s

# Achievable efficiency: the card's large-GEMM efficiency shrinks with the per-GPU shard width
# w = hidden / tp as w / (w + SHARD_HALF_WIDTH) (small GEMMs fill fewer SMs, tile/wave
# quantisation); memory-bound element-wise work (norms, activations, dropout, residuals, softmax
# without fusion) moves ELEMENTWISE_BYTES per token per hidden unit per layer and pass over HBM.
# Both were fitted once over all A100 compute cases (MODEL.md §Calibration); the values in use
# are calibration.cal()'s, which leave-one-source-out validation re-fits.
SHARD_HALF_WIDTH = 160.0
ELEMENTWISE_BYTES = 24.0
PARAM_BYTES = 2.0
ACT_BYTES = 2.0
BUCKET_BYTES = 25e6  # PyTorch DDP bucket_cap_mb default (25 MB)
# DeepSpeed ZeRO-1/2 bucket sizes, elements (docs/MODEL.md §21.1): reduce_bucket_size and
# allgather_bucket_size both default to 5e8 (DeepSpeed's zero config, runtime/zero/config.py).
DEEPSPEED_BUCKET_ELEMENTS = 5e8
# How a ZeRO-1/2 stack reduces the gradients each rank owns (parallel.zero_reduce):
# "reduce_scatter" (Megatron-Core's distributed optimizer, PyTorch FSDP: one reduce-scatter per
# bucket) or "per_rank" (DeepSpeed's stage_1_and_2.py average_tensor: one NCCL Reduce per
# owning rank's slice of each bucket, issued one after another on the same communicator).
ZERO_REDUCES = ("reduce_scatter", "per_rank")
# Share of the shorter of (compute, traffic) that overlap really hides; fitted once on the
# ZeRO-3 rows of Megatron-LM SC'21 Table 2 (MODEL.md §Calibration).
OVERLAP_EFFICIENCY = 0.6
# Adam step: read fp32 master, m, v and the gradient, write master, m, v and the bf16 weight.
OPTIMIZER_BYTES_PER_PARAM = 30.0


@dataclass(frozen=True, slots=True)
class StepTime:
    step_s: float
    compute_s: float
    tp_comm_s: float
    pp_comm_s: float
    bubble_s: float
    dp_exposed_s: float
    ep_comm_s: float
    optimizer_s: float
    model_flops_per_step: float
    hardware_flops_per_step: float
    microbatches: int
    data_wait_s: float = 0.0  # the step waiting for storage to deliver the next batch


def model_flops_per_token(model: ModelSpec) -> float:
    """PaLM appendix B: 6N + 12*L*h*s (N activated parameters, h the attention width
    heads x head_dim); adapters train only their part."""
    attention = 12.0 * model.layers * model.attention_width * model.seq_len
    if model.trainable_params_b is None and is_lora(model):
        # frozen weights forward and input gradient, adapters forward and backward (peft.py)
        return 4.0 * model.active_params + 6.0 * lora_params(model) + attention
    if model.trainable_params_b is not None:
        trainable = model.trainable_params_b * 1e9
        return 4.0 * model.active_params + 2.0 * trainable + attention
    return 6.0 * model.active_params + attention


def causal_saving_flops_per_token(model: ModelSpec, recompute: str) -> float:
    """FLOPs per token a causal attention kernel skips: FlashAttention computes only the blocks
    at or below the diagonal, half of the s^2 score and value products (6·L·h·s of the 12 in
    training, 2 more per recomputed forward). MFU keeps PaLM's 12·L·h·s convention (published
    MFUs use it); the time is what the GPU computes. Without flash attention (Megatron-LM of
    2021-22) the full score matrix is computed and then masked."""
    half = 6.0 * model.layers * model.attention_width * model.seq_len
    return half + (half / 3.0 if recompute in ("full", "selective") else 0.0)


def recompute_flops_per_token(model: ModelSpec, recompute: str) -> float:
    """Full: one more forward (2N + 4Lhs). Selective: the attention core again (4Lhs)."""
    attention_fwd = 4.0 * model.layers * model.attention_width * model.seq_len
    if recompute == "full":
        return 2.0 * model.active_params + attention_fwd
    if recompute == "selective":
        return attention_fwd
    return 0.0


def shard_half_width(gpu: GpuSpec) -> float:
    """The GEMM width at which the card reaches half its large-GEMM efficiency."""
    return SHARD_HALF_WIDTH * cal().shard_half_width_scale


def compute_efficiency(gpu: GpuSpec, model: ModelSpec, tp: int) -> float:
    width = model.hidden / tp
    return gpu.efficiency * cal().efficiency_scale * width / (width + shard_half_width(gpu))


def _passes(recompute: str) -> float:
    return 4.0 if recompute == "full" else 3.0


def microbatch_compute_s(model: ModelSpec, gpu: GpuSpec, layout: Layout) -> float:
    return _mb_compute_s(
        model, gpu, layout.tp, layout.pp, layout.cp, layout.microbatch, layout.recompute,
        layout.flash_attention, layout.ep,
    )  # fmt: skip


def microbatch_compute_floor_s(model: ModelSpec, gpu: GpuSpec, layout: Layout) -> float:
    """microbatch_compute_s with the routing imbalance left out: a bound below every ep's
    compute when taken at one expert per GPU (the search's compute floor)."""
    return _mb_compute_s(
        model, gpu, layout.tp, layout.pp, layout.cp, layout.microbatch, layout.recompute,
        layout.flash_attention, layout.ep, balanced=True,
    )  # fmt: skip


def _mb_compute_s(
    model: ModelSpec, gpu: GpuSpec, tp: int, pp: int, cp: int, microbatch: int, recompute: str,
    causal: bool = True, ep: int = 1, balanced: bool = False,
) -> float:  # fmt: skip
    """One microbatch's compute on one GPU of the fullest stage. Without the routing imbalance
    (`balanced`) it does not grow with ep: a larger expert-parallel group gives each local
    expert more rows and each GPU fewer experts to launch (the search's compute floor relies on
    that); the imbalance only adds. The ep-free part is cached; the expert rows' saturation,
    the fullest rank's extra expert work (moe.routing_imbalance), the chunk sort and the MoE
    launch floor are added here (docs/MODEL.md §18, §19)."""
    base, expert_s, imbalance = _mb_compute_parts(
        model, gpu, tp, pp, cp, microbatch, recompute, causal
    )
    if model.moe is None:
        return base
    rows = tokens_per_expert(model, microbatch, tp, cp, ep)
    skew = 1.0 if balanced else routing_imbalance(model, microbatch, tp, cp, ep)
    experts = expert_s * (1.0 + shard_half_width(gpu) / rows)  # the expert GEMMs of one rank
    tokens = microbatch * model.seq_len / cp
    sort = sort_bytes_per_token(model, ep) * tokens * model.layers / pp * _passes(recompute)
    sort_s = sort / tp / (gpu.hbm_tbps * 1e12)
    extra = experts * skew - expert_s + sort_s * skew + moe_fixed_s(model, pp, ep, recompute)
    return base + extra * imbalance


# Speed (docs/MODEL.md §9): the per-microbatch figures do not depend on dp, so they are cached
# on the layout's other degrees and shared by offers of the same hardware with other node counts.
@lru_cache(maxsize=262144)
def _mb_compute_parts(
    model: ModelSpec, gpu: GpuSpec, tp: int, pp: int, cp: int, microbatch: int, recompute: str,
    causal: bool,
) -> tuple[float, float, float]:  # fmt: skip
    """(compute of one microbatch without the expert rows' saturation and the MoE launch floor,
    the routed experts' GEMM seconds before that saturation, the fullest stage's share)."""
    tokens = microbatch * model.seq_len
    flops = model_flops_per_token(model) + recompute_flops_per_token(model, recompute)
    attention_s = 0.0
    if causal:
        # flash attention: the core at its own measured efficiency (attention.py), the rest
        # of the FLOPs at the GEMM efficiency
        flops = max(0.0, flops - counted_attention_flops_per_token(model, recompute))
        attention_s = flash_attention_s(model, gpu, tp, pp, cp, microbatch, recompute)
    if model.trainable_params_b is None and is_lora(model):
        flops -= 6.0 * lora_params(model)  # the adapters are timed on their own below
    per_gpu = tokens * flops / (tp * pp * cp)
    split = flop_split(model, flops, 8.0 if recompute == "full" else 6.0)
    eff = compute_efficiency(gpu, model, tp)
    half = shard_half_width(gpu)
    gemm_s = matmul_s(model, gpu, per_gpu, split, eff, half) + attention_s
    expert_s = expert_matmul_s(model, gpu, per_gpu, split, half)
    layers = model.layers / pp
    per_hidden = cal().elementwise_bytes + cast_bytes(model) + routing_bytes_per_hidden(model)
    moved = per_hidden * tokens / cp * model.hidden * layers * _passes(recompute)
    if model.moe is not None:
        # MoE (moe.py, docs/MODEL.md §18): the router's fp32 logits over HBM and the FP8 casts
        # of the routed copies, the router's GEMM (hidden x experts, counted in the 6N FLOPs at
        # the dense rate) at the efficiency of its width
        per_token = router_bytes_per_token(model) / 3.0 + expert_cast_bytes_per_token(model)
        moved += per_token * tokens / cp * layers * _passes(recompute)
        router = 2.0 * _passes(recompute) * model.hidden * model.moe.experts * tokens / (tp * cp)
        router *= a2a_layers(model, pp)
        peak = gpu.bf16_tflops * 1e12
        experts = float(model.moe.experts)
        narrow = gpu.efficiency * cal().efficiency_scale * experts / (experts + half)
        gemm_s += max(0.0, router / (peak * narrow) - router / (peak * eff))
    if is_lora(model):
        # the adapters: rank-r GEMMs at the efficiency of their width, and their second branch
        # beside each frozen linear read and written over HBM (peft.py)
        rank = float(model.lora_rank or 1)
        lora_flops = 6.0 * lora_params(model) * tokens / (tp * pp * cp)
        lora_eff = gpu.efficiency * cal().efficiency_scale * rank / (rank + shard_half_width(gpu))
        gemm_s += lora_flops / (gpu.bf16_tflops * 1e12 * lora_eff)
        moved += adapter_bytes_per_token(model) * tokens / cp * layers * _passes(recompute)
    # the slowest (fullest) pipeline stage sets the pace of every microbatch
    imbalance = stage_imbalance(model.layers, pp)
    return (gemm_s + moved / tp / (gpu.hbm_tbps * 1e12)) * imbalance, expert_s, imbalance


def lower_bound_s(
    model: ModelSpec, cluster: Cluster, links: Links, layout: Layout, microbatches: int
) -> float:
    """A step can be no shorter than its microbatches' compute and in-layer communication,
    plus the pipeline bubble over them (used by the search to skip hopeless layouts)."""
    per_mb = _per_microbatch_s(
        model, cluster.gpu, links, layout.tp, layout.pp, layout.cp, layout.ep,
        layout.microbatch, layout.recompute, layout.sequence_parallel, layout.flash_attention,
    )  # fmt: skip
    bubble = (layout.pp - 1) / layout.interleave if layout.pp > 1 else 0.0
    return (microbatches + bubble) * per_mb


@lru_cache(maxsize=262144)
def _per_microbatch_s(
    model: ModelSpec, gpu: GpuSpec, links: Links, tp: int, pp: int, cp: int, ep: int,
    microbatch: int, recompute: str, sequence_parallel: bool, causal: bool = True,
) -> float:  # fmt: skip
    c_mb = _mb_compute_s(model, gpu, tp, pp, cp, microbatch, recompute, causal, ep)
    tpcp, ep_s = _mb_comm_s(model, links, tp, pp, cp, ep, microbatch, recompute, sequence_parallel)
    tpcp += _cp_s(model, gpu, links, tp, pp, cp, microbatch, recompute, causal)
    tpcp -= tp_overlap_hidden_s(model, links, tp, pp, cp, microbatch, recompute, c_mb)
    return c_mb + tpcp + exposed_a2a_s(model, ep_s, c_mb)


def _microbatch_comm_s(
    model: ModelSpec, layout: Layout, links: Links, gpu: GpuSpec
) -> tuple[float, float]:
    """(tp + cp collectives, ep all-to-alls) of one microbatch on one stage."""
    tpcp, ep_s = _mb_comm_s(
        model, links, layout.tp, layout.pp, layout.cp, layout.ep, layout.microbatch,
        layout.recompute, layout.sequence_parallel,
    )  # fmt: skip
    cp_s = _cp_s(
        model, gpu, links, layout.tp, layout.pp, layout.cp, layout.microbatch, layout.recompute,
        layout.flash_attention,
    )  # fmt: skip
    return tpcp + cp_s, ep_s


@lru_cache(maxsize=65536)
def _cp_s(
    model: ModelSpec, gpu: GpuSpec, links: Links, tp: int, pp: int, cp: int, microbatch: int,
    recompute: str, flash: bool,
) -> float:  # fmt: skip
    """Context-parallel time of one microbatch: the ring of K/V chunks with flash attention
    (context.py); with the all-gather scheme (`cp_comm`, Llama 3 §3.3.2) or without flash
    attention, an all-gather of K and V per layer forward and its reduce-scatter backward, not
    overlapped."""
    if cp <= 1:
        return 0.0
    if flash and model.cp_comm == "ring":
        return ring_exposed_s(model, gpu, links, tp, pp, cp, microbatch, recompute)
    extra = 1 if recompute == "full" else 0
    kv = microbatch * model.seq_len * 2 * model.kv_width * ACT_BYTES
    return (2 + extra) * model.layers / pp * collective_s("ag", kv, cp, tp, links)


@lru_cache(maxsize=262144)
def _mb_comm_s(
    model: ModelSpec, links: Links, tp: int, pp: int, cp: int, ep: int, microbatch: int,
    recompute: str, sequence_parallel: bool,
) -> tuple[float, float]:  # fmt: skip
    layers = model.layers / pp
    extra = 1 if recompute == "full" else 0
    tokens = microbatch * model.seq_len / cp
    activation = tokens * model.hidden * ACT_BYTES
    tp_s = (4 + 2 * extra) * layers * collective_s("ar", activation, tp, 1, links)
    ep_s = 0.0
    if model.moe is not None and ep > 1:
        # folded expert groups (moe.py): consecutive ranks of tp x cp x dp, each routing its
        # own sequence-parallel share of the tokens
        routed = tokens / (tp if sequence_parallel else 1)
        size = routed * model.hidden * model.moe.top_k * ACT_BYTES
        moe_layers = a2a_layers(model, pp) * stage_imbalance(model.layers, pp)
        ep_s = (4 + 2 * extra) * moe_layers * a2a_s(model, size, ep, links)
        # the fullest rank receives and returns more than its share (moe.routing_imbalance)
        ep_s *= routing_imbalance(model, microbatch, tp, cp, ep)
    return tp_s, ep_s


def tp_overlap_hidden_s(
    model: ModelSpec, links: Links, tp: int, pp: int, cp: int, microbatch: int, recompute: str,
    compute_s: float,
) -> float:  # fmt: skip
    """Tensor-parallel traffic of one microbatch hidden under its GEMMs. Megatron-LM's
    `--tp-comm-overlap` (Transformer Engine userbuffers) splits each TP all-gather /
    reduce-scatter into chunks pipelined with the GEMM that consumes or produces them; it runs
    on Hopper-class GPUs over NVLink inside a server (links.tp_comm_overlap). As for the other
    overlaps, OVERLAP_EFFICIENCY of the shorter of the two is hidden."""
    if not links.tp_comm_overlap or tp <= 1 or tp > links.gpus_per_node:
        return 0.0
    extra = 1 if recompute == "full" else 0
    activation = microbatch * model.seq_len / cp * model.hidden * ACT_BYTES
    tp_s = (4 + 2 * extra) * model.layers / pp * collective_s("ar", activation, tp, 1, links)
    return cal().overlap_efficiency * min(compute_s, tp_s)


def _dp_exposed_s(
    model: ModelSpec,
    layout: Layout,
    links: Links,
    mb_compute_s: float,
    microbatches: int,
    reduce_bytes: float,
    overlap: bool,
    gathers_per_layer: int = 1,
    shard_ranks: int | None = None,
    zero_reduce: str = "reduce_scatter",
) -> float:
    held = params_per_rank(model, layout)
    params = held * trainable_share(model)
    n, stride = layout.dp * layout.cp, layout.tp  # gradients are reduced over dp x cp
    if n <= 1:
        return 0.0
    shard = _shard_group(n, shard_ranks, layout.zero_stage)
    grads = params * reduce_bytes
    weights = params * PARAM_BYTES
    if layout.zero_stage == 3:
        # ZeRO-3 / FSDP gathers every weight it shards, frozen ones too (peft.py); only the
        # trainable part is reduced. ZeRO-1/2 gather the updated (trainable) weights only.
        weights = held * PARAM_BYTES
    bwd_share = 0.75 if layout.recompute == "full" else 2.0 / 3.0
    if layout.zero_stage == 3:
        return microbatches * _zero3_exposed_s(
            model, layout, links, mb_compute_s, (grads, weights), overlap, gathers_per_layer
        )
    # DDP: 25 MB buckets; ZeRO-1/2 and FSDP: one bucket (unit) per transformer layer.
    per_layer = max(1.0, round(model.layers / layout.pp))
    buckets = max(1.0, grads / BUCKET_BYTES) if layout.zero_stage == 0 else per_layer
    gather_exposed = False
    if layout.zero_stage == 0:
        traffic = collective_s("ar", grads / buckets, n, stride, links) * buckets
        gather = 0.0
    elif zero_reduce == "per_rank":
        # DeepSpeed ZeRO-1/2 (docs/MODEL.md §21.1): the gradient buffer goes out in buckets of
        # DEEPSPEED_BUCKET_ELEMENTS, and each bucket's slice owned by one rank is reduced onto
        # it with its own NCCL Reduce over the whole group, so a step issues about one Reduce
        # per rank (plus one per bucket boundary), each paying the chain's latency over every
        # rank: the latency grows as ranks x ranks. Inside a smaller sharding group the same,
        # then the all-reduce of each shard across the groups (MiCS-style hierarchy). The
        # updated weights are all-gathered in buckets after the optimizer step, before the
        # next forward: nothing to overlap with.
        buckets = max(1.0, math.ceil(params / DEEPSPEED_BUCKET_ELEMENTS))
        pieces = shard + buckets - 1.0
        traffic = pieces * reduce_s(grads / pieces, shard, stride, links)
        if shard < n:
            across = collective_s("ar", grads / buckets / shard, n // shard, stride * shard, links)
            traffic += across * buckets
        gather = collective_s("ag", weights / buckets, shard, stride, links) * buckets
        gather_exposed = True
    elif shard < n:
        # optimizer sharded over `shard` ranks only (one per server's share), replicated
        # across the n / shard groups: reduce-scatter inside the group, all-reduce of each
        # rank's shard with its peers of the other groups (all groups' ranks at once, each
        # on its own share of the NICs), all-gather inside the group (docs/MODEL.md §19.5)
        bucket = grads / buckets
        inside = collective_s("rs", bucket, shard, stride, links)
        across = collective_s("ar", bucket / shard, n // shard, stride * shard, links)
        traffic = (inside + across) * buckets
        gather = collective_s("ag", weights / buckets, shard, stride, links) * buckets
    else:
        traffic = collective_s("rs", grads / buckets, n, stride, links) * buckets
        gather = collective_s("ag", weights / buckets, n, stride, links) * buckets
    # DeepSpeed's ZeRO-2 keeps only its shard of the gradients, so it reduce-scatters after
    # every micro-step's backward instead of once per step; ZeRO-1 and DDP accumulate locally
    # and reduce once. DeepSpeed runs ZeRO-2 without pipelines only; a stage 2 given with a
    # pipeline is a custom stack like Llama 3's, which accumulates fp32 gradients over the
    # micro-batches and reduce-scatters once (arXiv:2407.21783 §3.3.4).
    reductions = microbatches if layout.zero_stage == 2 and layout.pp == 1 else 1
    if not overlap:
        return reductions * traffic + gather
    last = traffic / buckets
    bwd_c = bwd_share * mb_compute_s
    exposed = reductions * max(last, _overlapped(bwd_c, traffic) - bwd_c)
    if gather_exposed:
        exposed += gather
    elif gather:
        fwd_c = (1 - bwd_share) * mb_compute_s
        exposed += max(gather / buckets, _overlapped(fwd_c, gather) - fwd_c)
    return exposed


def _shard_group(n: int, shard_ranks: int | None, zero_stage: int) -> int:
    """Ranks the optimizer (ZeRO-1/2) is sharded over: all n data-parallel ranks unless a
    smaller group that divides n is given (Megatron-Core's --num-distributed-optimizer-instances
    n / shard, FSDP's hybrid sharding); ZeRO-0 and ZeRO-3 keep n."""
    if not shard_ranks or zero_stage not in (1, 2) or shard_ranks >= n or n % shard_ranks:
        return n
    return max(1, shard_ranks)


def dp_exposed_floor_s(
    model: ModelSpec,
    layout: Layout,
    links: Links,
    stages: dict[int, float],
    compute_s: float = 0.0,
    microbatches: int = 1,
) -> float:
    """No layout of these degrees exposes less data-parallel time than this, over the ZeRO
    `stages` tried ({stage: bytes per gradient element}), any recomputation, microbatch and
    overlap (a lower bound of _dp_exposed_s for the search). Per step, DDP all-reduces the
    gradients once; ZeRO-1/2 reduce-scatter them and all-gather the weights; ZeRO-3 gathers
    the weights at least twice (forward and backward). Buckets are no faster than the whole
    buffer at the network's best measured bandwidth. Overlap hides at most OVERLAP_EFFICIENCY
    of the traffic, and at most OVERLAP_EFFICIENCY of one microbatch's compute (the traffic
    runs beside the last microbatch's passes; a ZeRO-3 microbatch beside its own):
    `compute_s` is the most one microbatch of these degrees computes. ZeRO-3 gathers and
    reduces, and DeepSpeed's ZeRO-2 without pipeline reduces, on every one of the step's
    `microbatches` (the fewest any microbatch size gives)."""
    n = layout.dp * layout.cp
    if n <= 1:
        return 0.0
    held = params_per_rank(model, layout)
    params = held * trainable_share(model)
    flat = links.flattened()
    gather = transfer_s("ag", params * PARAM_BYTES, n, layout.tp, flat)
    gather_all = transfer_s("ag", held * PARAM_BYTES, n, layout.tp, flat)
    least = math.inf
    for stage, reduce_bytes in stages.items():
        grads = params * reduce_bytes
        # (traffic on every microbatch, traffic once per step), each hidden at most as above
        if stage == 0:
            each, once = 0.0, transfer_s("ar", grads, n, layout.tp, flat)
        elif stage == 3:
            each, once = transfer_s("rs", grads, n, layout.tp, flat) + 2 * gather_all, 0.0
        elif stage == 2 and layout.pp == 1:
            each, once = transfer_s("rs", grads, n, layout.tp, flat), gather
        else:
            each, once = 0.0, transfer_s("rs", grads, n, layout.tp, flat) + gather
        least = min(
            least, microbatches * _exposed_floor(each, compute_s) + _exposed_floor(once, compute_s)
        )
    return least


def _exposed_floor(traffic_s: float, compute_s: float) -> float:
    """The least of `traffic_s` that overlap with at most `compute_s` of compute leaves."""
    ov = cal().overlap_efficiency
    return max((1.0 - ov) * traffic_s, traffic_s - ov * compute_s)


def _zero3_exposed_s(
    model: ModelSpec,
    layout: Layout,
    links: Links,
    mb_compute_s: float,
    sizes: tuple[float, float],
    overlap: bool,
    gathers_per_layer: int,
) -> float:
    """ZeRO-3 time per microbatch beyond its compute: per layer the parameters are all-gathered
    in forward, again in backward (and for the recomputed forward), and the gradients
    reduce-scattered, in `gathers_per_layer` collectives each (1: a flattened FSDP unit per layer;
    DeepSpeed's ZeRO-3 of 2021 gathered each parameter tensor on its own). Each collective is a
    ring over all n ranks whose n - 1 steps each pay the network's latency (links.ring_latency_s):
    at a fixed model size the per-step chunk shrinks as 1/n while the steps grow as n, so this
    latency grows with the group while the compute per GPU shrinks at a fixed global batch (the
    collapse of Megatron-LM SC'21 Table 2's ZeRO-3 rows). Prefetch hides part of the transfers
    under compute; the latency of one fetch after another sits on the critical path."""
    grads, weights = sizes
    n, stride = layout.dp * layout.cp, layout.tp
    layers = max(1, round(model.layers / layout.pp))
    units = layers * max(1, gathers_per_layer)
    gather = units * transfer_s("ag", weights / units, n, stride, links)
    reduce = layers * transfer_s("rs", grads / layers, n, stride, links)
    gather_lat = units * collective_latency_s("ag", n, stride, links)
    reduce_lat = layers * collective_latency_s("rs", n, stride, links)
    regathers = 2 if layout.recompute == "full" else 1
    bwd_share = 0.75 if layout.recompute == "full" else 2.0 / 3.0
    fwd_c, bwd_c = mb_compute_s * (1 - bwd_share), mb_compute_s * bwd_share
    latency = (1 + regathers) * gather_lat + reduce_lat
    if overlap:  # prefetch hides part of each phase's transfers under that phase's compute
        per_mb = _overlapped(fwd_c, gather) + _overlapped(bwd_c, regathers * gather + reduce)
    else:
        per_mb = mb_compute_s + (1 + regathers) * gather + reduce
    return per_mb + latency - mb_compute_s


def _overlapped(compute_s: float, traffic_s: float) -> float:
    """Wall time of compute with traffic running beside it: the shorter of the two is hidden
    only to OVERLAP_EFFICIENCY (NCCL kernels take SMs and memory bandwidth from the GEMMs)."""
    return compute_s + traffic_s - cal().overlap_efficiency * min(compute_s, traffic_s)


def data_wait_s(
    model: ModelSpec, layout: Layout, links: Links, microbatches: int, step_s: float
) -> float:
    """Seconds a step waits for its next batch (docs/MODEL.md §17.8): data loaders read the
    next step's samples while this one computes (prefetch), so the step lasts at least the
    read, `sequences × bytes_per_sample ÷ (ingress per server × servers used)`; only what the
    read exceeds the step by is added. A text LLM (bytes_per_sample None) never waits."""
    if not model.bytes_per_sample or links.ingress_bps <= 0:
        return 0.0
    gpus = layout.tp * layout.pp * layout.cp * layout.dp
    servers = max(1, -(-gpus // links.gpus_per_node))
    sequences = microbatches * layout.dp * layout.microbatch
    read_s = sequences * model.bytes_per_sample / (links.ingress_bps * servers)
    return max(0.0, read_s - step_s)


def pp_comm_s(model: ModelSpec, layout: Layout, microbatches: int, links: Links) -> float:
    """Pipeline sends of a step: each microbatch's activations forward and their gradients
    back across every stage boundary of every virtual stage."""
    if layout.pp <= 1:
        return 0.0
    act = layout.microbatch * model.seq_len / layout.cp * model.hidden * ACT_BYTES
    act /= layout.tp if layout.sequence_parallel else 1
    crosses = layout.tp * layout.cp * layout.dp * layout.pp > links.gpus_per_node
    return 2 * layout.interleave * microbatches * p2p_s(act, crosses, links)


def step_time(
    model: ModelSpec,
    cluster: Cluster,
    links: Links,
    layout: Layout,
    global_batch_sequences: int,
    reduce_bytes: float | None = None,
    dp_overlap: bool = True,
    gathers_per_layer: int = 1,
    shard_ranks: int | None = None,
    zero_reduce: str = "reduce_scatter",
) -> StepTime:
    """`shard_ranks`: ZeRO-1/2 optimizer sharded over that many data-parallel ranks only and
    replicated across the groups (default: over all of them, _shard_group). `zero_reduce`: how
    the ZeRO-1/2 gradients reach their owners (ZERO_REDUCES)."""
    return _step_time(
        model, cluster.gpu, links, layout, global_batch_sequences, reduce_bytes, dp_overlap,
        gathers_per_layer, shard_ranks, zero_reduce,
    )  # fmt: skip


# A step time depends on the GPU, the links and the layout, not on the offer's node count: the
# searches of offers of the same hardware at other sizes meet the same layouts (a layout that
# leaves a spare server on N + 1 servers is a layout of N) and share the answer.
@lru_cache(maxsize=65536)
def _step_time(
    model: ModelSpec,
    gpu: GpuSpec,
    links: Links,
    layout: Layout,
    global_batch_sequences: int,
    reduce_bytes: float | None,
    dp_overlap: bool,
    gathers_per_layer: int,
    shard_ranks: int | None = None,
    zero_reduce: str = "reduce_scatter",
) -> StepTime:
    # A batch that does not split evenly is rounded up to whole microbatches per replica.
    m = -(-global_batch_sequences // (layout.dp * layout.microbatch))
    c_mb = microbatch_compute_s(model, gpu, layout)
    tpcp_mb, ep_mb = _microbatch_comm_s(model, layout, links, gpu)
    ep_mb = exposed_a2a_s(model, ep_mb, c_mb)
    tpcp_mb -= tp_overlap_hidden_s(
        model, links, layout.tp, layout.pp, layout.cp, layout.microbatch, layout.recompute, c_mb
    )
    rb = grad_bytes(layout, reduce_bytes)
    dp = _dp_exposed_s(
        model, layout, links, c_mb, m, rb, dp_overlap, gathers_per_layer, shard_ranks,
        zero_reduce,
    )  # fmt: skip
    zero3_mb = dp / m if layout.zero_stage == 3 else 0.0
    t_mb = c_mb + tpcp_mb + ep_mb + zero3_mb
    p, v = layout.pp, layout.interleave
    bubble = (p - 1) / v * t_mb if p > 1 else 0.0
    pp_comm = pp_comm_s(model, layout, m, links)
    opt_params = params_per_rank(model, layout) * trainable_share(model)
    if layout.zero_stage >= 1:
        opt_params /= _shard_group(layout.dp * layout.cp, shard_ranks, layout.zero_stage)
    optimizer = OPTIMIZER_BYTES_PER_PARAM * opt_params / (gpu.hbm_tbps * 1e12)
    compute = m * c_mb
    step = compute + m * (tpcp_mb + ep_mb) + dp + bubble + pp_comm + optimizer
    wait = data_wait_s(model, layout, links, m, step)
    step += wait
    tokens = m * layout.dp * layout.microbatch * model.seq_len
    mflops = tokens * model_flops_per_token(model)
    hflops = mflops + tokens * recompute_flops_per_token(model, layout.recompute)
    return StepTime(
        step_s=step,
        compute_s=compute,
        tp_comm_s=m * tpcp_mb,
        pp_comm_s=pp_comm,
        bubble_s=bubble,
        dp_exposed_s=dp,
        ep_comm_s=m * ep_mb,
        optimizer_s=optimizer,
        model_flops_per_step=mflops,
        hardware_flops_per_step=hflops,
        microbatches=m,
        data_wait_s=wait,
    )


for _cached in (_mb_compute_parts, _per_microbatch_s, _mb_comm_s, _cp_s, _step_time):
    register_cache(_cached.cache_clear)
