"""Hand-worked figures of COST-MODEL.md steps 1-8, bandwidth bases, racks, pricing and currency."""

from __future__ import annotations

import dataclasses
import math

import pytest

from domain.costmodel import (
    HOURS_PER_MONTH,
    ModelInputError,
    Offer,
    Workload,
    default_gpus,
    evaluate,
    rank,
)

GPUS = default_gpus()

WORKLOAD = Workload(params_b=10, tokens_per_step=1_000_000, train_tokens=1e12)
OFFER = Offer(
    id="hand",
    gpu="A100-SXM4-80GB",
    gpus_per_node=8,
    nodes=4,
    price_per_node_month=73_000.0,
    monthly_fees=7_300.0,
    nic_gbps=25.0,
    fabric="tcp",
)


def offer(**changes: object) -> Offer:
    return dataclasses.replace(OFFER, **changes)  # type: ignore[arg-type]


def test_every_output_field_of_one_offer_by_hand() -> None:
    r = evaluate(WORKLOAD, OFFER, GPUS)
    # 1. t_c = 6 * 1e10 * 1e6 / (4 * 8 * 312e12 * 0.50) = 6e16 / 4.992e15
    assert r.compute_time_s == pytest.approx(12.019230769, rel=1e-9)
    # 2. V = 1.0 * 2 * 3/4 * 1e10 * 2 bytes
    assert r.volume_bytes == pytest.approx(3.0e10)
    # 3. nominal 25 Gbit/s over TCP at 0.55
    assert r.bandwidth_gbps == pytest.approx(13.75)
    assert r.bandwidth_basis == "nominal"
    assert r.oversubscription == 1.0
    # 4. t_x = 8 * 3e10 / 13.75e9; exposed = t_x - 0.5 * t_c
    assert r.comm_time_s == pytest.approx(17.454545454, rel=1e-9)
    assert r.exposed_comm_s == pytest.approx(17.454545454 - 6.009615385, rel=1e-9)
    # 5. step and U
    assert r.step_time_s == pytest.approx(12.019230769 + 11.444930070, rel=1e-9)
    assert r.utilisation == pytest.approx(12.019230769 / 23.464160839, rel=1e-9)
    # 6. E = 32 * (312 * 0.50) / (989 * 0.45) * U * 0.99
    assert r.eth_per_hour == pytest.approx(32 * 156 / 445.05 * r.utilisation * 0.99, rel=1e-12)
    # 7. C = (4 * 73,000 + 7,300) / 730 = 410 per hour
    assert r.hourly_cost == pytest.approx(410.0)
    # 8. cost per ETH, job time and cost
    assert r.cost_per_eth == pytest.approx(410.0 / r.eth_per_hour, rel=1e-12)
    assert r.cost_per_eth_low == r.cost_per_eth_high == r.cost_per_eth
    assert r.job_hours == pytest.approx(1e12 * 23.464160839 / 1e6 / 0.99 / 3600, rel=1e-9)
    assert r.job_cost == pytest.approx(410.0 * r.job_hours, rel=1e-12)
    # batch needed to hide comm: t_x * F * m / (overlap * k * P) tokens per GPU per step
    assert r.tokens_per_gpu_to_hide_comm == pytest.approx(17.454545454 * 156e12 / 3e10, rel=1e-9)
    assert (r.rank, r.offer_id, r.currency, r.nodes_used) == (1, "hand", "CNY", 4)
    assert [m.code for m in r.warnings] == ["bandwidth_below_tier", "bandwidth_unverified"]


def test_batch_to_hide_comm_is_where_comm_just_hides() -> None:
    r = evaluate(WORKLOAD, OFFER, GPUS)
    tokens = r.tokens_per_gpu_to_hide_comm * OFFER.nodes * OFFER.gpus_per_node
    at = evaluate(dataclasses.replace(WORKLOAD, tokens_per_step=tokens), OFFER, GPUS)
    assert at.comm_time_s == pytest.approx(WORKLOAD.overlap * at.compute_time_s, rel=1e-9)
    bigger = evaluate(dataclasses.replace(WORKLOAD, tokens_per_step=tokens * 1.01), OFFER, GPUS)
    assert bigger.utilisation == 1.0
    assert evaluate(WORKLOAD, offer(nodes=1), GPUS).tokens_per_gpu_to_hide_comm == 0.0
    never = evaluate(dataclasses.replace(WORKLOAD, overlap=0.0), OFFER, GPUS)
    assert math.isinf(never.tokens_per_gpu_to_hide_comm)


