"""The attention core timed at its own efficiency (docs/MODEL.md §17.2).

QKᵀ and PV (softmax(QKᵀ)·V) are not dense GEMMs of the weights: a fused (flash) attention
kernel streams K and V blocks through on-chip memory for every block of queries. Its speed is a
property of the card and of the kernel, measured by the FlashAttention authors, not of the
large-GEMM efficiency the linear layers reach. Per layer and microbatch on one GPU:

- forward FLOPs `4·b·(s/cp)·s·h_a/tp × c` (QKᵀ and PV, 2 FLOPs per multiply-add, every query of
  the rank's s/cp tokens against the sequence's s keys, the heads split by tp; h_a = heads ×
  head_dim, the hidden size unless the model states another head_dim), with
  `c = ½ + B/(2·s)` under causal masking: only the blocks at or below the diagonal are
  computed, and the diagonal blocks (B = 128 rows, FlashAttention-2's tile) in full;
- backward 2.5 × the forward FLOPs (FlashAttention-2 §3.1.1 counts it so: five block products
  instead of two, the scores recomputed from Q and K);
- one more forward under full or selective recomputation;
- efficiency = the card's measured forward / backward share of peak at head dim 128 on long
  sequences (GPU table), × `d/(d + 64)` ÷ `128/192` for head dim d (smaller heads do less work
  per loaded block: the FlashAttention-2 and -3 papers' head-dim 64 curves run at roughly 3/4 of
  their head-dim 128 ones), × `n/(n + 256)` ÷ `16384/16640` for a kernel over n keys (short
  sequences fill the GPU worse; FlashAttention-2 Fig. 4, A100, head dim 128: 0.69 of its 16k
  throughput at 512, 0.89 at 2k, 0.94 at 4k), capped at 0.95.

MFU keeps PaLM's convention (12·L·h·s per token, no causal halving): what the kernel does and
what is counted differ, and the time is what the kernel does.
"""

from __future__ import annotations

from domain.trainmodel.gpus import GpuSpec
from domain.trainmodel.inputs import ModelSpec

FLASH_BLOCK = 128  # query rows per FlashAttention-2 block
BACKWARD_FLOP_RATIO = 2.5  # FlashAttention-2 §3.1.1: backward = 2.5 x forward FLOPs
HEAD_DIM_HALF = 64.0
HEAD_DIM_REF = 128.0
SEQ_HALF = 256.0
SEQ_REF = 16384.0
MAX_ATTENTION_EFFICIENCY = 0.95
# A card without measured flash-attention figures: forward at its large-GEMM efficiency,
# backward at 0.8 of it (assumption, MODEL.md §17.2).
DERIVED_BWD_SHARE = 0.8


def causal_fraction(seq_len: float) -> float:
    """Share of the s x s score blocks a causal kernel computes."""
    return min(1.0, 0.5 + FLASH_BLOCK / (2.0 * max(seq_len, 1.0)))


def attention_efficiency(
    gpu: GpuSpec, head_dim: float, keys: float, kernel: str = "fa2"
) -> tuple[float, float]:
    """(forward, backward) share of the BF16 peak a fused attention kernel reaches."""
    fwd = gpu.attention_fwd_eff if gpu.attention_fwd_eff else gpu.efficiency
    bwd = gpu.attention_bwd_eff if gpu.attention_bwd_eff else DERIVED_BWD_SHARE * fwd
    if kernel == "fa3" and gpu.attention_fwd_eff_fa3 and gpu.attention_bwd_eff_fa3:
        fwd, bwd = gpu.attention_fwd_eff_fa3, gpu.attention_bwd_eff_fa3
    head = (head_dim / (head_dim + HEAD_DIM_HALF)) / (HEAD_DIM_REF / (HEAD_DIM_REF + HEAD_DIM_HALF))
    seq = (keys / (keys + SEQ_HALF)) / (SEQ_REF / (SEQ_REF + SEQ_HALF))
    scale = head * seq
    return (
        min(MAX_ATTENTION_EFFICIENCY, fwd * scale),
        min(MAX_ATTENTION_EFFICIENCY, bwd * scale),
    )


def forward_flops(model: ModelSpec, tp: int, pp: int, cp: int, microbatch: int) -> float:
    """Attention-core forward FLOPs of one microbatch on one GPU (its stage's layers)."""
    s = float(model.seq_len)
    local = s / cp
    per_layer = 4.0 * microbatch * local * s * model.attention_width / tp * causal_fraction(s)
    return per_layer * model.layers / pp


def attention_times(
    model: ModelSpec, gpu: GpuSpec, tp: int, pp: int, cp: int, microbatch: int
) -> tuple[float, float]:
    """(forward, backward) seconds of the attention core of one microbatch on one GPU. Each
    context-parallel rank runs cp kernels over s/cp keys."""
    fwd_flops = forward_flops(model, tp, pp, cp, microbatch)
    fwd_eff, bwd_eff = attention_efficiency(
        gpu, model.head_width, model.seq_len / cp, model.attention_kernel
    )
    peak = gpu.bf16_tflops * 1e12
    return fwd_flops / (peak * fwd_eff), BACKWARD_FLOP_RATIO * fwd_flops / (peak * bwd_eff)


def flash_attention_s(
    model: ModelSpec, gpu: GpuSpec, tp: int, pp: int, cp: int, microbatch: int, recompute: str
) -> float:
    """Seconds of the attention core of one microbatch on one GPU: forward, backward and the
    recomputed forward."""
    fwd, bwd = attention_times(model, gpu, tp, pp, cp, microbatch)
    forwards = 2.0 if recompute in ("full", "selective") else 1.0
    return forwards * fwd + bwd


def counted_attention_flops_per_token(model: ModelSpec, recompute: str) -> float:
    """The attention core in the FLOP convention (12·L·h·s, 4·L·h·s more per recomputed
    forward): what the linear-layer timing leaves out when the core is timed here."""
    base = 12.0 * model.layers * model.attention_width * model.seq_len
    return base + (base / 3.0 if recompute in ("full", "selective") else 0.0)
