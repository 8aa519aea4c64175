"""Cost ranges from evidence and assumptions, ties with the winner, and the headline."""

import time

import numpy as np
import pytest

from domain import ranking
from domain.trainmodel import gpu_table
from domain.uncertainty import (
    MODEL_BAND,
    Contender,
    cost_ranges,
    headline,
    ties_with,
)

GPUS = gpu_table()
OVERLAP = 0.5
W = ranking.workload_of({"params_b": 7.0, "tokens_per_step": 4e6, "overlap": OVERLAP})


def _offer(oid, nic=100.0, measured=None, p50=None, price=40_000.0, nodes=8):  # type: ignore[no-untyped-def]
    return ranking.Offer(
        id=oid, gpu="A100-SXM4-80GB", gpus_per_node=8, nodes=nodes, price_per_node_month=price,
        nic_gbps=nic, fabric="roce", measured_gbps=measured, measured_p50_gbps=p50, pfc=True,
        ecn=True,
    )  # fmt: skip


def _ranges(offers, workload=W, overlap=OVERLAP):  # type: ignore[no-untyped-def]
    out = ranking.rank(workload, offers, GPUS)
    rs = out.results
    measured = np.array([r.bandwidth_basis == "measured" for r in rs])
    by_id = {o.id: o for o in offers}
    ratio = np.array([
        (by_id[r.offer_id].measured_gbps / by_id[r.offer_id].measured_p50_gbps)
        if by_id[r.offer_id].measured_p50_gbps else 1.0 for r in rs
    ])  # fmt: skip
    low, high = cost_ranges(
        np.array([r.cost_per_eth for r in rs]), np.array([r.compute_time_s for r in rs]),
        np.array([r.comm_time_s for r in rs]), overlap, measured, ratio,
    )  # fmt: skip
    return rs, low, high


def test_every_range_holds_the_cost_and_a_single_node_keeps_only_the_model_band():
    rs, low, high = _ranges([_offer("one", nodes=1), _offer("eight")])
    for r, lo, hi in zip(rs, low, high, strict=True):
        assert lo <= r.cost_per_eth <= hi
    single = [i for i, r in enumerate(rs) if r.nodes_used == 1][0]
    assert low[single] == pytest.approx(rs[single].cost_per_eth * (1 - MODEL_BAND))
    assert high[single] == pytest.approx(rs[single].cost_per_eth * (1 + MODEL_BAND))


def test_unverified_bandwidth_widens_the_range_more_than_measured_bandwidth():
    # 25G: communication-bound, so the bandwidth assumption shows
    rs, low, high = _ranges(
        [_offer("claimed", nic=25.0), _offer("measured", nic=25.0, measured=25.0, p50=25.0)]
    )
    rows = zip(rs, low, high, strict=True)
    width = {r.offer_id: (hi - lo) / r.cost_per_eth for r, lo, hi in rows}
    assert width["claimed"] > width["measured"] * 1.5


# One offer by hand: cost 100 with 1 s of compute and 2 s of communication per step at overlap
# 0.5, so 1.5 s is exposed and the cost without exposed communication is 100 / 2.5 = 40.
_COST, _COMPUTE, _COMM = np.array([100.0]), np.array([1.0]), np.array([2.0])


def test_an_unverified_offer_s_high_end_is_its_cost_at_half_bandwidth_and_worse_assumptions():
    low, high = cost_ranges(_COST, _COMPUTE, _COMM, 0.5, np.array([False]), np.array([1.0]))
    # high end: half the bandwidth (4 s of communication), overlap 0.35, mfu 10 % higher
    # (compute 1 / 1.1 s): exposed 4 - 0.35 / 1.1 s, so 40 x (1 + 4.05) x 1.02
    assert high[0] == pytest.approx(40 * (1 + (4 - 0.35 / 1.1) * 1.1) * 1.02, rel=1e-9)
    assert high[0] == pytest.approx(206.04, rel=1e-9)
    # low end: the claimed bandwidth, overlap 0.65, mfu 10 % lower (compute 1 / 0.9 s)
    assert low[0] == pytest.approx(40 * (1 + (2 - 0.65 / 0.9) * 0.9) * 0.98, rel=1e-9)


