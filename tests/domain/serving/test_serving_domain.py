"""Serving sizing, bills and mixed plans against hand-worked examples."""

import pytest

from domain import billing
from domain import serving as sv


def _workload(**over):  # type: ignore[no-untyped-def]
    data = {
        "params_b": 7.0,
        "mean_rps": 10.0,
        "peak_rps": 40.0,
        "tokens_in": 500.0,
        "tokens_out": 250.0,
        "response_bytes": 2000.0,
    }
    data.update(over)
    return sv.InferenceWorkload(**data)


def _offer(**over):  # type: ignore[no-untyped-def]
    data = {
        "id": "a100",
        "gpu": "A100-SXM4-80GB",
        "gpus_per_node": 8,
        "nodes": 4,
        "price_per_node_month": 40000.0,
        "public_bandwidth_mbps": 1000.0,
        "plans": (("per_gb", 1.0),),
    }
    data.update(over)
    return sv.ServingOffer(**data)


def test_sizing_for_the_peak_by_hand():
    # A100 default 1,500 tok/s; a request loads 250 + 0.1 * 500 = 300 -> 5 requests/s per replica.
    s = sv.size(_workload(), "A100-SXM4-80GB", 8)
    assert s.replica_rps == pytest.approx(5.0)
    assert (s.replicas, s.gpus, s.nodes) == (8, 8, 1)
    # 40 req/s * 2,000 B * 8 = 0.64 Mbit/s, +30 % headroom
    assert s.bandwidth_mbps == pytest.approx(0.832)
    # 10 req/s * 2,000 B * 2,592,000 s (30 days) = 51.84 GB; 10 * 750 tokens * 2,592,000 s
    assert s.monthly_traffic_gb == pytest.approx(51.84)
    assert s.monthly_tokens == pytest.approx(19.44e9)


def test_one_more_request_per_second_needs_another_node():
    s = sv.size(_workload(peak_rps=41.0), "A100-SXM4-80GB", 8)
    assert (s.replicas, s.nodes) == (9, 2)


def test_replicas_of_two_gpus_pack_four_to_a_node():
    s = sv.size(
        _workload(params_b=70.0, gpus_per_replica=4, peak_rps=1.0, mean_rps=1.0), "H100-SXM", 8
    )
    # 3,000 * 4 * 7/70 = 1,200 tok/s per replica -> 4 req/s; one replica of 4 GPUs, one node
    assert s.replica_tokens_per_s == pytest.approx(1200.0)
    assert (s.replicas, s.gpus, s.nodes) == (1, 4, 1)


def test_cost_per_million_served_tokens_by_hand():
    out = sv.rank_offers(_workload(), [_offer()])
    r = out.winner
    assert r is not None and r.nodes_billed == 1
    assert r.bills[0].bill_cny == pytest.approx(51.84)  # 51.84 GB at 1 CNY/GB
    # (40,000 rent + 51.84 bandwidth) / 19,440 million tokens
    assert r.cost_per_million_cny == pytest.approx(40051.84 / 19440)


def _month_workload(peak_hours: float):  # type: ignore[no-untyped-def]
    # 125 req/s * 100 kB * 8 = 100 Mbit/s mean; 500 req/s -> 400 Mbit/s peak
    return _workload(
        mean_rps=125.0, peak_rps=500.0, response_bytes=100_000.0, peak_hours_per_day=peak_hours
    )


def test_a_95th_percentile_month_of_8640_samples_with_four_peak_hours_bills_the_peak():
    traffic = sv.serving_traffic(_month_workload(4.0))
    assert len(traffic.samples_mbps) == 8640
    assert traffic.samples_mbps.count(400.0) == 48 * 30  # 1,440 peak samples > the 432 dropped
    assert traffic.percentile95_mbps() == pytest.approx(400.0)
    bill = billing.monthly_cost(billing.Percentile95Plan(price_per_mbps_month=25.0), traffic)
    assert bill.cost == pytest.approx(10_000.0)


def test_a_95th_percentile_month_with_one_peak_hour_drops_the_peak_entirely():
    w = _month_workload(1.0)
    traffic = sv.serving_traffic(w)
    assert traffic.samples_mbps.count(400.0) == 12 * 30  # 360 samples, all inside the top 432
    base = (24 * 100 - 400) / 23  # 86.96 Mbit/s keeps the mean at 100
    assert traffic.percentile95_mbps() == pytest.approx(base)
    offer = _offer(nodes=20, plans=(("fixed", 30.0), ("per_gb", 0.5), ("p95", 25.0)))
    r = sv.rank_offers(w, [offer]).winner
    assert r is not None
    bills = {b.kind: b.bill_cny for b in r.bills}
    assert bills["fixed"] == pytest.approx(520 * 30.0)  # 400 Mbit/s + 30 % = 520 Mbit/s bought
    assert bills["per_gb"] == pytest.approx(32_400 * 0.5)  # 100 Mbit/s * 2,592,000 s / 8,000
    assert bills["p95"] == pytest.approx(base * 25.0)
    assert r.best_plan == "p95" and r.bandwidth_cny_month == pytest.approx(base * 25.0)


def test_it_warns_when_the_offer_cannot_carry_the_peak():
    w = _month_workload(4.0)
    r = sv.rank_offers(
        w, [_offer(nodes=20, public_bandwidth_mbps=300.0, plans=(("fixed", 30.0),))]
    ).winner
    assert r is not None
    codes = {m.code for m in r.warnings}
    assert "public_bandwidth_short" in codes and "fixed_plan_peak_not_carried" in codes


