"""Memory per GPU (docs/MODEL.md §Memory): model states per ZeRO stage, activations after
Korthikanti et al. (arXiv:2205.05198) per TP/SP/recompute choice and pipeline depth, logits,
working buffers and a fixed plus proportional runtime overhead."""

from __future__ import annotations

from dataclasses import dataclass

from domain.trainmodel.arch import first_stage_layers, mlp_matrices
from domain.trainmodel.inputs import Layout, ModelSpec
from domain.trainmodel.moe import mlp_activation_units, param_groups
from domain.trainmodel.moe import params_per_rank as moe_params_per_rank
from domain.trainmodel.peft import trainable_share
from domain.trainmodel.precision import fp8_saved_activations

GB = 1e9
# Mixed-precision Adam: bf16 weights 2 + grads + fp32 master 4 + moments 4 + 4 (ZeRO paper,
# Rajbhandari et al. 2020 §3.1: "16 bytes per parameter" with 2-byte gradients).
WEIGHT_BYTES = 2.0
GRAD_BYTES = 2.0
OPTIMIZER_BYTES = 12.0
# Bytes per gradient element, kept in memory and reduced on the wire alike: PyTorch DDP with AMP
# and Megatron's fp32 main grads hold and reduce fp32 (Megatron-LM's distributed optimizer notes:
# bf16 parameters with fp32 gradients take 18 bytes per parameter, 6 + 12/d with the optimizer
# sharded); ZeRO-3/FSDP gather bf16 parameters and reduce-scatter bf16 gradients (DeepSpeed
# default). A workload can say otherwise with `grad_reduce_bytes`.
DEFAULT_REDUCE_BYTES = {0: 4.0, 1: 4.0, 2: 4.0, 3: 2.0}
# CUDA context, NCCL buffers and cuBLAS workspace (fixed), and caching-allocator fragmentation
# (share of everything else). Assumptions, see MODEL.md.
RUNTIME_FIXED_GB = 1.5
FRAGMENTATION = 0.05
# ZeRO-3 keeps at most this many gathered parameters alive (DeepSpeed stage3_max_live_parameters
# default 1e9).
ZERO3_LIVE_PARAMS = 1e9


@dataclass(frozen=True, slots=True)
class MemoryUse:
    states_gb: float
    activations_gb: float
    other_gb: float

    @property
    def total_gb(self) -> float:
        return self.states_gb + self.activations_gb + self.other_gb


def params_per_rank(model: ModelSpec, layout: Layout) -> float:
    """Parameters held by one GPU: dense part split by tp*pp, experts by pp*ep (moe.py)."""
    if model.moe is None:
        return model.params / (layout.tp * layout.pp)
    return moe_params_per_rank(model, layout)


def grad_bytes(layout: Layout, reduce_bytes: float | None) -> float:
    """Bytes per gradient element, the same in memory as on the wire."""
    return stage_grad_bytes(layout.zero_stage, reduce_bytes)


def stage_grad_bytes(zero_stage: int, reduce_bytes: float | None) -> float:
    """Bytes per gradient element at a ZeRO stage: the workload's, else the stage's default."""
    return reduce_bytes if reduce_bytes is not None else DEFAULT_REDUCE_BYTES[zero_stage]


def states_bytes(
    model: ModelSpec, layout: Layout, reduce_bytes: float | None = None,
    shard_ranks: int | None = None,
) -> float:  # fmt: skip
    """Weights, gradients and optimizer states of one GPU: the non-expert weights sharded over
    dp x cp, a MoE's routed experts over their expert-data-parallel group (moe.param_groups).
    `shard_ranks`: ZeRO-1/2 states sharded over groups of that many ranks only (replicated
    across the groups, steptime._shard_group)."""
    groups = param_groups(model, layout) if model.moe is not None else None
    dense = _shard_ranks(layout, shard_ranks)
    if groups is None:
        p = params_per_rank(model, layout)
        return _group_states_bytes(model, layout, p, dense, reduce_bytes)
    first, *rest = groups
    return _group_states_bytes(model, layout, first[0], dense or first[1], reduce_bytes) + sum(
        _group_states_bytes(model, layout, p, g, reduce_bytes) for p, g in rest
    )


def _shard_ranks(layout: Layout, shard_ranks: int | None) -> int | None:
    """The group ZeRO-1/2 shards the dense states over when it is smaller than dp x cp and
    divides it (None: dp x cp, the default)."""
    n = layout.dp * layout.cp
    if not shard_ranks or layout.zero_stage not in (1, 2) or shard_ranks >= n or n % shard_ranks:
        return None
    return shard_ranks