def test_measured_link_and_collective_bandwidth() -> None:
    link = evaluate(WORKLOAD, offer(measured_gbps=20.0), GPUS)
    assert link.bandwidth_basis == "measured"
    assert link.bandwidth_gbps == pytest.approx(20.0 * 0.55)
    assert "bandwidth_unverified" not in {m.code for m in link.warnings}
    collective = evaluate(WORKLOAD, offer(measured_gbps=20.0, measured_kind="collective"), GPUS)
    assert collective.bandwidth_gbps == pytest.approx(20.0)
    roce = evaluate(WORKLOAD, offer(fabric="roce", measured_gbps=20.0, pfc=True, ecn=True), GPUS)
    assert roce.bandwidth_gbps == pytest.approx(18.0)
    assert collective.cost_per_eth < link.cost_per_eth


def test_measured_spread_gives_a_cost_range() -> None:
    r = evaluate(WORKLOAD, offer(measured_gbps=20.0, measured_p50_gbps=24.0), GPUS)
    assert r.cost_per_eth_high == r.cost_per_eth
    assert r.cost_per_eth_low < r.cost_per_eth
    at_p50 = evaluate(WORKLOAD, offer(measured_gbps=24.0), GPUS)
    assert r.cost_per_eth_low == pytest.approx(at_p50.cost_per_eth, rel=1e-12)


def test_oversubscription_only_when_the_job_spans_racks() -> None:
    # 4 servers x 25G share a 50G uplink: factor 50 / (4 * 25) = 0.5 once the job leaves the rack.
    racked: dict[str, object] = {"rack_uplink_gbps": 50.0, "servers_per_rack": 4}
    inside = evaluate(WORKLOAD, offer(**racked), GPUS)
    assert inside.oversubscription == 1.0
    assert inside.bandwidth_gbps == pytest.approx(13.75)
    across = evaluate(WORKLOAD, offer(nodes=8, **racked), GPUS)
    assert across.oversubscription == pytest.approx(0.5)
    assert across.bandwidth_gbps == pytest.approx(13.75 * 0.5)
    assert "rack_oversubscribed" in {m.code for m in across.warnings}
    enough = evaluate(WORKLOAD, offer(nodes=8, rack_uplink_gbps=400.0, servers_per_rack=4), GPUS)
    assert enough.oversubscription == 1.0
    assert "rack_oversubscribed" not in {m.code for m in enough.warnings}
    # Accepted evidence already shows what the links reach: the nominal rack maths stays out.
    measured = evaluate(WORKLOAD, offer(nodes=8, measured_gbps=10.0, **racked), GPUS)
    assert measured.bandwidth_gbps == pytest.approx(10.0 * 0.55)


def test_workload_nodes_and_whole_offer_pricing() -> None:
    part = dataclasses.replace(WORKLOAD, nodes=2)
    r = evaluate(part, offer(nodes=8), GPUS)
    assert r.nodes_used == 2
    assert r.hourly_cost == pytest.approx((2 * 73_000 + 7_300) / HOURS_PER_MONTH)
    whole = evaluate(part, offer(nodes=8, whole_offer_only=True), GPUS)
    assert whole.nodes_used == 2
    assert whole.hourly_cost == pytest.approx((8 * 73_000 + 7_300) / HOURS_PER_MONTH)
    assert whole.cost_per_eth == pytest.approx(r.cost_per_eth * whole.hourly_cost / r.hourly_cost)
    assert whole.step_time_s == r.step_time_s


def test_bandwidth_tiers_follow_the_node_count() -> None:
    def codes(nodes: int, nic: float, **changes: object) -> set[str]:
        result = evaluate(dataclasses.replace(WORKLOAD, nodes=nodes), offer(nodes=64, nic_gbps=nic,
                          **changes), GPUS)  # fmt: skip
        return {m.code for m in result.warnings}

    assert "bandwidth_inference_only" in codes(2, 10.0)
    assert "bandwidth_below_tier" in codes(2, 25.0)  # 8-GPU A100 servers want 50G and up
    assert "bandwidth_below_tier" not in codes(2, 25.0, gpu="RTX4090")  # 2-8 servers: 25G
    assert "bandwidth_below_tier" in codes(16, 25.0, gpu="RTX4090")  # 10-32 servers: 50G
    assert "bandwidth_below_tier" not in codes(16, 50.0)
    assert "bandwidth_below_tier" in codes(40, 50.0)  # over 32 servers: 100G
    assert "bandwidth_below_tier" not in codes(40, 100.0, nics_per_node=2)


