"""Properties of the engine over generated delivery histories."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.delivery.engine import Incident, evaluate
from domain.delivery.terms import BandwidthClause
from domain.delivery.windows import Window
from tests.domain.delivery.conftest import kit, local, schedule, terms

NOW = local(2027, 1, 5)
HOURS = 24 * 45  # 1 November to mid-December, in hours

runs = st.lists(
    st.tuples(
        st.sampled_from(["gpu01", "gpu02"]),
        st.integers(0, HOURS - 1),  # start hour
        st.integers(1, 72),  # length in hours
        st.floats(0.0, 600.0),  # delivered Gbit/s
        st.booleans(),  # saturating
    ),
    max_size=12,
)


def build(spec: list[tuple[str, int, int, float, bool]]) -> list[Window]:
    windows: dict[tuple[str, object], Window] = {}
    for host, hour, length, gbps, saturating in spec:
        for w in kit(host, local(2026, 11, 1) + timedelta(hours=hour), length, gbps):
            windows[(host, w.start)] = replace(w, saturating=saturating)
    return list(windows.values())


common = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(
    spec=runs,
    cap=st.floats(0.0, 100.0),
    rate=st.floats(0.0, 50.0),
    outage_h=st.floats(0.0, 300.0),
)
def test_credits_never_exceed_the_cap(
    spec: list[tuple[str, int, int, float, bool]], cap: float, rate: float, outage_h: float
) -> None:
    t = terms(schedule=schedule(cap_pct=cap, bandwidth=BandwidthClause(0.9, 30, rate)))
    start = local(2026, 11, 20)
    incident = Incident(start=start, end=start + timedelta(hours=outage_h))
    report = evaluate(t, build(spec), [incident], now=NOW)
    for month in report.months:
        cap_amount = (month.fee_amount * Decimal(str(cap)) / 100).quantize(Decimal("0.01"))
        assert month.credits_pct <= cap + 1e-9
        assert month.credit_amount <= cap_amount
        assert month.claimable_amount <= month.credit_amount
        hours = month.compliant_h + month.breach_h + month.inconclusive_h + month.no_data_h
        assert abs(hours - month.scheduled_h) < 1e-6


@common
@given(spec=runs, factor=st.floats(1.0, 5.0))
def test_scaling_delivery_up_never_adds_a_breach(
    spec: list[tuple[str, int, int, float, bool]], factor: float
) -> None:
    t = terms()
    base = evaluate(t, build(spec), [], now=NOW)
    scaled_spec = [(h, s, n, g * factor, sat) for h, s, n, g, sat in spec]
    scaled = evaluate(t, build(scaled_spec), [], now=NOW)
    assert scaled.breaches <= base.breaches
    assert scaled.credit_amount <= base.credit_amount
    for before, after in zip(base.months, scaled.months, strict=True):
        assert after.breach_h <= before.breach_h + 1e-9


def test_the_builders_are_the_ones_the_other_tests_use(mk: SimpleNamespace) -> None:
    assert mk.terms() == terms()
