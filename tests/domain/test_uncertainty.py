"""Cost ranges from evidence and assumptions, ties with the winner, and the headline."""

import time
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import ranking
from domain import uncertainty as un
from domain.evidence.linkrates import port_achievable_gbps
from domain.trainmodel import gpu_table
from domain.uncertainty import (
    MODEL_BAND,
    Contender,
    StepParts,
    bandwidth_times,
    cost_ranges,
    headline,
    network_parts,
    ties_with,
)

GPUS = gpu_table()
W = ranking.workload_of({"params_b": 7.0, "tokens_per_step": 4e6, "overlap": 0.5})


def _offer(oid, nic=100.0, measured=None, p50=None, price=40_000.0, nodes=8):  # type: ignore[no-untyped-def]
    return ranking.Offer(
        id=oid, gpu="A100-SXM4-80GB", gpus_per_node=8, nodes=nodes, price_per_node_month=price,
        nic_gbps=nic, fabric="roce", measured_gbps=measured, measured_p50_gbps=p50, pfc=True,
        ecn=True,
    )  # fmt: skip


def _columns(rs, by_id):  # type: ignore[no-untyped-def]
    """The ranking's results as the decision hands them to cost_ranges (offers._ranges)."""
    split = np.array([
        network_parts(r.model_detail, r.comm_time_s, by_id[r.offer_id].gpus_per_node,
                      r.nodes_used) for r in rs
    ])  # fmt: skip
    parts = StepParts(
        np.array([r.step_time_s for r in rs]), np.array([r.compute_time_s for r in rs]),
        split[:, 0], split[:, 1], split[:, 2],
    )  # fmt: skip
    o = [by_id[r.offer_id] for r in rs]
    times = bandwidth_times(
        np.array([r.bandwidth_basis == "measured" for r in rs]),
        np.array([x.measured_gbps or np.nan for x in o]),
        np.array([x.measured_p50_gbps or np.nan for x in o]),
        np.full(len(o), np.nan),
        np.array([port_achievable_gbps(x.fabric, x.nic_gbps) * x.nics_per_node for x in o]),
    )  # fmt: skip
    return np.array([r.cost_per_eth for r in rs]), parts, times


def _ranges(offers, workload=W):  # type: ignore[no-untyped-def]
    rs = ranking.rank(workload, offers, GPUS).results
    cost, parts, (t_low, t_high) = _columns(rs, {o.id: o for o in offers})
    return rs, *cost_ranges(cost, parts, True, t_low, t_high)


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


def test_the_bandwidth_end_is_the_model_s_own_cost_at_that_bandwidth(monkeypatch):
    # With only the bandwidth moving, the high end of a claimed 25G offer is what the model
    # itself prices the offer at with half the rate (same layout: the search keeps it here),
    # and the low end of a measured one is the ranking's own cost at the measured high figure.
    for name in ("MFU_BAND", "OVERLAP_BAND", "MODEL_BAND"):
        monkeypatch.setattr(un, name, 0.0)
    offers = [_offer("claimed", nic=25.0), _offer("measured", nic=25.0, measured=20.0, p50=25.0)]
    rs, low, high = _ranges(offers)
    at_half = ranking.rank(W, [replace(offers[0], nic_gbps=12.5)], GPUS).results[0]
    by = {r.offer_id: i for i, r in enumerate(rs)}
    assert at_half.model_detail["layout"] == rs[by["claimed"]].model_detail["layout"]
    assert high[by["claimed"]] == pytest.approx(at_half.cost_per_eth, rel=2e-3)
    measured = rs[by["measured"]]
    assert low[by["measured"]] == pytest.approx(measured.cost_per_eth_low, rel=2e-3)
    assert measured.cost_per_eth_low < measured.cost_per_eth


def _one(step, compute, dp=0.0, other=0.0, window=0.0):  # type: ignore[no-untyped-def]
    return StepParts(*(np.array([x], dtype=float) for x in (step, compute, dp, other, window)))


def test_exposed_communication_the_old_formula_hid_now_moves_the_range():
    # A step of 10 s compute and 1 s of exposed inter-server traffic (tensor/pipeline: nothing
    # hides it) on an unverified offer. The retired formula took the 1 s as if nothing were
    # hidden yet and subtracted overlap x compute again: max(0, 2 x 1 - 0.35 x 10 / 1.1) = 0,
    # so half the bandwidth cost nothing and the range was the model band alone.
    t_c, t_x = 10.0, 1.0
    old_high_exposed = max(0.0, t_x / 0.5 - 0.35 * t_c / 1.1)
    assert old_high_exposed == 0.0
    cost = np.array([110.0])
    low, high = cost_ranges(
        cost, _one(11.0, t_c, other=t_x), True, np.array([1.0]), np.array([2.0])
    )  # fmt: skip
    # high end: 2 s of traffic against compute 10 / 1.1 s: (11 - 1 + 2 x 1.1) / 11 of the cost
    assert high[0] == pytest.approx(110.0 * (10.0 + 2.0 * 1.1) / 11.0 * (1 + MODEL_BAND))
    assert high[0] > 110.0 * 1.12
    # low end: the claimed rate, compute 10 / 0.9 s: the 1 s weighs 0.9 s of it
    assert low[0] == pytest.approx(110.0 * (10.0 + 0.9) / 11.0 * (1 - MODEL_BAND))


