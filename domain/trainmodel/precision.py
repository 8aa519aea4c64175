"""Compute precision (docs/MODEL.md §3.1): which FLOPs of a microbatch run at the FP8 peak and
which stay in BF16, and the matrix-multiply time of one microbatch on one GPU.

FP8 training as NVIDIA Transformer Engine / Megatron-LM run it (TE "FP8 primer"; DeepSeek-V3
report arXiv:2412.19437 §3.3) casts the inputs of the linear layers (QKV, attention output, MLP
and expert GEMMs, forward and backward) to FP8 and keeps in BF16/FP32: the attention core
(QK^T and softmax·V), the embedding and the output head, the norms, the router and the
optimizer (master weights, moments). So only the linear-layer FLOPs move to the FP8 peak.

FP8 GEMMs do not reach the same share of their (twice as high) peak as BF16 GEMMs do: the
scaling-factor (amax) bookkeeping, the casts and the transposes of FP8 copies are memory-bound
and the tiles are the same size for half the bytes. `FP8_GEMM_RATIO` is the achieved share of
FP8 peak relative to the card's BF16 large-GEMM efficiency, fitted once (median error over the
three published H100 FP8 runs whose step is compute-bound: tensor parallel 1, ZeRO-1 - NeMo
24.07 GPT3-5B, Llama 2 7B, Llama 3 8B; docs/MODEL.md §14): linear layers run 1.48x faster
than in BF16, so a whole step gains 1.2-1.4x, the range NVIDIA's Transformer Engine and NeMo
material report for H100.
`FP8_CAST_BYTES` is the extra HBM traffic per token per hidden unit per layer and pass for the
casts (activation and gradient copies in FP8 plus their transposes).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.trainmodel.calibration import cal
from domain.trainmodel.errors import problem
from domain.trainmodel.gpus import GpuSpec
from domain.trainmodel.inputs import ModelSpec
from domain.trainmodel.moe import EXPERT_MATRICES, routed_active_params, routed_expert_params

FP8_GEMM_RATIO = 0.74
FP8_CAST_BYTES = 6.0


@dataclass(frozen=True, slots=True)
class FlopSplit:
    """FLOPs per token (forward + backward, with recomputation) by where they run."""

    attention_core: float  # BF16 always (flash attention kernels)
    head: float  # embedding / output head: BF16 always
    dense_linear: float  # QKV, projections, dense MLPs, shared experts: FP8 when asked
    expert_linear: float  # routed experts (grouped GEMMs): FP8 when asked

    @property
    def total(self) -> float:
        return self.attention_core + self.head + self.dense_linear + self.expert_linear


def check_precision(model: ModelSpec, gpu: GpuSpec) -> None:
    """FP8 on a card without FP8 tensor cores is refused with its reason."""
    if model.precision == "fp8" and not gpu.fp8_tflops:
        raise problem(
            "precision_fp8_unsupported",
            f"{gpu.key} has no FP8 tensor cores (no FP8 peak in the GPU table): "
            "train in bf16 on it, or choose an FP8-capable card (Hopper, Ada, Blackwell).",
            f"{gpu.key} 没有 FP8 张量核心（GPU 表中没有 FP8 峰值）：请在该卡上使用 bf16 训练，"
            "或选择支持 FP8 的显卡（Hopper、Ada、Blackwell）。",
        )


def fp8_peak_flops(gpu: GpuSpec) -> float:
    return (gpu.fp8_tflops or gpu.bf16_tflops) * 1e12


def linear_speedup(model: ModelSpec, gpu: GpuSpec) -> float:
    """How much faster a linear layer's GEMM runs than in BF16 (1 in bf16)."""
    if model.precision != "fp8" or not gpu.fp8_tflops:
        return 1.0
    return gpu.fp8_tflops / gpu.bf16_tflops * cal().fp8_gemm_ratio


