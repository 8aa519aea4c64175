"""Small MoE (docs/MODEL.md §21.2): the issue-37 candidates checked against the model, and the
published token-drop run of the same layout as the dropless misses."""

from __future__ import annotations

import copy
import math

import pytest

from domain.trainmodel import gpu_spec
from domain.trainmodel.cases import model_from, predict_case
from domain.trainmodel.moe import tokens_per_expert
from domain.trainmodel.steptime import shard_half_width
from domain.trainmodel.validation import validation_cases

H100_SMS = 132  # NVIDIA H100 SXM5 data sheet
TILE = 128  # cuBLAS / CUTLASS Hopper GEMM tile edge (NVIDIA Matrix Multiplication Background)


def _case(case_id: str) -> dict:  # type: ignore[type-arg]
    return next(e for e in validation_cases() if e["id"] == case_id)


def _tile_wave_factor(gemms: list[tuple[float, float, float]]) -> float:
    """Time of the GEMMs run one at a time with M and N padded to whole tiles and the tiles run in
    whole waves over the SMs, over their time at the large-GEMM rate."""
    flops = sum(2 * m * n * k for m, n, k in gemms)
    slow = 0.0
    for m, n, k in gemms:
        tiles = math.ceil(m / TILE) * math.ceil(n / TILE)
        efficiency = m * n / (math.ceil(tiles / H100_SMS) * H100_SMS * TILE * TILE)
        slow += 2 * m * n * k / efficiency
    return slow / flops


@pytest.mark.parametrize(
    "case_id",
    [
        "bridge2511_qwen3_30b_a3b_16gpu_fp8",
        "bridge2602_qwen3_30b_a3b_16gpu_fp8_gbs1024",
        "bridge2511_gpt_oss_120b_64gpu_bf16",
        "bridge2602_gpt_oss_120b_64gpu_bf16_gbs1280",
    ],
)
def test_tile_and_wave_quantisation_is_what_the_expert_saturation_already_charges(case_id):
    raw = _case(case_id)["case"]
    out = predict_case(raw)
    model = model_from(raw["model"], raw.get("precision"), raw.get("attention_kernel"))
    lay = out["layout"]
    rows = tokens_per_expert(model, lay["microbatch"], lay["tp"], lay["cp"], lay["ep"])
    assert model.moe is not None and model.moe.expert_ffn is not None
    h, f = model.hidden, model.moe.expert_ffn
    # per expert: fc1 (gated, 2f wide) and fc2 forward, their data-gradient and weight-gradient
    gemms = [(rows, 2 * f, h), (rows, h, f), (rows, h, 2 * f), (rows, f, h), (2 * f, h, rows),
             (h, f, rows)]  # fmt: skip
    half = shard_half_width(gpu_spec("H100-SXM"))
    saturation = (1 + half / f) * (1 + half / rows)
    assert _tile_wave_factor(gemms) == pytest.approx(saturation, rel=0.10)


def test_the_token_drop_run_of_the_same_layout_is_within_the_goal():
    """Megatron-Bridge 25.09 (performance-summary-archive.md @0a25f91, DGX-H100, "Qwen3_30B_a3B
    (tokendrop)"): 16 GPUs, GBS 512, MBS 2, PP 2, VP 24, EP 8 -> 10,494 tokens/s per GPU, the
    layout of the 25.11 dropless case (5,275). Its precision is not printed: either reading is
    within the 35% goal, so the dropless runs' 2x is not in the model's compute or traffic."""
    for precision, low, high in (("fp8", 0.0, 0.20), ("bf16", -0.25, 0.0)):
        case = copy.deepcopy(_case("bridge2511_qwen3_30b_a3b_16gpu_fp8")["case"])
        case["precision"] = precision
        out = predict_case(case)
        error = out["tokens_per_s"] / 16 / 10494 - 1
        assert low < error < high, (precision, error)
