"""Properties over generated workloads and offers (hypothesis)."""

from __future__ import annotations

import dataclasses
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.costmodel import (
    FABRIC_EFFICIENCY,
    Offer,
    Workload,
    default_gpus,
    evaluate,
    offer_problems,
    rank,
)

GPUS = default_gpus()
SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)

workloads = st.builds(
    Workload,
    params_b=st.floats(0.1, 1000),
    tokens_per_step=st.floats(1e4, 1e8),
    flops_per_token_factor=st.sampled_from([6.0, 8.0]),
    grad_bytes=st.sampled_from([2.0, 4.0]),
    strategy=st.sampled_from(["ddp", "zero1", "zero2", "fsdp", "zero3"]),
    overlap=st.floats(0.0, 1.0),
    mfu=st.one_of(st.none(), st.floats(0.05, 1.0)),
    train_tokens=st.one_of(st.none(), st.floats(1e9, 1e13)),
)


@st.composite
def offers(draw: st.DrawFn, offer_id: str = "o") -> Offer:
    measured = draw(st.one_of(st.none(), st.floats(1.0, 800.0)))
    return Offer(
        id=offer_id,
        gpu=draw(st.sampled_from(sorted(GPUS))),
        gpus_per_node=draw(st.sampled_from([1, 2, 4, 8])),
        nodes=draw(st.integers(1, 128)),
        price_per_node_month=draw(st.floats(100.0, 1e6)),
        monthly_fees=draw(st.floats(0.0, 1e5)),
        nic_gbps=draw(st.floats(1.0, 800.0)),
        nics_per_node=draw(st.integers(1, 8)),
        fabric=draw(st.sampled_from(sorted(FABRIC_EFFICIENCY))),
        rack_uplink_gbps=draw(st.one_of(st.none(), st.floats(10.0, 6400.0))),
        servers_per_rack=draw(st.one_of(st.none(), st.integers(1, 16))),
        measured_gbps=measured,
        measured_kind=draw(st.sampled_from(["link", "collective"])),
        measured_p50_gbps=None if measured is None else measured * draw(st.floats(1.0, 2.0)),
        availability=draw(st.floats(0.5, 1.0)),
        whole_offer_only=draw(st.booleans()),
        pfc=draw(st.one_of(st.none(), st.booleans())),
        ecn=draw(st.one_of(st.none(), st.booleans())),
    )


@SETTINGS
@given(workloads, offers())
def test_costs_are_positive_and_u_in_zero_one(workload: Workload, offer: Offer) -> None:
    r = evaluate(workload, offer, GPUS)
    assert 0.0 < r.utilisation <= 1.0
    assert r.cost_per_eth > 0 and r.hourly_cost > 0 and r.eth_per_hour > 0
    assert 0 < r.cost_per_eth_low <= r.cost_per_eth == r.cost_per_eth_high
    assert r.step_time_s == r.compute_time_s + r.exposed_comm_s
    assert 0.0 <= r.exposed_comm_s <= r.comm_time_s
    assert (r.job_hours is None) == (workload.train_tokens is None)
    if r.job_cost is not None:
        assert r.job_cost > 0
    assert 0.0 < r.oversubscription <= 1.0
    assert r.tokens_per_gpu_to_hide_comm >= 0 and not math.isnan(r.tokens_per_gpu_to_hide_comm)


@SETTINGS
@given(workloads, offers(), st.floats(1.0, 10.0))
def test_more_bandwidth_never_raises_cost_per_eth(
    workload: Workload, offer: Offer, f: float
) -> None:
    base = evaluate(workload, offer, GPUS)
    faster_port = evaluate(workload, dataclasses.replace(offer, nic_gbps=offer.nic_gbps * f), GPUS)
    assert faster_port.cost_per_eth <= base.cost_per_eth * (1 + 1e-12)
    if offer.measured_gbps is not None:
        more = dataclasses.replace(offer, measured_gbps=offer.measured_gbps * f,
                                   measured_p50_gbps=None)  # fmt: skip
        assert evaluate(workload, more, GPUS).cost_per_eth <= base.cost_per_eth * (1 + 1e-12)


@SETTINGS
@given(workloads, offers())
def test_fsdp_never_raises_utilisation(workload: Workload, offer: Offer) -> None:
    ddp = evaluate(dataclasses.replace(workload, strategy="ddp"), offer, GPUS)
    fsdp = evaluate(dataclasses.replace(workload, strategy="fsdp"), offer, GPUS)
    assert fsdp.utilisation <= ddp.utilisation
    assert fsdp.volume_bytes == 0.0 or abs(fsdp.volume_bytes / ddp.volume_bytes - 1.5) < 1e-12


@SETTINGS
@given(workloads, st.lists(offers(), min_size=1, max_size=12))
def test_ranking_is_sorted_and_equals_one_by_one(workload: Workload, drawn: list[Offer]) -> None:
    unique = [dataclasses.replace(o, id=f"o{i}") for i, o in enumerate(drawn)]
    outcome = rank(workload, unique, GPUS)
    assert outcome.problems == ()
    assert [r.rank for r in outcome.results] == list(range(1, len(unique) + 1))
    costs = [r.cost_per_eth for r in outcome.results]
    assert costs == sorted(costs)
    by_id = {o.id: o for o in unique}
    for r in outcome.results:
        assert dataclasses.replace(evaluate(workload, by_id[r.offer_id], GPUS), rank=r.rank) == r


odd_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-3, 3),
    st.none(),
    st.booleans(),
    st.sampled_from(["8", b"8"]),
)


@SETTINGS
@given(workloads, offers(), st.dictionaries(
    st.sampled_from(["gpus_per_node", "nodes", "nics_per_node", "servers_per_rack",
                     "price_per_node_month", "monthly_fees", "nic_gbps", "rack_uplink_gbps",
                     "measured_gbps", "measured_p50_gbps", "availability"]),
    odd_numbers, max_size=3))  # fmt: skip
def test_column_screen_agrees_with_per_offer_checks(
    workload: Workload, offer: Offer, changes: dict[str, object]
) -> None:
    odd = dataclasses.replace(offer, **changes)  # type: ignore[arg-type]
    outcome = rank(workload, [odd], GPUS)
    expected = offer_problems(odd, workload, GPUS)
    if expected:
        assert outcome.results == ()
        assert list(outcome.problems[0].messages) == expected
    else:
        assert outcome.problems == () and len(outcome.results) == 1
