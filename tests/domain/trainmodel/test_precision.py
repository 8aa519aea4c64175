"""FP8 training (domain/trainmodel/precision.py): faster than BF16 by a bounded factor, only in
the linear layers, refused on cards without FP8, and the `precision` input of predict_runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.trainmodel import gpu_spec
from domain.trainmodel.cases import predict_case
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.inputs import ModelSpec, check_model
from domain.trainmodel.precision import (
    FP8_GEMM_RATIO,
    FlopSplit,
    flop_split,
    fp8_saved_activations,
    matmul_s,
)

LLAMA_70B = {
    "params_b": 70.6,
    "layers": 80,
    "hidden": 8192,
    "heads": 64,
    "kv_heads": 8,
    "ffn": 28672,
    "vocab": 128256,
    "seq_len": 8192,
}


def _case(precision: str | None, gpu: str = "H100-SXM") -> dict[str, object]:
    case: dict[str, object] = {
        "id": f"llama70b-{precision}",
        "gpu": gpu,
        "gpus": 64,
        "gpus_per_node": 8,
        "nic_gbps": 400,
        "nics_per_node": 8,
        "fabric": "ib",
        "model": LLAMA_70B,
        "parallel": {
            "tp": 4,
            "pp": 4,
            "dp": 4,
            "microbatch": 1,
            "global_batch_tokens": 128 * 8192,
            "recompute": "full",
            "zero_stage": 1,
        },
    }
    if precision is not None:
        case["precision"] = precision
    return case


def test_fp8_trains_faster_than_bf16_but_less_than_the_linear_layers_speedup():
    bf16 = predict_case(_case("bf16"))
    fp8 = predict_case(_case("fp8"))
    assert bf16["fits"] and fp8["fits"]
    ratio = fp8["tokens_per_s"] / bf16["tokens_per_s"]
    linear = 1979 / 989 * FP8_GEMM_RATIO  # the most any FLOP can gain
    assert 1.15 < ratio < linear, ratio
    # the same layout, only the compute changes
    assert fp8["layout"] == bf16["layout"]
    assert fp8["breakdown_s"]["tp_comm"] == bf16["breakdown_s"]["tp_comm"]
    assert fp8["breakdown_s"]["compute"] < bf16["breakdown_s"]["compute"]


def test_a_case_without_precision_is_bf16():
    assert predict_case(_case(None))["tokens_per_s"] == predict_case(_case("bf16"))["tokens_per_s"]


def test_fp8_on_a_card_without_fp8_is_refused_with_its_reason_in_both_languages():
    out = predict_case(_case("fp8", gpu="A100-SXM4-80GB"))
    assert out["fits"] is False
    assert "FP8" in out["reason"] and "A100-SXM4-80GB" in out["reason"]
    assert "FP8" in out["reason_zh"]
    assert out["error"][0]["code"] == "precision_fp8_unsupported"


@pytest.mark.parametrize("bad", ["fp4", "int8"])
def test_an_unknown_precision_is_refused(bad):
    out = predict_case(_case(bad))
    assert out["fits"] is False
    assert out["error"][0]["code"] == "model_precision"
    assert bad in out["reason"]


def test_a_precision_that_is_not_text_is_refused():
    out = predict_case(_case(8))  # type: ignore[arg-type]
    assert out["fits"] is False and out["error"][0]["code"] == "case_precision_type"


def test_check_model_accepts_both_precisions():
    model = ModelSpec(params_b=7, layers=32, hidden=4096, heads=32, seq_len=4096)
    for precision in ("bf16", "fp8"):
        check_model(replace(model, precision=precision))
    with pytest.raises(TrainModelError):
        check_model(replace(model, precision="FP8 please"))


def test_attention_core_and_head_stay_in_bf16():
    """Only the linear layers move to the FP8 peak: a split of attention and head FLOPs alone
    takes the same time in both precisions, the linear part runs FP8_GEMM_RATIO x 2 faster."""
    gpu = gpu_spec("H100-SXM")
    bf16 = ModelSpec(params_b=7, layers=32, hidden=4096, heads=32, seq_len=4096, vocab=32000)
    fp8 = replace(bf16, precision="fp8")
    rest = FlopSplit(attention_core=3e9, head=1e9, dense_linear=0.0, expert_linear=0.0)
    assert matmul_s(fp8, gpu, 1e15, rest, 0.6, 160) == matmul_s(bf16, gpu, 1e15, rest, 0.6, 160)
    linear = FlopSplit(attention_core=0.0, head=0.0, dense_linear=4e9, expert_linear=0.0)
    slow = matmul_s(bf16, gpu, 1e15, linear, 0.6, 160)
    fast = matmul_s(fp8, gpu, 1e15, linear, 0.6, 160)
    assert slow / fast == pytest.approx(1979 / 989 * FP8_GEMM_RATIO)


def test_flop_split_by_hand():
    model = ModelSpec(
        params_b=7, layers=32, hidden=4096, heads=32, seq_len=4096, vocab=32000, precision="fp8"
    )
    weights = 6 * 7e9
    attention = 12 * 32 * 4096 * 4096
    split = flop_split(model, weights + attention, 6.0)
    assert split.attention_core == pytest.approx(attention)
    assert split.head == pytest.approx(6 * 32000 * 4096)
    assert split.dense_linear == pytest.approx(weights - 6 * 32000 * 4096)
    assert split.expert_linear == 0.0


def test_fp8_keeps_linear_inputs_in_one_byte():
    model = ModelSpec(params_b=7, layers=32, hidden=4096, heads=32, seq_len=4096, ffn=11008)
    assert fp8_saved_activations(model, 11008 / 4096, 1) == 0.0
    fp8 = replace(model, precision="fp8")
    # QKV and projection inputs (1 + 1), MLP input (1) and the second MLP matrix's input
    assert fp8_saved_activations(fp8, 11008 / 4096, 1) == pytest.approx(3 + 11008 / 4096)
