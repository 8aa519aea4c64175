"""Serving ranked against a month of measured samples instead of the modelled profile."""

import pytest

from domain import billing
from domain import serving as sv
from domain import traffic_samples as ts


def _workload(**over):  # type: ignore[no-untyped-def]
    data = {"params_b": 7.0, "mean_rps": 125.0, "peak_rps": 500.0, "tokens_in": 500.0,
            "tokens_out": 250.0, "response_bytes": 100_000.0}  # fmt: skip
    data.update(over)
    return sv.InferenceWorkload(**data)


def _offer(**over):  # type: ignore[no-untyped-def]
    data = {"id": "a100", "gpu": "A100-SXM4-80GB", "gpus_per_node": 8, "nodes": 20,
            "price_per_node_month": 40000.0, "public_bandwidth_mbps": 1000.0,
            "plans": (("fixed", 30.0), ("per_gb", 0.5), ("p95", 25.0))}  # fmt: skip
    data.update(over)
    return sv.ServingOffer(**data)


def _measured() -> billing.TrafficProfile:
    # each day 14 samples at 800, 10 at 500, 264 at 100 Mbit/s: 95th percentile 500, peak 800,
    # 47,925 GB a month (tests/domain/test_traffic_samples.py works these out by hand)
    day = [800.0] * 14 + [500.0] * 10 + [100.0] * 264
    return ts.parse_lines([str(v) for v in day * 30]).profile()


def test_measured_samples_set_the_bills_and_the_need():
    out = sv.rank_offers(_workload(), [_offer()], measured=_measured())
    assert out.measured and out.bandwidth_mbps == pytest.approx(800 * 1.3)
    assert out.traffic_gb == pytest.approx(47_925.0)
    r = out.winner
    assert r is not None
    bills = {b.kind: b.bill_cny for b in r.bills}
    assert bills["p95"] == pytest.approx(500 * 25.0)
    assert bills["per_gb"] == pytest.approx(47_925 * 0.5)
    assert bills["fixed"] == pytest.approx(1000 * 30.0)  # 1,040 needed, capped at the offer's 1,000
    assert r.best_plan == "p95"
    codes = {w.code for w in r.warnings}
    assert "public_bandwidth_short" in codes  # 1,000 Mbit/s cannot carry 800 + 30 %


def test_without_samples_the_modelled_profile_is_used():
    out = sv.rank_offers(_workload(), [_offer()])
    assert not out.measured and out.bandwidth_mbps == pytest.approx(400 * 1.3)
