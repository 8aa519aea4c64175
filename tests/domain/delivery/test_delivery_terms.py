"""Contract terms: the schedule's checks and its stored JSON shape."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from domain.delivery.terms import (
    AvailabilityBand,
    BandwidthClause,
    Commitment,
    MaintenanceWindow,
    OverrunClause,
    ScheduleShapeError,
    schedule_from_dict,
    schedule_problems,
    schedule_to_dict,
    terms_problems,
)


def codes(messages: Any) -> set[str]:
    return {m.code for m in messages}


def test_a_sound_schedule_has_no_problems(mk: SimpleNamespace) -> None:
    assert schedule_problems(mk.schedule()) == []
    assert terms_problems(mk.terms()) == []


def test_bands_with_the_same_threshold_overlap(mk: SimpleNamespace) -> None:
    bands = (AvailabilityBand(99.9, 10), AvailabilityBand(99.9, 25))
    problems = schedule_problems(mk.schedule(availability_bands=bands))
    assert codes(problems) == {"bands_overlap"}
    assert all(m.en and m.zh and m.en != m.zh for m in problems)


def test_bands_must_go_from_high_to_low_and_pay_more_when_lower(mk: SimpleNamespace) -> None:
    unordered = (AvailabilityBand(99.0, 25), AvailabilityBand(99.9, 10))
    assert codes(schedule_problems(mk.schedule(availability_bands=unordered))) == {
        "bands_unordered"
    }
    decreasing = (AvailabilityBand(99.9, 25), AvailabilityBand(99.0, 10))
    assert codes(schedule_problems(mk.schedule(availability_bands=decreasing))) == {
        "bands_credit_decreasing"
    }


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"cap_pct": -1.0}, "cap_out_of_range"),
        ({"cap_pct": 100.5}, "cap_out_of_range"),
        ({"cap_pct": float("nan")}, "cap_out_of_range"),
        ({"claim_window_days": 0}, "claim_window_not_positive"),
        ({"claim_window_days": -3}, "claim_window_not_positive"),
        ({"bandwidth": BandwidthClause(0.0, 60, 1)}, "threshold_out_of_range"),
        ({"bandwidth": BandwidthClause(1.2, 60, 1)}, "threshold_out_of_range"),
        ({"bandwidth": BandwidthClause(0.9, -1, 1)}, "bandwidth_min_duration_negative"),
        ({"bandwidth": BandwidthClause(0.9, 60, 101)}, "bandwidth_rate_out_of_range"),
        (
            {"overruns": (OverrunClause("response", 1), OverrunClause("response", 2))},
            "overrun_duplicate",
        ),
        ({"availability_bands": (AvailabilityBand(120, 10),)}, "band_out_of_range"),
    ],
)
def test_each_bad_value_is_named(mk: SimpleNamespace, changes: dict[str, Any], code: str) -> None:
    assert code in codes(schedule_problems(mk.schedule(**changes)))


def test_a_threshold_of_exactly_one_is_allowed(mk: SimpleNamespace) -> None:
    assert schedule_problems(mk.schedule(bandwidth=BandwidthClause(1.0, 0, 1))) == []


def test_terms_catch_what_the_schedule_alone_cannot(mk: SimpleNamespace) -> None:
    no_bw = mk.terms(
        commitment=Commitment(availability_pct=99.9, response_minutes=30, repair_hours=4)
    )
    assert "clause_without_commitment" in codes(terms_problems(no_bw))
    low = mk.terms(commitment=replace(mk.terms().commitment, availability_pct=99.5))
    assert "band_above_commitment" in codes(terms_problems(low))
    backwards = mk.terms(term_end=mk.local(2026, 10, 1))
    assert "term_not_positive" in codes(terms_problems(backwards))
    naive = mk.terms(
        maintenance=(
            MaintenanceWindow(mk.local(2026, 11, 2).replace(tzinfo=None), mk.local(2026, 11, 3)),
        )
    )
    assert "naive_datetime" in codes(terms_problems(naive))
    assert "hosts_invalid" in codes(terms_problems(mk.terms(hosts=("a", "a"))))
    assert "fee_negative" in codes(terms_problems(mk.terms(monthly_fee=Decimal("-1"))))
    assert "tz_unknown" in codes(terms_problems(mk.terms(tz="Mars/Olympus")))


def test_the_schedule_round_trips_through_json(mk: SimpleNamespace) -> None:
    schedule = mk.schedule()
    assert schedule_from_dict(json.loads(json.dumps(schedule_to_dict(schedule)))) == schedule
    bare = mk.schedule(bandwidth=None, overruns=(), availability_bands=())
    assert schedule_from_dict(schedule_to_dict(bare)) == bare


@pytest.mark.parametrize(
    "bad",
    [
        [],
        "schedule",
        {"availability_bands": {"below_pct": 99}},
        {"availability_bands": [{"below_pct": "99.9", "credit_pct": 10}]},
        {"availability_bands": [{"below_pct": True, "credit_pct": 10}]},
        {"bandwidth": [0.9, 60, 1]},
        {"bandwidth": {"threshold_fraction": 0.9, "min_duration_minutes": 60}},
        {"overruns": [{"kind": "reboot", "credit_pct_per_hour": 1}]},
        {"claim_window_days": 2.5},
        {"cap_pct": None},
        {"surprise": 1},
        {"cap_pct": -10},
        {
            "availability_bands": [
                {"below_pct": 99, "credit_pct": 5},
                {"below_pct": 99, "credit_pct": 9},
            ]
        },
    ],
)
def test_a_bad_stored_shape_is_refused_with_messages(bad: object) -> None:
    with pytest.raises(ScheduleShapeError) as caught:
        schedule_from_dict(bad)
    assert isinstance(caught.value, ValueError)
    assert caught.value.messages
    assert all(m.en and m.zh for m in caught.value.messages)