def test_the_low_end_of_a_measured_offer_uses_its_median_bandwidth():
    # P5 10 and P50 20 Gbit/s: at the median the communication takes half as long (1 s)
    low, high = cost_ranges(_COST, _COMPUTE, _COMM, 0.5, np.array([True]), np.array([0.5]))
    # overlap 0.65 and mfu 10 % lower (compute 1 / 0.9 s): exposed 1 - 0.65 / 0.9 s
    assert low[0] == pytest.approx(40 * (1 + (1 - 0.65 / 0.9) * 0.9) * 0.98, rel=1e-9)
    assert low[0] == pytest.approx(49.0, rel=1e-9)
    # its high end keeps the measured (P5) figure: 2 s, overlap 0.35, compute 1 / 1.1 s
    assert high[0] == pytest.approx(40 * (1 + (2 - 0.35 / 1.1) * 1.1) * 1.02, rel=1e-9)


def test_offers_0_7_percent_apart_tie_and_one_30_percent_dearer_does_not():
    low = np.array([100.0, 100.7, 130.0]) * (1 - MODEL_BAND)
    high = np.array([100.0, 100.7, 130.0]) * (1 + MODEL_BAND)
    tied = ties_with(0, low, high, np.array([True, True, True]))
    assert tied.tolist() == [False, True, False]
    assert not ties_with(0, low, high, np.array([True, False, True])).any()  # excluded: no tie
    assert not ties_with(-1, low, high, np.array([True, True, True])).any()


def _c(label, cost, marks=0, verified=False):  # type: ignore[no-untyped-def]
    return Contender(label, cost, marks, 0.0, verified)


def test_a_tie_headline_names_no_winner_and_says_what_decides():
    h = headline(_c("A", 100.0, 2), _c("B", 100.7, 0, True), [_c("B", 100.7, 0, True)], excluded=0)
    assert h.message.code == "tie"
    assert "No clear winner" in h.message.en and "没有明确的胜出者" in h.message.zh
    assert "0.7%" in h.message.en and "0.7%" in h.message.zh
    assert [d.code for d in h.deciders] == ["decide_risk", "decide_evidence", "decide_contract"]
    assert "A: 2; B: 0" in h.deciders[0].en
    assert "B" in h.deciders[1].en


def test_a_clear_winner_is_recommended_and_told_to_verify_claimed_bandwidth():
    h = headline(_c("A", 100.0), _c("B", 140.0), [], excluded=1)
    assert h.message.code == "recommend_clear" and "40.0%" in h.message.en
    assert [d.code for d in h.deciders] == ["decide_verify"]
    assert headline(_c("A", 100.0, verified=True), None, [], excluded=0).message.code == (
        "recommend_only"
    )


def test_with_no_eligible_offer_the_headline_says_what_the_default_policy_would_allow():
    h = headline(None, None, [], excluded=3, eligible_under_default=["X", "Y"])
    assert h.message.code == "none_eligible" and "X, Y" in h.message.en and "X, Y" in h.message.zh
    assert headline(None, None, [], excluded=3).message.code == "none_eligible_default"


def test_ranges_of_10000_offers_take_milliseconds():
    n = 10_000
    rng = np.random.default_rng(7)
    args = (rng.uniform(1, 100, n), rng.uniform(0.1, 1, n), rng.uniform(0, 2, n), 0.5,
            rng.random(n) < 0.5, rng.uniform(0.5, 1, n))  # fmt: skip
    start = time.perf_counter()
    low, high = cost_ranges(*args)
    assert time.perf_counter() - start < 0.05
    assert (low <= args[0]).all() and (high >= args[0]).all()


def test_the_tie_deciders_say_which_offer_has_fewer_risks_and_verified_evidence():
    a, b = _c("A", 100.0, 3), _c("B", 100.5, 1, True)
    h = headline(a, b, [b], excluded=0)
    risk, evidence, contract = h.deciders
    assert "B carries the fewest (1)" in risk.en and "B 最少" in risk.zh
    assert "B; A only claimed it" in evidence.en and "A 仅为声称值" in evidence.zh
    assert contract.code == "decide_contract"
    same = headline(_c("A", 100.0, 1, True), _c("B", 100.2, 1, True), [_c("B", 100.2, 1, True)],
                    excluded=0)  # fmt: skip
    assert "risk does not decide" in same.deciders[0].en
    assert "evidence does not decide" in same.deciders[1].en


def test_risk_premiums_of_tied_offers_are_named():
    a = Contender("A", 100.0, 1, 4.0, False)
    b = Contender("B", 100.3, 0, 0.0, False)
    h = headline(a, b, [b], excluded=0)
    assert [d.code for d in h.deciders] == [
        "decide_risk",
        "decide_premium",
        "decide_verify",
        "decide_contract",
    ]
    assert "A: +4%" in h.deciders[1].en
