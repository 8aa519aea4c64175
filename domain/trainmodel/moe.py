"""Mixture-of-experts (docs/MODEL.md §5.1): where a MoE model's parameters and FLOPs sit, how
expert parallelism is laid out, and what the expert all-to-all costs.

Layout (Megatron-Core "MoE parallel folding", Liu et al. arXiv:2504.14960; Megatron-Core MoE
docs): attention layers use tp x cp x dp; expert layers re-fold the same GPUs of one pipeline
stage into expert-tensor x expert-parallel x expert-data-parallel groups. The model takes the
expert-tensor size as 1 (the setting those docs recommend and the published recipes use), so
`ep` divides tp x cp x dp, each GPU holds experts / ep whole experts, and the expert-data-parallel
group (EDP) that reduces expert gradients and shards their optimizer states has
tp x cp x dp / ep ranks.

Parameters: the routed experts' weights are (layers - dense_layers) x experts x 3 x hidden x
expert_ffn (gated SwiGLU experts: every published MoE of the validation set); shared experts
and the dense leading layers are part of the non-expert weights, split by tp x pp like a dense
model. Without `expert_ffn` the routed weights are inferred from params_b and active_params_b
(active = non-expert + top_k / experts of the routed weights).

Efficiency: routed-expert GEMMs are grouped GEMMs whose output width is one expert's FFN, so the
card's large-GEMM efficiency shrinks with that width as for a tensor-parallel shard
(steptime.SHARD_HALF_WIDTH); routing moves each token's activation to its top_k experts and back
(permute / unpermute): ROUTE_BYTES per token per hidden unit per routed copy and pass over HBM,
the least those two copies move (permute reads the token and writes its copy, unpermute reads
the copy and adds it back: 4 accesses of 2 bytes). Not fitted: a fit over the published MoE runs
preferred 0 (MODEL.md §14).

Node-limited routing (`node_limit`, DeepSeek-V3 §2.1.2, §3.2.2): see `a2a_s`.

All-to-all: dispatch and combine, forward and backward (and again under full recomputation), of
tokens x hidden x top_k elements over the EP group (TRAINING-MODEL.md item 5). With
`a2a_overlap` (DeepSeek-V3 DualPipe, arXiv:2412.19437 §3.2.1; Megatron-Core's
--overlap-moe-expert-parallel-comm) the all-to-all runs under another microbatch's compute: what
exceeds the compute stays exposed, and the compute slows by the share of SMs the communication
kernels take (DeepSeek-V3 gives 20 of the H800's 132 SMs to communication: A2A_SM_SHARE).
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

from domain.trainmodel.inputs import Layout, ModelSpec
from domain.trainmodel.links import Links, collective_s, placement

ROUTE_BYTES = 8.0
A2A_SM_SHARE = 20.0 / 132.0
# Small-MoE fixed costs (docs/MODEL.md §18). A kernel costs at least its launch-to-completion
# latency however little work it holds: NVIDIA's "Getting Started with CUDA Graphs" (A. Gray,
# NVIDIA Technical Blog, 2019) measures a trivial kernel at 2.9 us of execution and 3.8 us per
# kernel when kernels are queued back to back, i.e. one kernel takes at least ~3.8 us of the
# stream. A MoE layer launches kernels that a dense layer does not: router, softmax / top-k,
# auxiliary-loss terms, the token-count exchange, permute and un-permute index work, the
# dispatch and combine all-to-alls, the fused activation (MOE_LAYER_KERNELS, forward + backward),
# and one GEMM per local expert and matrix: Transformer Engine's GroupedLinear, which
# Megatron-Core's TEGroupedMLP uses, issues a cuBLAS GEMM per expert (on several streams)
# rather than one block-sparse kernel as MegaBlocks (arXiv:2211.15841 §5) does. Per expert:
# fc1 and fc2 forward, data- and weight-gradient GEMMs of each backward (6), plus in FP8 the
# cast of each GEMM's input forward and of the output gradient backward (4 more). The counts
# are read off that structure, not fitted.
KERNEL_S = 3.8e-6
MOE_LAYER_KERNELS = 60.0
EXPERT_KERNELS = 6.0
EXPERT_KERNELS_FP8 = 10.0
# The router's logits, probabilities and top-k weights are kept in fp32 (Megatron-Core MoE docs:
# the router runs in fp32 for stability; DeepSeek-V3 §3.3.1 keeps the gating in higher
# precision): written by the router GEMM, read and written by the softmax, read by the top-k,
# and the same again backward - ROUTER_BYTES per token, expert and layer over HBM.
ROUTER_BYTES = 4.0 * 6
# Host synchronisation of the token dispatcher (docs/MODEL.md §19.2). Megatron-Core's all-to-all
# dispatcher needs the number of tokens each rank sends and receives on the host to size the
# all-to-all and the expert GEMMs' splits, so it copies the token counts to the CPU once per MoE
# layer and forward pass (the backward reuses the counts). The copy waits for the GPU queue to
# drain; the host then issues the dispatcher's next kernels one at a time, each reaching the GPU
# only after its launch latency (KERNEL_S), until the expert GEMMs are queued: the permute (index
# computation and gather), the all-to-all, the chunk sort of the received tokens - SYNC_KERNELS,
# read off that structure. (NVIDIA lists "moe_preprocess" as a CUDA-graph scope of Megatron-Core
# for this host work; Megatron-Bridge's H100 recipes of the validation runs do not use it.)
SYNC_KERNELS = 4.0
EXPERT_MATRICES = 3  # gated (SwiGLU) experts: gate, up and down projections
MAX_EP = 64  # searched expert-parallel sizes stop here (a given ep may be larger)


@lru_cache(maxsize=4096)
def routed_expert_params(model: ModelSpec) -> float:
    """All routed experts' weights of the model (0 for a dense model)."""
    moe = model.moe
    if moe is None:
        return 0.0
    if moe.expert_ffn is not None:
        moe_layers = model.layers - moe.dense_layers
        per_expert = EXPERT_MATRICES * model.hidden * moe.expert_ffn
        return float(min(moe_layers * moe.experts * per_expert, model.params))
    inactive = 1.0 - moe.top_k / moe.experts
    if inactive <= 0:
        return 0.0
    return min((model.params - model.active_params) / inactive, model.params)


