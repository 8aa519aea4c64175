"""Training model v3, scale: causal attention computes half the s^2 term under flash attention;
Megatron's --tp-comm-overlap hides TP traffic on Hopper-class GPUs over NVLink (MODEL.md §3, §5)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from domain.trainmodel import gpu_spec
from domain.trainmodel.attention import forward_flops
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec
from domain.trainmodel.links import links_for
from domain.trainmodel.steptime import (
    causal_saving_flops_per_token,
    microbatch_compute_s,
    model_flops_per_token,
    step_time,
)

LONG = ModelSpec(params_b=8.0, layers=32, hidden=4096, heads=32, seq_len=131072, vocab=128256)


def _layout(**kw: object) -> Layout:
    base = {"tp": 8, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "zero_stage": 0, "microbatch": 1,
            "recompute": "none", "interleave": 1, "sequence_parallel": True}  # fmt: skip
    base.update(kw)
    return Layout(**base)  # type: ignore[arg-type]


def test_causal_attention_computes_half_the_score_flops_under_flash_attention() -> None:
    gpu = gpu_spec("H100-SXM")
    flash = microbatch_compute_s(LONG, gpu, _layout())
    full = microbatch_compute_s(LONG, gpu, _layout(flash_attention=False))
    saved = causal_saving_flops_per_token(LONG, "none")
    assert saved == pytest.approx(6 * 32 * 4096 * 131072)
    # v4: the flash kernel computes only the causal half of the score blocks (the diagonal
    # blocks in full), at its own measured efficiency (attention.py), which on Hopper with
    # FlashAttention-2 is below the GEMM efficiency the unfused path runs at
    lay = _layout()
    causal = forward_flops(LONG, lay.tp, lay.pp, lay.cp, lay.microbatch)
    whole = 4 * lay.microbatch * 131072 * 131072 * 4096 / lay.tp * 32 / lay.pp
    assert causal == pytest.approx(whole * (0.5 + 64 / 131072))
    assert flash > 0 and full > 0
    # the MFU convention keeps PaLM's 12·L·h·s: the model FLOPs do not change
    assert model_flops_per_token(LONG) == pytest.approx(6 * 8e9 + 12 * 32 * 4096 * 131072)


@pytest.mark.parametrize(("gpu", "hidden"), [("H100-SXM", True), ("A100-SXM4-80GB", False)])
def test_tp_traffic_is_overlapped_with_gemms_on_hopper_only(gpu: str, hidden: bool) -> None:
    model = replace(LONG, seq_len=8192)
    cluster = Cluster(gpu_spec(gpu), 8, 8, 400, 8, "ib")
    links = links_for(cluster)
    lay = _layout()
    step = step_time(model, cluster, links, lay, 8)
    off = step_time(model, cluster, replace(links, tp_comm_overlap=False), lay, 8)
    assert links.tp_comm_overlap is hidden
    if hidden:
        assert step.tp_comm_s < 0.5 * off.tp_comm_s and step.step_s < off.step_s
    else:
        assert step.tp_comm_s == off.tp_comm_s
