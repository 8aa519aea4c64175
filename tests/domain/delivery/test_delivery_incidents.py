"""Incidents imported from CSV, and the engine's reading of them."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from domain.delivery.engine import evaluate
from domain.delivery.incidents import IncidentFileError, parse_incidents_csv


def read(text: str):  # type: ignore[no-untyped-def]
    return parse_incidents_csv(
        io.BytesIO(text.encode()), hosts=("gpu01", "gpu02"), default_tz="Asia/Shanghai"
    )


def test_rows_are_read_in_the_contract_zone_when_naive() -> None:
    result = read(
        "reference,start,end,hosts,opened_at,responded_at,repaired_at\r\n"
        "INC-1,2026-11-15 02:00,2026-11-15 09:00,gpu01;gpu02,2026-11-15T02:10:00+08:00,"
        "2026-11-15T03:40:00+08:00,2026-11-15T08:10:00+08:00\r\n"
        "INC-2,2026-11-20T00:00:00Z,,gpu02.dc.example ghost,,,\r\n"
    )
    first, second = result.incidents
    assert first.start == datetime(2026, 11, 14, 18, tzinfo=UTC)
    assert first.hosts == ("gpu01", "gpu02") and first.reference == "INC-1"
    assert second.end is None and second.hosts == ("gpu02",)
    assert {n.code for n in result.notes} == {"naive_timestamps_local", "incident_unknown_hosts"}
    assert result.refused == ()


def test_contradictory_rows_are_refused_with_their_line() -> None:
    result = read(
        "start,end,opened_at,responded_at,hosts\n"
        "2026-11-15 09:00,2026-11-15 02:00,,,\n"
        "2026-11-15 02:00,2026-11-15 04:00,2026-11-15 02:30,2026-11-15 02:10,\n"
        "yesterday,,,,\n"
        ",2026-11-15 04:00,,,\n"
        "2026-11-15 02:00,2026-11-15 04:00,,,ghost\n"
        "2026-11-16 02:00,2026-11-16 04:00,,,\n"
    )
    assert len(result.incidents) == 1
    lines = [m.en.split(":")[0] for m in result.refused]
    assert lines == ["Line 2", "Line 3", "Line 4", "Line 5", "Line 6"]
    assert all(m.zh.startswith("第") for m in result.refused)


def test_a_file_without_a_start_column_is_refused() -> None:
    with pytest.raises(IncidentFileError) as caught:
        read("when,what\n1,2\n")
    assert caught.value.messages[0].code == "incidents_no_start_column"


def test_imported_incidents_drive_availability_and_overruns(mk: SimpleNamespace) -> None:
    result = read(
        "start,end,opened_at,responded_at,repaired_at,reference\n"
        "2026-11-15T02:00:00+08:00,2026-11-15T09:12:00+08:00,2026-11-15T02:00:00+08:00,"
        "2026-11-15T03:30:00+08:00,2026-11-15T09:00:00+08:00,INC-9\n"
    )
    report = evaluate(mk.terms(), [], list(result.incidents), now=mk.local(2026, 12, 1))
    nov = report.months[0]
    assert nov.downtime_h == pytest.approx(7.2)
    assert nov.availability_pct == pytest.approx(99.0)
    kinds = {c.clause: c.credit_pct for c in report.credits}
    # 99.0 % is not below the 99.0 band: the 99.9 band's 10 % applies; response 1 h over x 0.5 %;
    # repair 7 h, 3 h over x 1 %.
    assert kinds == {
        "availability": 10.0,
        "response": pytest.approx(0.5),
        "repair": pytest.approx(3.0),
    }
    assert report.episodes[0].end - report.episodes[0].start >= timedelta(hours=1)
