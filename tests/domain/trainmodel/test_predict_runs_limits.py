"""predict_runs answers every case (docs/MODEL.md §1, honest limits): a case asking for what the
model cannot express gets `fits: false` and a reason naming it, never a number that ignores it;
Megatron-LM's virtual-pipeline names are the interleave."""

from __future__ import annotations

import copy
from typing import Any

from domain.trainmodel import predict_case

CASE: dict[str, Any] = {
    "id": "base",
    "gpu": "H100-SXM",
    "gpus": 64,
    "gpus_per_node": 8,
    "nic_gbps": 400,
    "nics_per_node": 8,
    "fabric": "ib",
    "model": {
        "params_b": 70.6,
        "layers": 80,
        "hidden": 8192,
        "heads": 64,
        "seq_len": 8192,
        "vocab": 128256,
        "ffn": 28672,
        "kv_heads": 8,
    },  # fmt: skip
    "parallel": {"tp": 8, "pp": 4, "global_batch_tokens": 4194304},
}


def _case(**changes: Any) -> dict[str, Any]:
    case = copy.deepcopy(CASE)
    for path, value in changes.items():
        *owners, key = path.split("__")
        target = case
        for owner in owners:
            target = target[owner]
        target[key] = value
    return case


def test_a_feature_the_model_lacks_is_refused_by_name_not_ignored() -> None:
    out = predict_case(_case(parallel__offload_optimizer="cpu", model__mtp_depth=1))
    assert out["fits"] is False
    assert out["mfu"] is None and out["step_time_s"] is None
    assert out["not_modelled"] == ["model.mtp_depth", "parallel.offload_optimizer"]
    assert "parallel.offload_optimizer" in out["reason"] and "模型未涵盖" in out["reason_zh"]
    assert "error" not in out  # an answer, not bad input


def test_a_plain_case_is_answered_and_notes_about_the_case_are_not_features() -> None:
    out = predict_case(_case(source="Llama 3 paper", note="as published"))
    assert out["fits"] is True and out["mfu"] > 0


def test_vp_and_virtual_pipeline_are_the_interleave() -> None:
    given = predict_case(_case(parallel__interleave=5))
    for name in ("vp", "virtual_pipeline"):
        out = predict_case(_case(**{f"parallel__{name}": 5}))
        assert out["layout_extra"]["interleave"] == 5
        assert out["step_time_s"] == given["step_time_s"]


def test_two_different_virtual_pipeline_values_are_bad_input() -> None:
    out = predict_case(_case(parallel__interleave=2, parallel__vp=5))
    assert out["fits"] is False and out["error"][0]["code"] == "parallel_interleave_conflict"


def test_an_explicit_zero_or_negative_size_is_refused_not_replaced_by_the_default() -> None:
    # "gpus_per_node": 0 used to become 8 and "nics_per_node": 0 one NIC, answered fits: true;
    # a negative ffn or vocab changed the memory figure instead of being refused
    given = predict_case(CASE)
    bad = (("gpus_per_node", 0), ("nics_per_node", 0), ("model__ffn", -1), ("model__vocab", -5),
           ("model__kv_heads", 0), ("model__head_dim", -64))  # fmt: skip
    for path, value in bad:
        out = predict_case(_case(**{path: value}))
        name = path.replace("__", ".").replace("model.", "")
        assert out["fits"] is False, (path, out)
        assert out["error"][0]["code"].endswith(f"{name.split('.')[-1]}_range"), out["error"]
        assert "大于 0" in out["reason_zh"] or "不小于 0" in out["reason_zh"], out["reason_zh"]
    # a vocabulary of 0 (no embedding counted) is a value, not an error
    assert predict_case(_case(model__vocab=0))["fits"] is True
    assert given["fits"] is True


def test_a_wrong_type_is_named_in_words_in_both_languages() -> None:
    out = predict_case(_case(nic_gbps="fast"))
    assert out["fits"] is False
    assert "must be a number" in out["reason"] and "必须是数字" in out["reason_zh"]