def _group_states_bytes(
    model: ModelSpec, layout: Layout, p: float, group: int | None, reduce_bytes: float | None
) -> float:
    grad = grad_bytes(layout, reduce_bytes)
    # context-parallel ranks hold the same weights: shard over both
    dp = group if group is not None else layout.dp * layout.cp
    trainable = p
    frozen = 0.0
    share = trainable_share(model)
    if share < 1.0:
        trainable = p * share
        frozen = p - trainable
    stage = layout.zero_stage
    if stage == 0:
        per = trainable * (WEIGHT_BYTES + grad + OPTIMIZER_BYTES)
    elif stage == 1:
        per = trainable * (WEIGHT_BYTES + grad + OPTIMIZER_BYTES / dp)
    elif stage == 2:
        per = trainable * (WEIGHT_BYTES + (grad + OPTIMIZER_BYTES) / dp)
    else:
        per = trainable * (WEIGHT_BYTES + grad + OPTIMIZER_BYTES) / dp
    frozen_bytes = frozen * WEIGHT_BYTES / (dp if stage == 3 else 1)
    return per + frozen_bytes


def layer_activation_bytes(model: ModelSpec, layout: Layout, recompute: str) -> float:
    """Bytes one layer keeps for one microbatch.

    Without flash attention (Korthikanti et al. eq. 1-6): 34*s*b*h + 5*a*s^2*b for a GPT layer
    with dropout; the MLP part 19 is generalised to 3 + 4*ffn/h. With flash attention and no
    dropout (modern pretraining): the s^2 terms and dropout masks go; K and V shrink with GQA and
    a gated MLP keeps three ffn-wide tensors. Q and the attention output are heads x head_dim
    wide, K and V kv_heads x head_dim (ModelSpec.attention_width, kv_width)."""
    s = model.seq_len / layout.cp
    b = layout.microbatch
    h = model.hidden
    t = layout.tp
    ffn: float = model.ffn or 4 * h
    topk: float = 1
    matrices = mlp_matrices(model)
    if model.moe is not None:
        ffn, topk, matrices = mlp_activation_units(model)
    base = s * b * h
    if recompute == "full":
        return 2.0 * base / (t if layout.sequence_parallel else 1)
    q, kv = model.attention_width / h, model.kv_width / h
    if layout.flash_attention:
        attention = 2.0 + 4.0 * q + 4.0 * kv  # norm output, Q, K, V, attention output
        mlp = (2.0 + 2.0 * matrices * ffn / h) * topk
        per_token = attention + mlp + 4.0 - fp8_saved_activations(model, ffn / h, topk)
        replicated = 6.0  # norm inputs and outputs when sequence parallel is off
        attn_sq = 0.0
    else:
        # 34 for a standard GPT layer: norms 4, QKV input 2, dropout mask 1, Q, K, V and the
        # projection's input 8 (at their widths), the MLP 19
        per_token = 7.0 + 4.0 * q + 4.0 * kv + (3.0 + 4.0 * ffn / h) * topk
        replicated = 10.0
        attn_sq = 0.0 if recompute == "selective" else 5.0 * model.heads * s / h
    if layout.sequence_parallel:
        return base * (per_token + attn_sq) / t
    return base * (replicated + (per_token - replicated) / t + attn_sq / t)


def memory_use(
    model: ModelSpec, layout: Layout, microbatches: int, reduce_bytes: float | None = None,
    shard_ranks: int | None = None,
) -> MemoryUse:  # fmt: skip
    states = states_bytes(model, layout, reduce_bytes, shard_ranks)
    layers = first_stage_layers(model.layers, layout.pp)
    p, v = layout.pp, layout.interleave
    in_flight = min(p, microbatches) if p > 1 else 1
    interleave = 1.0 + (p - 1) / (p * v) if v > 1 and p > 1 else 1.0
    stored = layer_activation_bytes(model, layout, layout.recompute)
    first = stored * layers * in_flight * interleave
    if layout.recompute == "full":
        first += layer_activation_bytes(model, layout, "none")  # one layer rebuilt at a time
    if not layout.flash_attention:
        # softmax backward holds the gradient of the attention scores (fp16, a*s^2*b per layer)
        first += (
            2.0 * model.heads * (model.seq_len / layout.cp) ** 2 * layout.microbatch / layout.tp
        )
    logits = model.seq_len / layout.cp * layout.microbatch * model.vocab * 6.0 / layout.tp
    last = stored * layers + logits
    activations = first + logits if p == 1 else max(first, last)
    other = 0.0
    if layout.zero_stage == 3:  # gathered parameters live next to the shards
        other += WEIGHT_BYTES * min(ZERO3_LIVE_PARAMS, model.params / layout.tp / layout.pp)
    total = (states + activations + other) * (1 + FRAGMENTATION) / GB + RUNTIME_FIXED_GB
    other_gb = total - (states + activations) / GB
    return MemoryUse(states / GB, activations / GB, other_gb)