def test_bad_workloads_get_clear_messages():
    assert {m.code for m in sv.workload_problems(_workload(peak_rps=5.0))} == {"peak_below_mean"}
    assert "zero_tokens_out" in {m.code for m in sv.workload_problems(_workload(tokens_out=0.0))}
    late = sv.workload_problems(_workload(latency_target_s=0.1))
    assert [m.code for m in late] == ["latency_unreachable"]
    assert "0.1 s" in late[0].en and late[0].zh
    with pytest.raises(sv.ServingInputError):
        sv.rank_offers(_workload(mean_rps=0.0), [_offer()])


def test_offers_that_cannot_serve_are_problems_not_results():
    w = _workload(params_b=70.0, latency_target_s=30.0)
    too_big = _offer(id="one-gpu")  # 140 GB of weights on one 80 GB GPU
    slow = _offer(id="slow", gpu="RTX4090", gpus_per_node=8)
    small = _offer(id="small", nodes=1)
    out = sv.rank_offers(_workload(peak_rps=400.0), [small])
    assert out.problems[0].messages[0].code == "offer_too_small"
    out = sv.rank_offers(w, [too_big, slow])
    codes = {p.offer_id: {m.code for m in p.messages} for p in out.problems}
    assert "weights_do_not_fit" in codes["one-gpu"]
    assert "latency_missed" in codes["slow"]


def test_cheaper_per_token_wins_over_cheaper_rent():
    cheap_rent = _offer(id="l40s", gpu="L40S", price_per_node_month=25000.0)
    out = sv.rank_offers(_workload(peak_rps=80.0), [cheap_rent, _offer()])
    assert [r.offer_id for r in out.results] == ["a100", "l40s"]


def _parts(same_vendor: bool):  # type: ignore[no-untyped-def]
    train = sv.PlanPart(
        role="training",
        label="T",
        vendor="v1",
        compute_cny_month=300_000.0,
        first_month=1,
        last_month=3,
        bandwidth_mbps=1000.0,
    )
    serve = sv.PlanPart(
        role="serving",
        label="S",
        vendor="v1" if same_vendor else "v2",
        compute_cny_month=50_000.0,
        first_month=4,
        last_month=12,
        bandwidth_mbps=200.0,
    )
    return (train, serve)


def test_mixed_plan_on_one_vendor_elastic_saves_the_idle_heavy_bandwidth():
    out = sv.mixed_plan(
        sv.MixedPlanInput(parts=_parts(True), horizon_months=12, price_cny_mbps_month=20.0)
    )
    assert [m.need_mbps for m in out.months] == [1000.0] * 3 + [200.0] * 9
    assert out.totals["bandwidth"] == pytest.approx(3 * 20_000 + 9 * 4_000)  # 96,000 elastic
    assert sum(m.bandwidth_fixed_cny for m in out.months) == pytest.approx(12 * 20_000)
    assert out.saving_cny == pytest.approx(144_000)
    assert out.total_elastic_cny == pytest.approx(900_000 + 450_000 + 96_000)
    assert out.shares["training"] == pytest.approx(900_000 / 1_446_000)
    assert sum(out.shares.values()) == pytest.approx(1.0)
    assert out.monthly_average_cny == pytest.approx(1_446_000 / 12)


def test_mixed_plan_across_two_vendors_has_nothing_idle_to_save():
    out = sv.mixed_plan(
        sv.MixedPlanInput(parts=_parts(False), horizon_months=12, price_cny_mbps_month=20.0)
    )
    assert out.saving_cny == pytest.approx(0.0)


def test_elastic_premium_can_eat_the_saving():
    out = sv.mixed_plan(
        sv.MixedPlanInput(
            parts=_parts(True), horizon_months=12, price_cny_mbps_month=20.0, elastic_premium=0.5
        )
    )
    assert out.saving_cny == pytest.approx(240_000 - 1.5 * 96_000)


def test_bad_mixed_plans_are_refused_with_messages():
    bad = sv.PlanPart(
        role="serving",
        label="S",
        vendor="v",
        compute_cny_month=1.0,
        first_month=5,
        last_month=2,
        bandwidth_mbps=1.0,
    )
    with pytest.raises(sv.ServingInputError) as exc:
        sv.mixed_plan(sv.MixedPlanInput(parts=(bad,), horizon_months=0, price_cny_mbps_month=-1))
    codes = {m.code for m in exc.value.messages}
    assert {"horizon_range", "bandwidth_price_negative", "serving_months"} <= codes


def test_figures_beyond_their_physical_bounds_are_problems_not_overflows() -> None:
    base = {"params_b": 7.0, "mean_rps": 20.0, "peak_rps": 60.0, "tokens_in": 800.0,
            "tokens_out": 300.0, "response_bytes": 150_000.0}  # fmt: skip
    assert sv.workload_problems(sv.InferenceWorkload(**base)) == []  # type: ignore[arg-type]
    at_bounds = {**base, "peak_rps": 1e6, "response_bytes": 1e8}
    assert sv.workload_problems(sv.InferenceWorkload(**at_bounds)) == []  # type: ignore[arg-type]
    huge = {**base, "peak_rps": 1e308, "response_bytes": 1e23}
    w = sv.InferenceWorkload(**huge)  # type: ignore[arg-type]
    codes = {m.code for m in sv.workload_problems(w)}
    assert codes == {"peak_rps_too_large", "response_bytes_too_large"}
    with pytest.raises(sv.ServingInputError):
        sv.rank_offers(w, [])
    with pytest.raises(sv.ServingInputError):
        sv.serving_traffic(w)
    endless = {**base, "tokens_per_s_per_replica": float("inf")}
    inf = sv.InferenceWorkload(**endless)  # type: ignore[arg-type]
    assert "tokens_per_s_per_replica_too_large" in {m.code for m in sv.workload_problems(inf)}