def cast_bytes(model: ModelSpec) -> float:
    """Extra bytes per token per hidden unit per layer and pass for FP8 casts (0 in bf16)."""
    return FP8_CAST_BYTES if model.precision == "fp8" else 0.0


def fp8_saved_activations(model: ModelSpec, ffn_ratio: float, copies: float) -> float:
    """Bytes per token per hidden unit a layer no longer keeps when its linear layers run in
    FP8: Transformer Engine saves the FP8 copy (1 byte, not 2) of each linear layer's input for
    the backward pass - the QKV and output-projection inputs, and per MLP copy the first
    projection's input and the second's (ffn wide)."""
    if model.precision != "fp8":
        return 0.0
    return 1.0 + model.attention_width / model.hidden + (1.0 + ffn_ratio) * copies


def flop_split(model: ModelSpec, total_per_token: float, weight_passes: float) -> FlopSplit:
    """Split `total_per_token` (model + recomputed FLOPs) by where it runs; `weight_passes` is
    the FLOPs per activated weight and token (6, or 8 when the forward is recomputed)."""
    weights = weight_passes * model.active_params
    head = min(weights, weight_passes * model.vocab * model.hidden)
    experts = min(weights - head, weight_passes * routed_active_params(model))
    return FlopSplit(
        attention_core=max(0.0, total_per_token - weights),
        head=head,
        dense_linear=max(0.0, weights - head - experts),
        expert_linear=experts,
    )


def expert_width(model: ModelSpec) -> float:
    """One routed expert's FFN width (inferred from the routed weights when not given)."""
    moe = model.moe
    if moe is None:
        return 0.0
    if moe.expert_ffn is not None:
        return float(moe.expert_ffn)
    per_expert = routed_expert_params(model) / max(1, model.layers - moe.dense_layers)
    return per_expert / moe.experts / (EXPERT_MATRICES * model.hidden)


def matmul_s(
    model: ModelSpec,
    gpu: GpuSpec,
    flops_per_gpu: float,
    split: FlopSplit,
    dense_efficiency: float,
    half_width: float,
    expert_rows: float | None = None,
) -> float:
    """Seconds of `flops_per_gpu` FLOPs shared out as `split`: BF16 parts at the BF16 peak,
    linear parts at the FP8 rate when the model trains in FP8, routed experts at the efficiency
    of their grouped GEMMs: the same saturation w / (w + half_width) the dense GEMMs meet,
    applied to both of an expert GEMM's free dimensions - its width (the expert's FFN) and,
    when known, its height `expert_rows` (the tokens routed to one expert, moe.tokens_per_expert):
    a short, narrow per-expert matrix fills the GPU's SMs no better than a thin shard does."""
    if split.total <= 0:
        return 0.0
    bf16 = gpu.bf16_tflops * 1e12
    speed = linear_speedup(model, gpu)
    width = expert_width(model)
    large = gpu.efficiency * cal().efficiency_scale
    expert_efficiency = large * width / (width + half_width) if width else 1.0
    if width and expert_rows is not None:
        expert_efficiency *= expert_rows / (expert_rows + half_width)
    per_flop = (
        (split.attention_core + split.head) / dense_efficiency
        + split.dense_linear / (dense_efficiency * speed)
        + split.expert_linear / (expert_efficiency * speed)
    ) / split.total
    return flops_per_gpu * per_flop / bf16


def expert_matmul_s(
    model: ModelSpec, gpu: GpuSpec, flops_per_gpu: float, split: FlopSplit, half_width: float
) -> float:
    """The routed experts' share of `matmul_s` before the row saturation: matmul_s with
    `expert_rows` r is matmul_s without it plus this x half_width / r."""
    width = expert_width(model)
    if split.total <= 0 or not width:
        return 0.0
    large = gpu.efficiency * cal().efficiency_scale
    efficiency = large * width / (width + half_width)
    share = split.expert_linear / split.total
    rate = efficiency * linear_speedup(model, gpu) * gpu.bf16_tflops * 1e12
    return flops_per_gpu * share / rate