def routed_active_params(model: ModelSpec) -> float:
    """Routed-expert weights one token passes through (top_k of each MoE layer)."""
    if model.moe is None:
        return 0.0
    return routed_expert_params(model) * model.moe.top_k / model.moe.experts


def edp(layout: Layout) -> int:
    """Expert-data-parallel ranks: the folded tp x cp x dp group over ep (expert tp = 1)."""
    return max(1, layout.tp * layout.cp * layout.dp // max(layout.ep, 1))


def param_groups(model: ModelSpec, layout: Layout) -> list[tuple[float, int]]:
    """(parameters held by one GPU, ranks its gradients / optimizer states are sharded over):
    the non-expert weights over dp x cp, the routed experts over the expert-data-parallel group."""
    dense_dp = layout.dp * layout.cp
    experts = routed_expert_params(model)
    dense = (model.params - experts) / (layout.tp * layout.pp)
    if experts <= 0:
        return [(dense, dense_dp)]
    local = experts / (layout.pp * max(layout.ep, 1))
    return [(dense, dense_dp), (local, edp(layout))]


def params_per_rank(model: ModelSpec, layout: Layout) -> float:
    return sum(p for p, _group in param_groups(model, layout))


def expert_degrees(model: ModelSpec, given: int | None, folded: int) -> list[int]:
    """Expert-parallel sizes for a folded tp x cp x dp group of `folded` GPUs."""
    if given:
        return [given] if folded % given == 0 else []
    if model.moe is None:
        return [1]
    experts = model.moe.experts
    found = [e for e in range(1, min(folded, MAX_EP) + 1) if folded % e == 0 and experts % e == 0]
    return found or [1]


def mlp_activation_units(model: ModelSpec) -> tuple[float, float, int]:
    """(FFN width, copies per token, matrices) for the MLP activations a MoE layer keeps: the
    top_k routed copies plus the shared experts at expert_ffn when it is known."""
    moe = model.moe
    assert moe is not None
    if moe.expert_ffn is None:
        return float(model.ffn or 4 * model.hidden), float(moe.top_k), 2
    return float(moe.expert_ffn), float(moe.top_k + moe.shared_experts), EXPERT_MATRICES


def routing_bytes_per_hidden(model: ModelSpec) -> float:
    """Extra HBM bytes per token per hidden unit per layer and pass for routing (averaged over
    all layers: the dense leading layers route nothing)."""
    moe = model.moe
    if moe is None:
        return 0.0
    moe_share = (model.layers - moe.dense_layers) / model.layers
    return ROUTE_BYTES * moe.top_k * moe_share


def local_experts(model: ModelSpec, ep: int) -> float:
    """Routed experts each GPU holds (all of them without expert parallelism)."""
    assert model.moe is not None
    return model.moe.experts / max(1, ep)


def tokens_per_expert(model: ModelSpec, microbatch: int, tp: int, cp: int, ep: int) -> float:
    """Rows of one local expert's grouped GEMM per microbatch, under balanced routing: a GPU
    routes its share of the microbatch's tokens (s / cp, split by tp under the sequence
    parallelism Megatron-Core requires for MoE with tp > 1), each to top_k experts; the EP group
    of `ep` GPUs pools its copies and each GPU serves experts / ep of the experts, so one expert
    receives tokens x top_k x ep / experts rows (MegaBlocks §3: expert GEMMs are as tall as the
    tokens routed to the expert)."""
    assert model.moe is not None
    local = microbatch * model.seq_len / (cp * tp)
    return local * model.moe.top_k * max(1, ep) / model.moe.experts


def expert_kernels(model: ModelSpec, ep: int) -> float:
    """MoE-specific kernels of one MoE layer for one microbatch, forward and backward."""
    per_expert = EXPERT_KERNELS_FP8 if model.precision == "fp8" else EXPERT_KERNELS
    return MOE_LAYER_KERNELS + per_expert * local_experts(model, ep)


def moe_fixed_s(model: ModelSpec, pp: int, ep: int, recompute: str) -> float:
    """Launch-bound time of the MoE layers of one stage for one microbatch: KERNEL_S per
    MoE-specific kernel (a full recomputation runs the forward third again), plus the GPU idle
    after each forward pass's host synchronisation of the dispatcher (SYNC_KERNELS launches
    issued one by one; twice per layer under full recomputation)."""
    if model.moe is None:
        return 0.0
    again = 4.0 / 3.0 if recompute == "full" else 1.0
    forwards = 2.0 if recompute == "full" else 1.0
    per_layer = expert_kernels(model, ep) * again + SYNC_KERNELS * forwards
    return a2a_layers(model, pp) * per_layer * KERNEL_S


def routing_imbalance(model: ModelSpec, microbatch: int, tp: int, cp: int, ep: int) -> float:
    """How much more than its mean share the fullest rank of an expert-parallel group receives
    (docs/MODEL.md §19.1): the expected maximum over the `ep` ranks of the routed copies each
    receives, over the mean. Under routing that spreads tokens uniformly at random over the
    experts (a router at initialisation, or a load-balanced one: the published recipes' aux
    loss or forced balance), a rank's load is a sum over the group's T tokens of hypergeometric
    draws (each token picks top_k distinct experts of E, experts/ep of them on the rank): mean
    mu = T x top_k / ep, variance mu x (1 - 1/ep) x (E - top_k) / (E - 1). The expected maximum
    of ep such (nearly normal) loads is mu + sigma x z(ep), z the expected largest of ep standard
    normal draws, taken by Blom's formula z = Phi^-1((n - 0.375) / (n + 0.25)) (Blom 1958;
    Royston, Applied Statistics 31, 1982: within 0.01 of the exact value for n <= 100). The
    slowest rank sets the pace of the expert GEMMs and of the all-to-all that feeds them. A
    statistical fact of the routing, not fitted; a trained router less balanced than uniform
    is slower still (not modelled)."""
    moe = model.moe
    if moe is None or ep <= 1:
        return 1.0
    mean = microbatch * model.seq_len / (cp * tp) * moe.top_k  # copies one rank receives
    if mean <= 0:
        return 1.0
    finite = (moe.experts - moe.top_k) / max(1, moe.experts - 1)
    cv = math.sqrt((1.0 - 1.0 / ep) * finite / mean)
    return 1.0 + cv * _expected_max_normal(ep)


@lru_cache(maxsize=256)
def _expected_max_normal(n: int) -> float:
    """Blom's approximation of the expected largest of n standard normal draws."""
    return NormalDist().inv_cdf((n - 0.375) / (n + 0.25))


def sort_bytes_per_token(model: ModelSpec, ep: int) -> float:
    """HBM bytes per token, MoE layer and pass of the dispatcher's chunk sort (docs/MODEL.md
    §19.3): with expert parallelism and more than one local expert, the all-to-all delivers the
    copies grouped by source rank, and Megatron-Core's all-to-all dispatcher re-orders them by
    local expert before the grouped GEMM and back before the combine (`sort_chunks_by_idxs`):
    each routed copy read and written twice more, ROUTE_BYTES per hidden unit as permute and
    un-permute move (averaged over all layers like routing_bytes_per_hidden)."""
    moe = model.moe
    if moe is None or ep <= 1 or local_experts(model, ep) <= 1:
        return 0.0
    return routing_bytes_per_hidden(model) * model.hidden


def router_bytes_per_token(model: ModelSpec) -> float:
    """Router HBM bytes per token and layer (forward + backward, averaged over all layers)."""
    moe = model.moe
    if moe is None:
        return 0.0
    return ROUTER_BYTES * moe.experts * (model.layers - moe.dense_layers) / model.layers


def expert_cast_bytes_per_token(model: ModelSpec) -> float:
    """FP8 casts of the routed copies, HBM bytes per token, layer and pass (0 in bf16). A dense
    linear's FP8 input comes out of a fused norm or activation kernel (precision.FP8_CAST_BYTES);
    an expert's input is a permuted BF16 copy, so per routed copy the fc1 input (hidden wide) is
    read, written in FP8 and written transposed (2 + 1 + 1 bytes), the fc2 input (expert FFN
    wide) comes out of the fused activation (1 + 1), and backward the same for the two output
    gradients: 8 x hidden + 4 x expert_ffn bytes over the three passes (Transformer Engine
    FP8 primer: inputs and output gradients of every FP8 GEMM are cast, with a transposed copy
    for the weight-gradient GEMM on Hopper)."""
    moe = model.moe
    if moe is None or model.precision != "fp8":
        return 0.0
    ffn = float(moe.expert_ffn or model.ffn or 4 * model.hidden)
    share = (model.layers - moe.dense_layers) / model.layers
    return share * moe.top_k * (8.0 * model.hidden + 4.0 * ffn) / 3.0


def a2a_layers(model: ModelSpec, pp: int) -> float:
    """MoE layers on one pipeline stage (the dense leading layers send nothing)."""
    assert model.moe is not None
    return (model.layers - model.moe.dense_layers) / pp


def a2a_s(model: ModelSpec, size_bytes: float, ep: int, links: Links) -> float:
    """One dispatch or combine all-to-all of `size_bytes` per rank over the folded EP group
    (consecutive ranks). With node-limited routing (DeepSeek-V3 §2.1.2: a token's experts lie on
    at most `node_limit` servers; it crosses the network once per server and NVLink forwards it
    to the experts there) the network carries at most node_limit x (servers - 1) / servers
    copies per token instead of top_k x the remote share; NVLink carries the local copies and
    the forwarded ones."""
    moe = model.moe
    plain = collective_s("a2a", size_bytes, ep, 1, links)
    local, servers = placement(ep, 1, links.gpus_per_node)
    if moe is None or moe.node_limit is None or servers <= 1:
        return plain
    remote = moe.top_k * (ep - local) / ep  # copies per token that leave the server
    crossing = min(remote, moe.node_limit * (servers - 1) / servers)
    if crossing >= remote:
        return plain
    network = collective_s("a2a", size_bytes * crossing / remote, ep, 1, links)
    nvlink = size_bytes * ((local - 1) / ep + remote / moe.top_k) / links.intra_bps
    return max(network, nvlink)


def exposed_a2a_s(model: ModelSpec, a2a_s: float, compute_s: float) -> float:
    """All-to-all time one microbatch adds to the step: all of it unless the case says the
    framework overlaps it (Megatron-Core's default token dispatcher does not; v4 checked a
    default overlap against the published Megatron-Bridge MoE runs, which it made 20-23% too
    fast, docs/MODEL.md §17.5)."""
    if model.moe is None or not model.moe.a2a_overlap or a2a_s <= 0:
        return a2a_s
    return max(0.0, a2a_s - compute_s) + A2A_SM_SHARE * min(a2a_s, compute_s)


def check_expressible(model: ModelSpec) -> None:
    """Every MoE width is expressed (v4): what used to refuse a MoE of hidden < 4096 is now
    physics - grouped GEMMs at the expert width, routing as memory-bound work per token and
    top-k copy, the router's own GEMM and softmax, a fixed cost per expert GEMM launch."""
    return None