def test_data_parallel_traffic_is_recovered_from_its_exposed_part_and_overlap_shifts_it():
    # 2 s of DP traffic beside a 1 s window at overlap efficiency 0.6: 0.6 s hidden, 1.4 s
    # exposed. Twice the traffic (4 s) beside the window of compute 1 / 1.1 s at 0.45:
    # 4 - 0.45 / 1.1 s exposed.
    step, compute = 11.4, 10.0
    low, high = cost_ranges(
        np.array([114.0]), _one(step, compute, dp=1.4, window=1.0), True,
        np.array([1.0]), np.array([2.0]),
    )  # fmt: skip
    exposed_high = 4.0 - 0.45 / 1.1
    assert high[0] == pytest.approx(
        114.0 * (step - 1.4 + exposed_high * 1.1) / step * (1 + MODEL_BAND)
    )
    # low end: the same 2 s beside a window of 1 / 0.9 s at 0.75: 2 - 0.75 / 0.9 s exposed
    exposed_low = 2.0 - 0.75 / 0.9
    assert low[0] == pytest.approx(
        114.0 * (step - 1.4 + exposed_low * 0.9) / step * (1 - MODEL_BAND)
    )
    # without overlap nothing was hidden: the traffic is the exposed 1.4 s and doubles
    _lo, off = cost_ranges(
        np.array([114.0]), _one(step, compute, dp=1.4, window=1.0), False,
        np.array([1.0]), np.array([2.0]),
    )  # fmt: skip
    assert off[0] == pytest.approx(114.0 * (step - 1.4 + 2.8 * 1.1) / step * (1 + MODEL_BAND))


def test_measured_figures_move_each_end_and_a_claim_halves_the_rate():
    t_low, t_high = bandwidth_times(
        np.array([True, True, True, False]),
        np.array([80.0, 80.0, 80.0, np.nan]),  # typical
        np.array([100.0, np.nan, 400.0, np.nan]),  # high end of the measured range
        np.array([60.0, np.nan, 40.0, np.nan]),  # low end
        np.array([200.0, 200.0, 200.0, 200.0]),  # quoted NICs: the high end is capped at 200
    )
    assert t_low.tolist() == pytest.approx([0.8, 1.0, 0.4, 1.0])
    assert t_high.tolist() == pytest.approx([80 / 60, 1.0, 2.0, 2.0])


_parts = st.tuples(
    st.floats(0.1, 100.0),  # compute
    st.floats(0.0, 50.0),  # bubble, optimizer, traffic inside servers
    st.floats(0.0, 50.0),  # exposed DP over the network
    st.floats(0.0, 50.0),  # other exposed traffic over the network
    st.floats(0.0, 1.0),  # window as a share of compute
)


def _row(p):  # type: ignore[no-untyped-def]
    c, rest, dp, other, share = p
    return StepParts(*(np.array([x]) for x in (c + rest + dp + other, c, dp, other, share * c)))


@settings(max_examples=300, deadline=None)
@given(_parts, st.booleans(), st.floats(0.2, 1.0), st.floats(1.0, 5.0), st.booleans())
def test_the_range_always_holds_the_cost(p, overlap, t_low, t_high, one_node):  # type: ignore[no-untyped-def]
    cost = np.array([50.0])
    parts = _row(p)
    if one_node:  # network_parts of a one-server offer: no network time
        assert network_parts(None, 3.0, 8, 1) == (0.0, 0.0, 0.0)
        parts = replace(parts, dp_net_s=np.array([0.0]), other_net_s=np.array([0.0]))
    low, high = cost_ranges(cost, parts, overlap, np.array([t_low]), np.array([t_high]))
    assert low[0] <= cost[0] <= high[0]
    if one_node:
        assert low[0] == pytest.approx(cost[0] * (1 - MODEL_BAND))
        assert high[0] == pytest.approx(cost[0] * (1 + MODEL_BAND))


@settings(max_examples=300, deadline=None)
@given(_parts, st.floats(0.0, 30.0), st.floats(0.0, 30.0), st.booleans())
def test_more_exposed_communication_never_narrows_an_unverified_range(p, more_dp, more, overlap):  # type: ignore[no-untyped-def]
    # the same offer with more exposed network time (its step longer by as much)
    c, rest, dp, other, share = p
    base, wider = _row(p), _row((c, rest, dp + more_dp, other + more, share))
    t_low, t_high = bandwidth_times(
        np.array([False]), *(np.array([np.nan]) for _ in range(3)), np.array([100.0])
    )
    widths = []
    for parts in (base, wider):
        low, high = cost_ranges(np.array([1.0]), parts, overlap, t_low, t_high)
        widths.append(high[0] - low[0])  # cost 1: relative width
    assert widths[1] >= widths[0] - 1e-12


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
    compute = rng.uniform(1, 100, n)
    dp, other = rng.uniform(0, 20, n), rng.uniform(0, 5, n)
    parts = StepParts(compute * 1.1 + dp + other, compute, dp, other, compute * rng.random(n))
    cost = rng.uniform(1, 100, n)
    start = time.perf_counter()
    t_low, t_high = bandwidth_times(
        rng.random(n) < 0.5, np.full(n, 80.0), rng.uniform(80, 100, n), rng.uniform(40, 80, n),
        np.full(n, 100.0),
    )  # fmt: skip
    low, high = cost_ranges(cost, parts, True, t_low, t_high)
    assert time.perf_counter() - start < 0.05
    assert (low <= cost).all() and (high >= cost).all()


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
