"""Public-bandwidth bills against hand-worked months (DOMAIN.md §6)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.billing import (
    BillingError,
    FixedPlan,
    Percentile95Plan,
    PerGbPlan,
    TrafficProfile,
    cheapest,
    monthly_cost,
)

MONTH = 8_640  # 30 days of 5-minute samples


def test_95th_percentile_drops_exactly_the_top_432_of_8640_samples() -> None:
    # 432 samples are 5% of 8,640: all of them at 1,000 Mbps are dropped, 100 Mbps is billed.
    dropped = TrafficProfile.from_samples([100.0] * 8_208 + [1_000.0] * 432)
    bill = monthly_cost(Percentile95Plan(price_per_mbps_month=20.0), dropped)
    assert (bill.plan_kind, bill.billed_mbps, bill.cost) == ("percentile95", 100.0, 2_000.0)
    assert bill.carries_peak and bill.warnings == ()
    # One more busy sample than can be dropped: the month is billed at 1,000 Mbps.
    kept = TrafficProfile.from_samples([100.0] * 8_207 + [1_000.0] * 433)
    assert monthly_cost(Percentile95Plan(20.0), kept).billed_mbps == 1_000.0


def test_95th_percentile_ignores_sample_order_and_honours_the_commitment() -> None:
    mixed = [1_000.0 if i % 20 == 0 else 100.0 for i in range(MONTH)]  # 432 peaks spread out
    profile = TrafficProfile.from_samples(mixed)
    assert profile.percentile95_mbps() == 100.0
    committed = monthly_cost(Percentile95Plan(20.0, commit_mbps=300.0), profile)
    assert (committed.billed_mbps, committed.cost) == (300.0, 6_000.0)
    assert [m.code for m in committed.warnings] == ["commit_above_usage"]
    hourly = TrafficProfile.from_samples([100.0] * 720, interval_s=3600)
    assert [m.code for m in monthly_cost(Percentile95Plan(1.0), hourly).warnings] == [
        "samples_not_five_minute"
    ]


def test_monthly_gb_and_per_gb_plan() -> None:
    # 100 Mbit/s for 30 days = 100 * 2,592,000 s / 8,000 = 32,400 GB.
    flat = TrafficProfile.from_samples([100.0] * MONTH)
    assert flat.monthly_gb == pytest.approx(32_400.0)
    bill = monthly_cost(PerGbPlan(price_per_gb=0.5, included_gb=400.0), flat)
    assert (bill.plan_kind, bill.billed_gb, bill.billed_mbps) == ("per_gb", 32_000.0, None)
    assert bill.cost == pytest.approx(16_000.0)
    assert bill.carries_peak
    small = monthly_cost(PerGbPlan(0.5, included_gb=1e6), flat)
    assert (small.billed_gb, small.cost) == (0.0, 0.0)


def test_fixed_plan_flags_traffic_above_its_capacity() -> None:
    profile = TrafficProfile.from_samples([100.0] * 8_600 + [800.0] * 40)
    within = monthly_cost(FixedPlan(mbps=1_000.0, price_month=9_000.0), profile)
    assert (within.cost, within.billed_mbps, within.carries_peak, within.warnings) == (
        9_000.0, 1_000.0, True, ())  # fmt: skip
    short = monthly_cost(FixedPlan(mbps=500.0, price_month=4_500.0), profile)
    assert not short.carries_peak
    (warning,) = short.warnings
    assert warning.code == "fixed_plan_peak_not_carried"
    # 40 samples of 300 Mbit/s too much for 300 s each: 40 * 300 * 300 / 8,000 = 450 GB.
    assert "40 samples" in warning.en and "450.0 GB" in warning.en and "450.0 GB" in warning.zh


def test_cheapest_prefers_plans_that_carry_the_peak() -> None:
    profile = TrafficProfile.from_samples([100.0] * 8_600 + [800.0] * 40)
    plans = [FixedPlan(500.0, 1_000.0), PerGbPlan(0.5), Percentile95Plan(30.0)]
    best = cheapest(plans, profile)
    assert best.plan == Percentile95Plan(30.0)  # 100 Mbps * 30 = 3,000 beats 33,300 GB * 0.5
    assert best.cost == 3_000.0
    only_short = cheapest([FixedPlan(500.0, 1_000.0), FixedPlan(200.0, 500.0)], profile)
    assert only_short.cost == 500.0 and not only_short.carries_peak
    with pytest.raises(BillingError) as err:
        cheapest([], profile)
    assert err.value.message.code == "billing_no_plans"


def test_simple_profile_expansion() -> None:
    # 30 days x 288 samples: each day 12 samples (1 h) at 1,000, the other 276 at a base level
    # making the mean 200: base = (200 * 288 - 1,000 * 12) / 276.
    profile = TrafficProfile.simple(mean_mbps=200.0, peak_mbps=1_000.0, hours_at_peak_per_day=1)
    assert len(profile.samples_mbps) == MONTH
    assert profile.samples_mbps.count(1_000.0) == 360
    assert sum(profile.samples_mbps) / MONTH == pytest.approx(200.0)
    base = (200 * 288 - 1_000 * 12) / 276
    assert profile.percentile95_mbps() == pytest.approx(base)  # 360 peak samples <= 432 dropped
    two_hours = TrafficProfile.simple(200.0, 1_000.0, 2)  # 720 peak samples > 432
    assert two_hours.percentile95_mbps() == 1_000.0
    steady = TrafficProfile.simple(300.0, 300.0, 24)
    assert set(steady.samples_mbps) == {300.0}
    assert set(TrafficProfile.simple(50.0, 80.0, 0).samples_mbps) == {50.0}


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((500.0, 100.0, 1.0), "billing_peak_below_mean"),
        ((10.0, 1_000.0, 12.0), "billing_mean_too_low"),
        ((100.0, 200.0, 24.0), "billing_peak_below_mean"),
        ((-1.0, 200.0, 1.0), "billing_mean_mbps_invalid"),
        ((1.0, 2.0, -1.0), "billing_hours_at_peak_per_day_invalid"),
    ],
)
def test_simple_profile_rejects_impossible_shapes(
    args: tuple[float, float, float], code: str
) -> None:
    with pytest.raises(BillingError) as err:
        TrafficProfile.simple(*args)
    assert err.value.message.code == code
    assert err.value.message.zh


@pytest.mark.parametrize(
    ("plan", "code"),
    [
        (FixedPlan(0.0, 100.0), "billing_mbps_invalid"),
        (FixedPlan(100.0, -1.0), "billing_price_month_invalid"),
        (PerGbPlan(-0.1), "billing_price_per_gb_invalid"),
        (Percentile95Plan(10.0, commit_mbps=-5.0), "billing_commit_mbps_invalid"),
    ],
)
def test_impossible_plans_are_errors(plan: object, code: str) -> None:
    with pytest.raises(BillingError) as err:
        monthly_cost(plan, TrafficProfile.from_samples([1.0]))  # type: ignore[arg-type]
    assert err.value.message.code == code


def test_bad_profiles_are_errors() -> None:
    for samples, code in (([], "billing_no_samples"), ([1.0, -2.0], "billing_bad_samples")):
        with pytest.raises(BillingError) as err:
            TrafficProfile.from_samples(samples)
        assert err.value.message.code == code
    with pytest.raises(BillingError):
        TrafficProfile.from_samples([1.0], interval_s=0)


@settings(max_examples=100, deadline=None, database=None)
@given(st.lists(st.floats(0.0, 1e5), min_size=1, max_size=3_000))
def test_95th_percentile_is_a_sample_with_at_most_5_percent_above(samples: list[float]) -> None:
    profile = TrafficProfile.from_samples(samples)
    p95 = profile.percentile95_mbps()
    assert p95 in samples
    assert sum(s > p95 for s in samples) <= len(samples) * 5 // 100
    assert sum(s >= p95 for s in samples) > len(samples) * 5 // 100
