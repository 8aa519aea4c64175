"""Sensitivity of the winner to overlap, mfu and bandwidth, and what-if re-ranking."""

from __future__ import annotations

import dataclasses

import pytest

from domain.costmodel import Offer, Scenario, Workload, default_gpus, evaluate, rank
from domain.sensitivity import sensitivity, what_if

GPUS = default_gpus()
WORKLOAD = Workload(params_b=7, tokens_per_step=4e6)
# Cheap 25G RoCE against dearer measured 100G RoCE: the winner depends on the bandwidth guess.
CHEAP = Offer(
    id="cheap25",
    gpu="A100-SXM4-80GB",
    gpus_per_node=8,
    nodes=8,
    price_per_node_month=30_000.0,
    nic_gbps=25.0,
    fabric="roce",
    pfc=True,
    ecn=True,
)
FAST = dataclasses.replace(CHEAP, id="fast100", price_per_node_month=40_000.0,
                           monthly_fees=5_000.0, nic_gbps=100.0, measured_gbps=90.0)  # fmt: skip


def test_what_if_matches_a_ranking_with_the_overrides() -> None:
    moved = what_if(WORKLOAD, [CHEAP, FAST], GPUS, overlap=0.9, mfu=0.4, bandwidth_scale=0.7)
    direct = rank(dataclasses.replace(WORKLOAD, overlap=0.9, mfu=0.4), [CHEAP, FAST], GPUS,
                  scenario=Scenario(bandwidth_scale=0.7))  # fmt: skip
    assert moved == direct
    assert what_if(WORKLOAD, [CHEAP, FAST], GPUS) == rank(WORKLOAD, [CHEAP, FAST], GPUS)


def test_bandwidth_scale_scales_b_and_mfu_scale_moves_the_balance() -> None:
    base = evaluate(WORKLOAD, FAST, GPUS)
    half = evaluate(WORKLOAD, FAST, GPUS, scenario=Scenario(bandwidth_scale=0.5))
    assert half.bandwidth_gbps == pytest.approx(base.bandwidth_gbps * 0.5)
    assert half.comm_time_s == pytest.approx(base.comm_time_s * 2)
    faster = evaluate(WORKLOAD, CHEAP, GPUS, scenario=Scenario(mfu_scale=1.2))
    slower = evaluate(WORKLOAD, CHEAP, GPUS)
    assert faster.compute_time_s == pytest.approx(slower.compute_time_s / 1.2)
    assert faster.utilisation < slower.utilisation  # faster GPUs expose more communication


def test_winner_that_flips_with_bandwidth_is_reported() -> None:
    s = sensitivity(WORKLOAD, [CHEAP, FAST], GPUS)
    assert s.base_winner == "cheap25"
    assert s.currency == "CNY"
    by_name = {p.parameter: p for p in s.parameters}
    assert list(by_name) == ["overlap", "mfu", "bandwidth"]
    bandwidth = by_name["bandwidth"]
    assert (bandwidth.low_setting, bandwidth.high_setting) == (0.5, 1.5)
    assert bandwidth.winner_low == "fast100" and bandwidth.winner_high == "cheap25"
    assert bandwidth.winner_changes
    assert not s.robust
    assert s.verdict.code == "winner_changes"
    assert "bandwidth ×0.5 (fast100 wins)" in s.verdict.en
    assert "fast100" in s.verdict.zh
    # Tornado: the base winner's own cost at each end, and every offer's costs.
    cheap_at_half = evaluate(WORKLOAD, CHEAP, GPUS, scenario=Scenario(bandwidth_scale=0.5))
    assert bandwidth.winner_cost_low == pytest.approx(cheap_at_half.cost_per_eth)
    assert bandwidth.winner_cost_low > s.base_cost  # type: ignore[operator]
    swings = {o.offer_id: o for o in bandwidth.offers}
    assert set(swings) == {"cheap25", "fast100"}
    assert swings["fast100"].low == swings["fast100"].base  # still hidden at half bandwidth


def test_overlap_and_mfu_ranges() -> None:
    s = sensitivity(WORKLOAD, [CHEAP, FAST], GPUS, mfu_spread=0.1)
    overlap, mfu = s.parameters[0], s.parameters[1]
    assert (overlap.low_setting, overlap.high_setting) == (0.0, 1.0)
    no_hiding = evaluate(dataclasses.replace(WORKLOAD, overlap=0.0), CHEAP, GPUS)
    assert overlap.winner_cost_low == pytest.approx(no_hiding.cost_per_eth)
    assert mfu.low_setting == pytest.approx(0.9) and mfu.high_setting == pytest.approx(1.1)


def test_robust_winner_holds_everywhere() -> None:
    dear = dataclasses.replace(FAST, id="dear", price_per_node_month=400_000.0)
    s = sensitivity(WORKLOAD, [FAST, dear], GPUS)
    assert s.robust
    assert s.verdict.code == "winner_robust"
    assert "holds in all scenarios" in s.verdict.en and "保持不变" in s.verdict.zh
    assert all(not p.winner_changes for p in s.parameters)


def test_problems_pass_through_and_no_winner() -> None:
    broken = dataclasses.replace(CHEAP, id="broken", nodes=0)
    s = sensitivity(WORKLOAD, [broken], GPUS)
    assert s.base_winner is None and not s.robust
    assert s.verdict.code == "sensitivity_no_winner"
    assert [p.offer_id for p in s.problems] == ["broken"]
    assert all(p.winner_low is None and not p.winner_changes for p in s.parameters)
