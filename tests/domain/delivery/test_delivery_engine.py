"""The delivery engine: bands, minimum duration, cap, maintenance, gaps, time zones, deadlines."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest

from domain.delivery.engine import Incident, evaluate, track_record
from domain.delivery.report import report_from_dict, report_to_dict
from domain.delivery.terms import BandwidthClause, LatencyClause, MaintenanceWindow


def month(report, label):  # type: ignore[no-untyped-def]
    return next(m for m in report.months if m.month == label)


def test_an_episode_one_minute_short_of_the_minimum_earns_nothing(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 10, 8)
    now = mk.local(2026, 11, 20)
    short = mk.kit("gpu01", start, 59 / 60, 100.0, step_s=60)
    report = evaluate(mk.terms(), short, [], now=now)
    (episode,) = report.episodes
    assert episode.kind == "bandwidth" and episode.duration_h == pytest.approx(59 / 60)
    assert not episode.credited and not episode.breach
    assert report.credits == () and report.breaches == 0
    assert "minimum of 60 minutes" in episode.sentence.en and "60 分钟" in episode.sentence.zh

    enough = mk.kit("gpu01", start, 1.0, 100.0, step_s=60)
    report = evaluate(mk.terms(), enough, [], now=now)
    (credit,) = report.credits
    # 1 % per shortfall-hour on one server's share (1 of 2) of a 100,000 fee.
    assert credit.credit_pct == pytest.approx(0.5)
    assert credit.credit_amount == Decimal("500.00")
    assert report.breaches == 1


def test_delivery_at_the_threshold_is_not_a_shortfall(mk: SimpleNamespace) -> None:
    at = mk.kit("gpu01", mk.local(2026, 11, 10), 5, 360.0)  # 0.9 x 400
    below = mk.kit("gpu02", mk.local(2026, 11, 10), 5, 359.9)
    report = evaluate(mk.terms(), at + below, [], now=mk.local(2026, 11, 20))
    assert [e.host for e in report.episodes] == ["gpu02"]
    assert report.episodes[0].duration_h == pytest.approx(5.0)
    assert report.credits[0].credit_amount == Decimal("2500.00")


def test_adjacent_windows_merge_and_a_gap_splits_episodes(mk: SimpleNamespace) -> None:
    clause = BandwidthClause(0.9, 150, 1.0)
    terms = mk.terms(schedule=mk.schedule(bandwidth=clause))
    first = mk.kit("gpu01", mk.local(2026, 11, 3, 0), 2, 100.0)
    second = mk.kit("gpu01", mk.local(2026, 11, 3, 3), 2, 100.0)  # one hour without data between
    report = evaluate(terms, first + second, [], now=mk.local(2026, 11, 20))
    assert [e.duration_h for e in report.episodes] == [2.0, 2.0]
    assert report.credits == ()  # neither reaches 150 minutes: no data does not bridge them
    joined = mk.kit("gpu01", mk.local(2026, 11, 3, 0), 4, 100.0)
    report = evaluate(terms, joined, [], now=mk.local(2026, 11, 20))
    assert [e.duration_h for e in report.episodes] == [4.0]
    assert report.credits[0].credit_pct == pytest.approx(2.0)


def test_a_shortfall_inside_a_maintenance_window_does_not_count(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 12, 1)
    maint = (MaintenanceWindow(start, start + timedelta(hours=3)),)
    windows = mk.kit("gpu01", start, 3, 10.0)
    report = evaluate(mk.terms(maintenance=maint), windows, [], now=mk.local(2026, 11, 20))
    assert report.episodes == () and report.credits == ()
    nov = month(report, "2026-11")
    assert nov.maintenance_h == pytest.approx(3.0)
    assert nov.breach_h == 0
    # Without the window, the same measurements are a 3-hour episode.
    report = evaluate(mk.terms(), windows, [], now=mk.local(2026, 11, 20))
    assert report.episodes[0].duration_h == pytest.approx(3.0)


def test_maintenance_in_the_middle_breaks_an_episode(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 12, 1)
    middle = (MaintenanceWindow(start + timedelta(hours=1), start + timedelta(hours=2)),)
    terms = mk.terms(schedule=mk.schedule(bandwidth=BandwidthClause(0.9, 90, 1.0)))
    windows = mk.kit("gpu01", start, 3, 10.0)
    report = evaluate(replace(terms, maintenance=middle), windows, [], now=mk.local(2026, 11, 20))
    assert [e.duration_h for e in report.episodes] == [1.0, 1.0]
    assert report.credits == ()


def test_hours_without_data_are_neither_compliance_nor_breach(mk: SimpleNamespace) -> None:
    met = mk.kit("gpu01", mk.local(2026, 11, 5), 10, 390.0) + mk.kit(
        "gpu02", mk.local(2026, 11, 5), 10, 390.0
    )
    low_traffic = mk.traffic("gpu01", mk.local(2026, 11, 6), 4, 20.0)  # idle job, not a proof
    report = evaluate(mk.terms(), met + low_traffic, [], now=mk.local(2026, 12, 1))
    nov = month(report, "2026-11")
    assert nov.scheduled_h == pytest.approx(720.0)
    assert nov.compliant_h == pytest.approx(10.0)
    assert nov.inconclusive_h == pytest.approx(2.0)  # 4 host-hours over 2 servers
    assert nov.breach_h == 0
    assert nov.no_data_h == pytest.approx(720.0 - 12.0)
    assert report.episodes == ()
    assert report.delivered_ratio == pytest.approx(390.0 / 400.0)
    assert report.measured_h == pytest.approx(20.0)


def test_a_kit_result_during_busy_links_is_not_a_shortfall(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 9, 10)
    kit = mk.kit("gpu01", start, 3, 120.0)  # the kit got what the job left over ...
    busy = mk.traffic("gpu01", start, 2, 380.0)  # ... while the counters carried 380 Gbit/s
    report = evaluate(mk.terms(), kit + busy, [], now=mk.local(2026, 11, 20))
    (episode,) = report.episodes  # only the third hour, where nothing proves the capacity
    assert episode.duration_h == pytest.approx(1.0)
    assert episode.start == start + timedelta(hours=2)
    nov = month(report, "2026-11")
    assert nov.compliant_h == pytest.approx(1.0) and nov.breach_h == pytest.approx(0.5)


def test_latency_only_contracts_count_latency_hours(mk: SimpleNamespace) -> None:
    from domain.delivery.terms import Commitment, Schedule

    terms = mk.terms(
        commitment=Commitment(p99_latency_us=5.0),
        schedule=Schedule(latency=LatencyClause(60, 1.0), cap_pct=50.0),
    )
    windows = mk.kit("gpu01", mk.local(2026, 11, 8), 4, 395.0, latency_us=3.0)
    windows += mk.kit("gpu01", mk.local(2026, 11, 8, 4), 2, 395.0, latency_us=8.0)
    report = evaluate(terms, windows, [], now=mk.local(2026, 11, 20))
    nov = month(report, "2026-11")
    assert nov.compliant_h == pytest.approx(2.0) and nov.breach_h == pytest.approx(1.0)
    assert [e.kind for e in report.episodes] == ["latency"]
    assert report.delivered_ratio is None  # no bandwidth committed: nothing to compare


def test_the_cap_limits_a_months_credits(mk: SimpleNamespace) -> None:
    windows = mk.kit("gpu01", mk.local(2026, 11, 2), 24 * 20, 50.0)
    windows += mk.kit("gpu02", mk.local(2026, 11, 2), 24 * 20, 50.0)
    report = evaluate(mk.terms(), windows, [], now=mk.local(2026, 12, 1))
    nov = month(report, "2026-11")
    assert nov.credits_pct_uncapped == pytest.approx(480.0)  # 2 x 480 h x 1 % / 2
    assert nov.credits_pct == pytest.approx(30.0) and nov.cap_applied
    assert nov.credit_amount == Decimal("30000.00")
    assert "capped at 30 %" in nov.sentence.en and "上限 30%" in nov.sentence.zh
    assert report.credit_amount == Decimal("30000.00")


def _outage(mk: SimpleNamespace, hours: float) -> Incident:
    start = mk.local(2026, 11, 15, 2)
    return Incident(start=start, end=start + timedelta(hours=hours), reference="INC-1")


@pytest.mark.parametrize(
    ("outage_h", "band_credit"),
    [
        (0.72, None),  # exactly 99.9 %: not below the first band
        (0.73, 10.0),
        (7.2, 10.0),  # exactly 99.0 %: still the first band only
        (7.3, 25.0),
        (40.0, 100.0),
    ],
)
def test_the_worst_availability_band_reached_applies(
    mk: SimpleNamespace, outage_h: float, band_credit: float | None
) -> None:
    terms = mk.terms(schedule=mk.schedule(cap_pct=100.0, overruns=()))
    report = evaluate(terms, [], [_outage(mk, outage_h)], now=mk.local(2026, 12, 1))
    nov = month(report, "2026-11")
    assert nov.availability_pct == pytest.approx(100 * (1 - outage_h / 720))
    credits = [c for c in report.credits if c.clause == "availability"]
    if band_credit is None:
        assert credits == []
    else:
        (credit,) = credits
        assert credit.credit_pct == band_credit
        assert credit.credit_amount == Decimal(100000) * Decimal(str(band_credit)) / 100


def test_an_outage_of_one_host_counts_for_its_share(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 15, 2)
    one = Incident(start=start, end=start + timedelta(hours=7.2), hosts=("gpu01",))
    report = evaluate(mk.terms(), [], [one], now=mk.local(2026, 12, 1))
    assert month(report, "2026-11").availability_pct == pytest.approx(99.5)


def test_outage_inside_maintenance_is_not_downtime(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 15, 2)
    maint = (MaintenanceWindow(start, start + timedelta(hours=4)),)
    outage = Incident(start=start, end=start + timedelta(hours=5))
    report = evaluate(mk.terms(maintenance=maint), [], [outage], now=mk.local(2026, 12, 1))
    nov = month(report, "2026-11")
    assert nov.downtime_h == pytest.approx(1.0)
    assert nov.scheduled_h == pytest.approx(716.0)
    assert nov.availability_pct == pytest.approx(100 * (1 - 1 / 716), abs=1e-6)


def test_response_and_repair_overruns_earn_per_hour(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 15, 2)
    incident = Incident(
        start=start,
        end=start + timedelta(hours=7),
        opened_at=start + timedelta(minutes=10),
        responded_at=start + timedelta(minutes=100),  # 90 min: 1 h beyond 30 min
        repaired_at=start + timedelta(hours=6, minutes=10),  # 6 h: 2 h beyond 4 h
        reference="INC-7",
    )
    terms = mk.terms(schedule=mk.schedule(availability_bands=()))
    report = evaluate(terms, [], [incident], now=mk.local(2026, 12, 1))
    by_kind = {c.clause: c for c in report.credits}
    assert by_kind["response"].credit_pct == pytest.approx(0.5)
    assert by_kind["repair"].credit_pct == pytest.approx(2.0)
    assert by_kind["repair"].credit_amount == Decimal("2000.00")
    repair = next(e for e in report.episodes if e.kind == "repair")
    assert repair.duration_h == pytest.approx(2.0)
    assert "INC-7" in repair.sentence.en and "INC-7" in repair.sentence.zh


def test_an_unanswered_ticket_overruns_until_now(mk: SimpleNamespace) -> None:
    start = mk.local(2026, 11, 30, 20)
    incident = Incident(start=start, end=None)
    report = evaluate(mk.terms(), [], [incident], now=start + timedelta(hours=2, minutes=30))
    response = next(e for e in report.episodes if e.kind == "response")
    assert response.duration_h == pytest.approx(2.0)
    assert "still open" in response.sentence.en


def test_a_month_boundary_is_in_the_contracts_time_zone(mk: SimpleNamespace) -> None:
    # 23:00 on 30 November to 02:00 on 1 December in Shanghai: all of it is 30 November in UTC.
    windows = mk.kit("gpu01", mk.local(2026, 11, 30, 23), 3, 100.0)
    report = evaluate(mk.terms(), windows, [], now=mk.local(2026, 12, 20))
    by_month = {c.month: c.credit_pct for c in report.credits}
    assert by_month == {"2026-11": pytest.approx(0.5), "2026-12": pytest.approx(1.0)}
    utc_terms = mk.terms(tz="UTC")
    report = evaluate(utc_terms, windows, [], now=mk.local(2026, 12, 20))
    assert {c.month for c in report.credits} == {"2026-11"}


def test_claim_deadlines_pass(mk: SimpleNamespace) -> None:
    windows = mk.kit("gpu01", mk.local(2026, 11, 3), 2, 100.0)
    end = mk.local(2026, 11, 3, 2)
    report = evaluate(mk.terms(), windows, [], now=mk.local(2026, 12, 2))
    (episode,) = report.episodes
    assert episode.claim_deadline == end + timedelta(days=30)
    assert not episode.claim_deadline_passed
    assert month(report, "2026-11").claimable_amount == Decimal("1000.00")
    later = evaluate(mk.terms(), windows, [], now=end + timedelta(days=30, seconds=1))
    assert later.episodes[0].claim_deadline_passed
    assert month(later, "2026-11").credit_amount == Decimal("1000.00")
    assert month(later, "2026-11").claimable_amount == Decimal("0")


def test_a_partial_month_has_a_prorated_fee(mk: SimpleNamespace) -> None:
    terms = mk.terms(term_start=mk.local(2026, 11, 16))
    report = evaluate(terms, [], [], now=mk.local(2026, 12, 20))
    assert month(report, "2026-11").fee_amount == Decimal("50000.00")
    assert month(report, "2026-11").scheduled_h == pytest.approx(360.0)
    assert [m.month for m in report.months] == ["2026-11", "2026-12"]
    assert month(report, "2026-12").scheduled_h == pytest.approx(19 * 24)  # up to now


def test_latency_above_the_commitment_is_an_episode(mk: SimpleNamespace) -> None:
    terms = mk.terms(
        commitment=replace(mk.terms().commitment, p99_latency_us=5.0),
        schedule=mk.schedule(latency=LatencyClause(60, 2.0)),
    )
    windows = mk.kit("gpu02", mk.local(2026, 11, 8), 3, 395.0, latency_us=9.0)
    report = evaluate(terms, windows, [], now=mk.local(2026, 11, 20))
    (episode,) = report.episodes
    assert episode.kind == "latency" and episode.worst == 9.0
    assert report.credits[0].credit_pct == pytest.approx(3.0)  # 2 % x 3 h / 2 servers


def test_bad_terms_are_refused(mk: SimpleNamespace) -> None:
    with pytest.raises(ValueError, match="cap"):
        evaluate(mk.terms(schedule=mk.schedule(cap_pct=-5)), [], [], now=mk.local(2026, 12, 1))


def test_a_report_survives_its_json_round_trip(mk: SimpleNamespace) -> None:
    windows = mk.kit("gpu01", mk.local(2026, 11, 30, 20), 8, 100.0)
    windows += mk.traffic("gpu02", mk.local(2026, 11, 30, 20), 8, 390.0)
    incident = Incident(start=mk.local(2026, 11, 15), end=mk.local(2026, 11, 15, 9), reference="X")
    report = evaluate(
        mk.terms(),
        windows + [replace(windows[0], host="stranger")],
        [incident],
        now=mk.local(2026, 12, 20),
    )
    assert report.notes and report.notes[0].code == "windows_unknown_hosts"
    stored = json.loads(json.dumps(report_to_dict(report)))
    assert report_from_dict(stored) == report
    with pytest.raises(ValueError):
        report_from_dict({"version": 99})


def test_the_track_record_weighs_measured_hours(mk: SimpleNamespace) -> None:
    now = mk.local(2026, 12, 1)
    good = evaluate(mk.terms(), mk.kit("gpu01", mk.local(2026, 11, 2), 30, 500.0), [], now=now)
    bad = evaluate(mk.terms(), mk.kit("gpu01", mk.local(2026, 11, 2), 10, 200.0), [], now=now)
    record = track_record([good, bad])
    # Over-delivery counts as 100 %: (30 x 1.0 + 10 x 0.5) / 40.
    assert record.delivered_ratio == pytest.approx(35 / 40)
    assert record.breaches == 1 and record.contracts == 2
    assert dict(record.credit_amounts)["CNY"] == Decimal("5000.00")
    assert track_record([]).delivered_ratio is None


def test_a_month_in_progress_earns_no_availability_credit_yet(mk: SimpleNamespace) -> None:
    """An outage that took most of a month so far reaches the worst band, but the month has
    not ended: no availability credit, and its sentence says the month is in progress."""
    terms = mk.terms(schedule=mk.schedule(cap_pct=100.0, overruns=()))
    start = mk.local(2026, 11, 2)
    outage = Incident(start=start, end=start + timedelta(days=3))
    during = evaluate(terms, [], [outage], now=mk.local(2026, 11, 6))
    nov = month(during, "2026-11")
    assert nov.in_progress and nov.availability_pct is not None and nov.availability_pct < 50
    assert [c for c in during.credits if c.clause == "availability"] == []
    assert nov.credit_amount == 0 and during.credit_amount == 0
    assert "month in progress" in nov.sentence.en and "本月尚未结束" in nov.sentence.zh
    # once the month has ended the same outage is credited (72 h of 720: the 25 % band and more)
    after = evaluate(terms, [], [outage], now=mk.local(2026, 12, 1))
    nov = month(after, "2026-11")
    assert not nov.in_progress and nov.credit_amount > 0
    assert "month in progress" not in nov.sentence.en
    assert report_from_dict(report_to_dict(after)).months[0].in_progress is False
    stored = report_to_dict(during)
    del stored["months"][0]["in_progress"]  # a report stored before the field reads False
    assert report_from_dict(stored).months[0].in_progress is False
