"""Doctored copies of the corpus' real 3.0.11 iperf3 log on a 10G TCP quote: intervals doubled
(summary left alone), summary doubled (intervals left alone), a start in 2031. None raises the
quote's measured figure: the quote keeps the real log's 0.93 Gbit/s; the log page shows the
start time formatted and the finding in both languages."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from benchmarks.models import BenchmarkLog
from tests.benchmarks.test_admission_pages import _upload
from tests.benchmarks.test_same_test_copies import REAL, _quote

pytestmark = pytest.mark.django_db


def _doc(**change: object) -> dict:  # type: ignore[type-arg]
    doc = json.loads(REAL.read_bytes())
    doc["start"]["cookie"] = str(change.get("cookie", doc["start"]["cookie"]))
    return doc


def _intervals_doubled() -> bytes:
    doc = _doc(cookie="intervals.doubled.000000000000000001")
    for interval in doc["intervals"]:
        for part in [interval["sum"], *interval["streams"]]:
            part["bytes"] *= 2
            part["bits_per_second"] *= 2
    return json.dumps(doc).encode()


def _summary_doubled() -> bytes:
    doc = _doc(cookie="summary.doubled.00000000000000000001")
    end = doc["end"]
    for part in [end["sum_sent"], end["sum_received"]] + [
        s[k] for s in end["streams"] for k in ("sender", "receiver")
    ]:
        part["bytes"] *= 2
        part["bits_per_second"] *= 2
    return json.dumps(doc).encode()


def _future() -> bytes:
    doc = _doc(cookie="future.start.0000000000000000000001")
    doc["start"]["timestamp"]["timesecs"] = int(datetime(2031, 6, 28, tzinfo=UTC).timestamp())
    for interval in doc["intervals"]:  # a different test: not a copy by its series either
        interval["sum"]["bytes"] += 8
        for stream in interval["streams"]:
            stream["bytes"] += 8
    return json.dumps(doc).encode()


def test_doctored_logs_never_raise_the_quote_figure(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    quote = _quote(team_a, analyst_a, "doctored")
    files = [
        ("real.json", REAL.read_bytes()),
        ("intervals_doubled.json", _intervals_doubled()),
        ("summary_doubled.json", _summary_doubled()),
        ("future.json", _future()),
    ]
    run = _upload(team_a, analyst_a, quote, files, django_capture_on_commit_callbacks)
    quote.refresh_from_db()
    assert quote.measured_typical_gbps is not None
    assert 0.9 < float(quote.measured_typical_gbps) < 0.95  # the real log alone, not 1.86
    logs = {log.original_name: log for log in BenchmarkLog.objects.filter(test_run=run)}
    for name in ("intervals_doubled.json", "summary_doubled.json", "future.json"):
        assert logs[name].integrity["status"] == "inconsistent", name
        assert not logs[name].admission["admitted"], name
    codes = {f["code"] for f in logs["future.json"].integrity["findings"]}
    assert "integrity.started_after_upload" in codes

    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("benchmarks:log", args=[logs["future.json"].pk])).content.decode()
    assert "2031-06-28 00:00:00 UTC" in page and "2031-06-28T00:00:00+00:00" not in page
    assert "after the log was uploaded" in page
