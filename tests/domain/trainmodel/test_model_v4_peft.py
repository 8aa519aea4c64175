"""Model v4: LoRA adapters costed as rank-r GEMMs, extra HBM traffic and frozen-weight gathers."""

from __future__ import annotations

import pytest

from domain.trainmodel.cases import model_from, predict_case
from domain.trainmodel.peft import adapter_bytes_per_token, lora_params, trainable_share

LLAMA8 = {"params_b": 8.03, "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
          "ffn": 14336, "vocab": 128256, "seq_len": 4096}  # fmt: skip
CASE = {"gpu": "H100-SXM", "gpus": 8, "gpus_per_node": 8, "nic_gbps": 400, "nics_per_node": 8,
        "fabric": "ib"}  # fmt: skip
PAR = {"tp": 1, "pp": 1, "dp": 8, "microbatch": 1, "recompute": "none",
       "global_batch_tokens": 64 * 4096}  # fmt: skip


def test_lora_parameters_by_hand():
    model = model_from(LLAMA8 | {"peft": "lora", "lora_rank": 16})
    per_layer = 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 3 * (4096 + 14336))
    assert lora_params(model) == 32 * per_layer  # 41.9M, the preset's "42M trainable"
    assert trainable_share(model) == pytest.approx(lora_params(model) / 8.03e9)
    qkv = model_from(LLAMA8 | {"peft": "lora", "lora_rank": 16, "lora_targets": ["qkv"]})
    assert lora_params(qkv) == 32 * 16 * ((4096 + 4096) + 2 * (4096 + 1024))
    assert adapter_bytes_per_token(qkv) < adapter_bytes_per_token(model)


def test_lora_costs_more_than_its_flops_and_is_answered_with_a_breakdown():
    lora = predict_case(CASE | {"model": LLAMA8 | {"peft": "lora", "lora_rank": 16},
                                "parallel": PAR | {"zero_stage": 1}})  # fmt: skip
    flops_only = predict_case(CASE | {"model": LLAMA8 | {"trainable_params_b": 0.0419},
                                      "parallel": PAR | {"zero_stage": 1}})  # fmt: skip
    assert lora["fits"] and flops_only["fits"]
    # the adapters' narrow GEMMs and second branch cost time their FLOPs do not show
    assert lora["step_time_s"] > 1.05 * flops_only["step_time_s"]
    full = predict_case(CASE | {"model": LLAMA8, "parallel": PAR | {"zero_stage": 3}})
    assert lora["step_time_s"] < full["step_time_s"]  # no weight gradients, tiny optimizer


def test_under_zero3_the_frozen_weights_are_still_gathered():
    par = PAR | {"zero_stage": 3}
    lora = predict_case(
        CASE | {"model": LLAMA8 | {"peft": "lora", "lora_rank": 16}, "parallel": par}
    )
    assert lora["fits"]
    # gathers of all 8B bf16 weights every microbatch over NVLink (2 per microbatch) stay
    gathers = 64 / 8 * 2 * 8.03e9 * 2 * 7 / 8 / (450e9 * 0.82)
    assert lora["breakdown_s"]["dp_exposed"] > 0.2 * gathers


def test_a_video_model_on_a_slow_store_waits_for_its_data_a_text_llm_does_not():
    video = LLAMA8 | {"bytes_per_sample": 200e6}  # 200 MB of frames per sample
    slow = CASE | {"storage_ingress_gbyte_s": 1.0}
    fast = CASE | {"storage_ingress_gbyte_s": 100.0}
    par = PAR | {"zero_stage": 3}
    bound = predict_case(slow | {"model": video, "parallel": par})
    free = predict_case(fast | {"model": video, "parallel": par})
    text = predict_case(slow | {"model": LLAMA8, "parallel": par})
    # 64 samples x 200 MB over 1 GB/s into one server: at least 12.8 s per step
    assert bound["data_wait_s"] > 0
    assert bound["step_time_s"] == pytest.approx(64 * 200e6 / 1e9, rel=1e-3)
    assert free["data_wait_s"] == 0 and free["step_time_s"] < 12.8
    assert text["data_wait_s"] == 0
    assert text["step_time_s"] == pytest.approx(free["step_time_s"])


@pytest.mark.parametrize(
    ("stored", "params_b"),
    [
        ({"model": LLAMA8 | {"peft": "lora", "lora_rank": 16, "lora_targets": ["qkv", "mlp"]},
          "parallel": {}}, 8.03),
        ({"model": {"layers": 48, "hidden": 2048, "heads": 32, "kv_heads": 4, "vocab": 151936,
                    "seq_len": 4096,
                    "moe": {"experts": 128, "top_k": 8, "active_params_b": 3.3,
                            "expert_ffn": 768}},
          "parallel": {}}, 30.5),
        ({"model": {"layers": 61, "hidden": 8192, "heads": 64, "vocab": 128000, "seq_len": 4096},
          "parallel": {"tp": 8, "pp": 16}}, 120.0),
    ],
)  # fmt: skip
def test_a_ranking_workload_may_be_lora_a_small_moe_or_uneven_stages(stored, params_b):
    """What the ranking page's workload architecture accepts is estimated, not refused."""
    from domain.trainmodel import Cluster, estimate, gpu_spec
    from domain.trainmodel.api import Estimate
    from domain.trainmodel.workload import check_architecture

    model, parallel = check_architecture(stored, params_b, 1024 * 4096)
    cluster = Cluster(gpu_spec("H100-SXM"), 256, 8, 400, 8, "ib")
    result = estimate(model, cluster, parallel)
    assert isinstance(result, Estimate), result
    assert result.step.compute_s > 0 and result.layout.tp * result.layout.pp >= 1