def test_roce_lossless_warnings_and_vendor_flags() -> None:
    from domain.messages import Message

    flag = Message("licence_icp_only", "Only an ICP filing, no IDC licence.", "仅有 ICP 备案。")
    roce: dict[str, object] = {"fabric": "roce", "nic_gbps": 100.0, "vendor_flags": (flag,)}
    assert "roce_lossless_unknown" in {
        m.code for m in evaluate(WORKLOAD, offer(**roce), GPUS).warnings
    }
    off = evaluate(WORKLOAD, offer(pfc=True, ecn=False, **roce), GPUS)
    assert {"roce_without_lossless", "licence_icp_only"} <= {m.code for m in off.warnings}
    on = evaluate(WORKLOAD, offer(pfc=True, ecn=True, measured_gbps=90.0, **roce), GPUS)
    assert on.warnings == (flag,)
    single = evaluate(WORKLOAD, offer(nodes=1, **roce), GPUS)
    assert single.warnings == (flag,)


def test_currency_conversion_and_missing_rate() -> None:
    usd = offer(id="usd", currency="USD", price_per_node_month=10_000.0, monthly_fees=1_000.0)
    alone = evaluate(WORKLOAD, usd, GPUS)
    assert alone.currency == "USD"
    assert alone.hourly_cost == pytest.approx(41_000 / 730)
    converted = evaluate(WORKLOAD, usd, GPUS, fx_to_cny={"USD": 7.2})
    assert converted.currency == "CNY"
    assert converted.hourly_cost == pytest.approx(41_000 * 7.2 / 730)
    outcome = rank(WORKLOAD, [OFFER, usd], GPUS, fx_to_cny={"USD": 7.2})
    assert [r.currency for r in outcome.results] == ["CNY", "CNY"]
    assert outcome.problems == ()
    missing = rank(WORKLOAD, [OFFER, usd], GPUS)
    assert [r.offer_id for r in missing.results] == ["hand"]
    assert [p.offer_id for p in missing.problems] == ["usd"]
    assert [m.code for m in missing.problems[0].messages] == ["offer_currency_no_fx_rate"]
    with pytest.raises(ModelInputError) as err:
        evaluate(WORKLOAD, usd, GPUS, fx_to_cny={"EUR": 7.8})
    assert [m.code for m in err.value.messages] == ["offer_currency_no_fx_rate"]
    same = rank(WORKLOAD, [usd, dataclasses.replace(usd, id="usd2")], GPUS)
    assert {r.currency for r in same.results} == {"USD"}


def test_ranking_order_is_by_cost_and_matches_job_cost_order() -> None:
    offers = [
        offer(id=f"o{i}", nic_gbps=nic, price_per_node_month=price)
        for i, (nic, price) in enumerate([(25, 70e3), (100, 90e3), (10, 50e3), (400, 150e3)])
    ]
    outcome = rank(WORKLOAD, offers, GPUS)
    assert [r.rank for r in outcome.results] == [1, 2, 3, 4]
    costs = [r.cost_per_eth for r in outcome.results]
    assert costs == sorted(costs)
    jobs = [r.job_cost for r in outcome.results]
    assert jobs == sorted(jobs)  # type: ignore[type-var]
    # job cost / cost per ETH = ETH the job needs = k*P*train_tokens / (3600 * F_ref * m_ref)
    needed = 6 * 1e10 * 1e12 / (3600 * 989e12 * 0.45)
    for r in outcome.results:
        assert r.job_cost / r.cost_per_eth == pytest.approx(needed, rel=1e-9)  # type: ignore[operator]


def test_ties_are_broken_by_offer_id_and_empty_input_ranks_nothing() -> None:
    twins = [offer(id="b"), offer(id="a"), offer(id="c")]
    assert [r.offer_id for r in rank(WORKLOAD, twins, GPUS).results] == ["a", "b", "c"]
    empty = rank(WORKLOAD, [], GPUS)
    assert empty.results == () and empty.problems == () and empty.winner is None


def test_rank_agrees_with_evaluate_for_each_offer() -> None:
    offers = [offer(id="x", nodes=8, rack_uplink_gbps=50.0, servers_per_rack=4),
              offer(id="y", measured_gbps=20.0, measured_p50_gbps=23.0, fabric="ib"),
              offer(id="z", nodes=1, gpu="H20")]  # fmt: skip
    for ranked in rank(WORKLOAD, offers, GPUS).results:
        alone = evaluate(WORKLOAD, next(o for o in offers if o.id == ranked.offer_id), GPUS)
        assert dataclasses.replace(alone, rank=ranked.rank) == ranked
