"""Attention at heads x head_dim when a model states a head_dim other than hidden / heads
(Qwen3-30B-A3B: 32 x 128 = 4096 on hidden 2048; gpt-oss-120b: 64 x 64 on hidden 2880): the
attention core's FLOPs and time, the K/V and Q activations, the MFU numerator and the adapters
all use that width; a model whose head_dim is hidden / heads is the model it was before."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest

from domain.trainmodel import gpu_spec
from domain.trainmodel.arch import mlp_matrices
from domain.trainmodel.attention import attention_times, forward_flops
from domain.trainmodel.cases import model_from, predict_case
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.inputs import Layout, ModelSpec, MoeSpec, check_model
from domain.trainmodel.memory import layer_activation_bytes
from domain.trainmodel.peft import lora_params
from domain.trainmodel.steptime import (
    model_flops_per_token,
    recompute_flops_per_token,
)
from domain.trainmodel.workload import KNOWN_MODEL_KEYS

L, H, HEADS, KV, HD, S = 48, 2048, 32, 4, 128, 4096
QWEN = ModelSpec(
    params_b=30.5, layers=L, hidden=H, heads=HEADS, kv_heads=KV, head_dim=HD, seq_len=S,
    vocab=151936, moe=MoeSpec(experts=128, top_k=8, active_params_b=3.3, expert_ffn=768),
)  # fmt: skip
NARROW = replace(QWEN, head_dim=None)  # the same model read as hidden / heads = 64 per head
H100 = gpu_spec("H100-SXM")


def _layout(**kw):  # type: ignore[no-untyped-def]
    base = {"tp": 1, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "zero_stage": 1, "microbatch": 1,
            "recompute": "none", "interleave": 1, "sequence_parallel": False,
            "flash_attention": True}  # fmt: skip
    base.update(kw)
    return Layout(**base)


def test_the_widths_follow_the_stated_head_dim():
    assert (QWEN.head_width, QWEN.attention_width, QWEN.kv_width) == (128.0, 4096.0, 512.0)
    assert (NARROW.head_width, NARROW.attention_width, NARROW.kv_width) == (64.0, 2048.0, 256.0)


def test_the_mfu_numerator_and_the_recomputed_forward_count_the_attention_width():
    # PaLM's 6N + 12·L·h·s with h = heads x head_dim = 4096, not the hidden 2048
    six_n = 6.0 * QWEN.active_params
    assert model_flops_per_token(QWEN) == pytest.approx(six_n + 12.0 * L * 4096 * S)
    assert model_flops_per_token(NARROW) == pytest.approx(six_n + 12.0 * L * 2048 * S)
    assert recompute_flops_per_token(QWEN, "selective") == pytest.approx(4.0 * L * 4096 * S)


def test_the_attention_core_runs_at_the_attention_width_and_the_head_dim_s_efficiency():
    assert forward_flops(QWEN, 1, 1, 1, 1) == pytest.approx(2 * forward_flops(NARROW, 1, 1, 1, 1))
    fwd, bwd = attention_times(QWEN, H100, 1, 1, 1, 1)
    fwd_n, bwd_n = attention_times(NARROW, H100, 1, 1, 1, 1)
    # twice the FLOPs, at head dim 128's efficiency rather than 64's (64/128: 1/3 : 2/3 = 3/4)
    assert fwd == pytest.approx(2 * fwd_n * 0.75)
    assert bwd == pytest.approx(2 * bwd_n * 0.75)


def test_activations_keep_q_and_the_attention_output_at_their_width_and_k_v_at_the_kv_width():
    layout = _layout()
    wide, narrow = (layer_activation_bytes(m, layout, "none") for m in (QWEN, NARROW))
    # bf16 Q and attention output: 2 x 2 bytes per extra unit of width; K and V: 2 x 2 as well
    extra = S * (4.0 * (4096 - 2048) + 4.0 * (512 - 256))
    assert wide - narrow == pytest.approx(extra)
    # without flash attention the same tensors at the same widths
    plain = _layout(flash_attention=False)
    assert layer_activation_bytes(QWEN, plain, "selective") - layer_activation_bytes(
        NARROW, plain, "selective"
    ) == pytest.approx(extra)


def test_adapters_and_the_mlp_reading_use_the_projection_widths():
    lora = replace(
        QWEN, moe=None, ffn=6144, peft="lora", lora_rank=16, lora_targets=("qkv", "proj")
    )
    r = 16
    per_layer = r * ((H + 4096) + 2 * (H + 512) + (4096 + H))
    assert lora_params(lora) == pytest.approx(L * per_layer)
    # a dense model with head_dim: the attention weights 2·h·(q + kv) are taken out first
    dense = ModelSpec(params_b=8.2, layers=36, hidden=4096, heads=32, kv_heads=8, head_dim=128,
                      seq_len=4096, vocab=151936, ffn=12288)  # fmt: skip
    assert mlp_matrices(dense) == 3


def test_a_head_dim_equal_to_hidden_over_heads_changes_nothing():
    case = _case("bridge2511_llama3_70b_64gpu_fp8")
    stated = copy.deepcopy(case)
    model = stated["case"]["model"]
    model["head_dim"] = model["hidden"] // model["heads"]
    assert predict_case(stated["case"]) == predict_case(case["case"])


def test_the_reported_mfu_is_the_model_flops_at_the_attention_width():
    out = predict_case(_case("bridge2511_qwen3_30b_a3b_16gpu_fp8")["case"])
    spec = model_from(_case("bridge2511_qwen3_30b_a3b_16gpu_fp8")["case"]["model"])
    assert spec.head_dim == 128
    peak = H100.bf16_tflops * 1e12
    assert out["mfu"] == pytest.approx(
        out["tokens_per_s"] * model_flops_per_token(spec) / (16 * peak), rel=1e-3
    )


def test_hidden_need_not_split_into_the_heads_when_head_dim_is_stated():
    check_model(replace(QWEN, hidden=3000, heads=64, head_dim=64, kv_heads=8))
    with pytest.raises(TrainModelError) as err:
        check_model(replace(QWEN, hidden=3000, heads=64, head_dim=None, kv_heads=8))
    assert [m.code for m in err.value.messages] == ["model_heads_hidden"]
    with pytest.raises(TrainModelError) as err:
        check_model(replace(QWEN, head_dim=0))
    assert [m.code for m in err.value.messages] == ["model_head_dim_range"]
    assert "head_dim" in err.value.messages[0].en and "head_dim" in err.value.messages[0].zh
    assert "head_dim" in KNOWN_MODEL_KEYS  # a stored architecture may state it


def _case(case_id):  # type: ignore[no-untyped-def]
    path = Path(__file__).parents[3] / "domain/trainmodel/data/validation_cases_modern.json"
    data = json.loads(path.read_text())
    cases = data["cases"] if isinstance(data, dict) else data
    return next(c for c in cases if c["id"] == case_id)
