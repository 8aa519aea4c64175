"""Formulas of docs/MODEL.md checked against hand-computed values."""

from __future__ import annotations

import math

import pytest

from domain.trainmodel import daly_interval_s, ettr, gpu_spec, young_interval_s
from domain.trainmodel.inputs import Cluster, Layout, ModelSpec
from domain.trainmodel.links import collective_s, links_for, placement
from domain.trainmodel.memory import layer_activation_bytes, states_bytes
from domain.trainmodel.steptime import model_flops_per_token, recompute_flops_per_token

GPT = ModelSpec(params_b=175, layers=96, hidden=12288, heads=96, seq_len=2048, vocab=51200)


def _layout(**kw):  # type: ignore[no-untyped-def]
    base = {
        "tp": 1,
        "pp": 1,
        "dp": 1,
        "cp": 1,
        "ep": 1,
        "zero_stage": 0,
        "microbatch": 1,
        "recompute": "none",
        "interleave": 1,
        "sequence_parallel": False,
        "flash_attention": False,
    }
    base.update(kw)
    return Layout(**base)


def _cluster(nic=200.0, fabric="ib", gpu="A100-SXM4-80GB"):  # type: ignore[no-untyped-def]
    return Cluster(gpu_spec(gpu), 64, 8, nic, 8, fabric)


def test_model_flops_per_token_follow_palm_appendix_b():
    assert model_flops_per_token(GPT) == 6 * 175e9 + 12 * 96 * 12288 * 2048
    full = recompute_flops_per_token(GPT, "full")
    assert full == 2 * 175e9 + 4 * 96 * 12288 * 2048
    assert recompute_flops_per_token(GPT, "selective") == 4 * 96 * 12288 * 2048


def test_activations_match_korthikanti_without_parallelism_and_with_tp_sp():
    s, b, h, a = 2048, 1, 12288, 96
    plain = layer_activation_bytes(GPT, _layout(), "none")
    assert plain == pytest.approx(s * b * h * (34 + 5 * a * s / h))
    sp = layer_activation_bytes(GPT, _layout(tp=8, sequence_parallel=True), "none")
    assert sp == pytest.approx(s * b * h / 8 * (34 + 5 * a * s / h))
    tp_only = layer_activation_bytes(GPT, _layout(tp=8), "selective")
    assert tp_only == pytest.approx(s * b * h * (10 + 24 / 8))
    full = layer_activation_bytes(GPT, _layout(tp=8, sequence_parallel=True), "full")
    assert full == pytest.approx(2 * s * b * h / 8)


@pytest.mark.parametrize(
    # stages 0-2 hold fp32 gradients (what they reduce, 4 bytes: Megatron's 18 bytes per
    # parameter); ZeRO-3 holds and reduces bf16 ones
    ("stage", "per_param"),
    [(0, 18.0), (1, 6 + 12 / 8), (2, 2 + 16 / 8), (3, 16 / 8)],
)
def test_model_states_shrink_per_zero_stage(stage, per_param):
    layout = _layout(tp=2, pp=4, dp=8, zero_stage=stage)
    assert states_bytes(GPT, layout) == pytest.approx(175e9 / 8 * per_param)


def test_gradients_take_the_bytes_they_are_reduced_in():
    layout = _layout(tp=2, pp=4, dp=8, zero_stage=1)
    assert states_bytes(GPT, layout, 2.0) == pytest.approx(175e9 / 8 * (4 + 12 / 8))


def test_ring_volumes_per_rank_inside_a_server():
    links = links_for(_cluster())
    size = 1e9
    bw = links.intra_bps
    lat = links.intra_alpha_s
    ar = collective_s("ar", size, 8, 1, links)
    assert ar == pytest.approx(2 * 7 * lat + 2 * 7 / 8 * size / bw)
    ag = collective_s("ag", size, 8, 1, links)
    assert ag == pytest.approx(7 * lat + 7 / 8 * size / bw)
    assert collective_s("ar", size, 1, 1, links) == 0.0


def test_a_group_across_servers_runs_at_the_nic_share_and_pays_network_latency():
    links = links_for(_cluster())
    assert placement(32, 8, 8) == (1, 32)
    assert placement(16, 1, 8) == (8, 2)
    t = collective_s("ar", 1e9, 32, 8, links)
    # one rank per server: one GPU's NIC share; NCCL's tree over 32 servers: 5 levels each way
    assert t == pytest.approx(2 * 5 * links.inter_alpha_s + 2 * 31 / 32 * 1e9 / 24e9)
    slow = links_for(_cluster(nic=10, fabric="tcp"))
    assert collective_s("ar", 1e9, 32, 8, slow) > 50 * t


def test_measured_busbw_replaces_nominal_and_a_size_table_is_read_at_the_message_size():
    measured = Cluster(gpu_spec("A100-SXM4-80GB"), 64, 8, 200, 8, "ib", measured_busbw_gbps=80)
    assert links_for(measured).inter_bps == pytest.approx(10e9)
    assert links_for(measured).basis == "measured"
    table = ((1e6, 16.0), (1e8, 160.0))
    tabled = links_for(Cluster(gpu_spec("A100-SXM4-80GB"), 64, 8, 200, 8, "ib", busbw_table=table))
    assert tabled.inter_at(1e7) == pytest.approx(88 / 8 * 1e9)  # halfway in log(size)
    assert tabled.inter_at(1e9) == pytest.approx(20e9)


def test_young_and_daly_intervals():
    assert young_interval_s(300, 86400) == pytest.approx(math.sqrt(2 * 300 * 86400))
    assert daly_interval_s(300, 86400) / 60 == pytest.approx(116.69, abs=0.01)
    assert daly_interval_s(300, 900) / 60 == pytest.approx(9.14, abs=0.01)
    assert daly_interval_s(2000, 900) == 900  # delta >= 2M: checkpoint every MTBF


def test_ettr_falls_with_restart_time_and_a_failure_free_run_only_pays_checkpoints():
    m = 3 * 3600.0
    assert ettr(600, 10, 300, m) > ettr(600, 10, 1200, m)
    assert ettr(600, 10, 300, math.inf) == pytest.approx(600 / 610)


def test_a_link_test_counts_one_nic_one_direction_and_still_pays_the_fabric_efficiency():
    gpu = gpu_spec("A100-SXM4-80GB")
    one_way = links_for(Cluster(gpu, 64, 8, 200, 8, "roce", measured_link_gbps=160))
    assert one_way.inter_bps == pytest.approx(160 / 8 * 1e9 * 0.92)
    assert one_way.basis == "measured"
    both = links_for(
        Cluster(gpu, 64, 8, 200, 8, "roce", measured_link_gbps=160, link_bidirectional=True)
    )
    assert both.inter_bps == pytest.approx(one_way.inter_bps / 2)
    nominal = links_for(Cluster(gpu, 64, 8, 200, 8, "roce"))
    assert nominal.basis == "nominal" and nominal.inter_bps > one_way.inter_bps
