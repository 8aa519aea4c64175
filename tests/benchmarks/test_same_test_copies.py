"""A real iperf3 log and copies of it with only the cookie changed, uploaded as one run for a
10G TCP quote: one test, so the quote's measured figure is that test's 0.93 Gbit/s, never 12
tests summed and capped at the line rate (9.41); a re-saved (minified) copy with the same cookie
counts once; a cookie-changed copy on another quote is found re-used (same clock and series)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from benchmarks.models import BenchmarkLog
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor
from tests.benchmarks.test_admission_pages import _upload

pytestmark = pytest.mark.django_db
REAL = (
    Path(__file__).resolve().parents[1]
    / "domain/data/corpus/iperf3-json/iperf3-python_results_tcp_3.0.11.json"
)


def _quote(team, user, label: str) -> Quote:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team, f"10G vendor {label}", fabric="tcp", gbps=10)
    return make_quote(
        team, user, vendor, gpu=GpuModel.objects.get(key="H100-SXM"), nodes=4, label=label,
        nic_gbps=10.0, nics_per_node=1, fabric="tcp", price_per_node_month=Decimal("50000"),
    )  # fmt: skip


def _relabelled(k: int) -> bytes:
    doc = json.loads(REAL.read_bytes())
    doc["start"]["cookie"] = f"relabelled.{k:026d}"
    return json.dumps(doc, indent=4).encode()


def test_copies_of_one_test_do_not_raise_the_quote_figure(  # type: ignore[no-untyped-def]
    team_a, analyst_a, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    quote = _quote(team_a, analyst_a, "copies")
    files = [(f"copy_{k:02d}.json", _relabelled(k)) for k in range(12)]
    minified = json.dumps(json.loads(REAL.read_bytes()), separators=(",", ":")).encode()
    files += [("real.json", REAL.read_bytes()), ("real_minified.json", minified)]
    run = _upload(team_a, analyst_a, quote, files, capture)
    quote.refresh_from_db()
    assert quote.measured_typical_gbps is not None
    assert 0.9 < float(quote.measured_typical_gbps) < 0.95  # one test, not 11.1 capped to 9.41
    admitted = [
        log.original_name
        for log in BenchmarkLog.objects.filter(test_run=run).order_by("pk")
        if log.admission["admitted"]
    ]
    assert admitted == ["copy_00.json"]

    other = _quote(team_a, analyst_a, "elsewhere")
    elsewhere = _upload(team_a, analyst_a, other, [("copy_99.json", _relabelled(99))], capture)
    log = BenchmarkLog.objects.get(test_run=elsewhere)
    assert log.integrity["reused"], "a cookie-changed copy of another quote's test is re-used"
    other.refresh_from_db()
    assert other.measured_typical_gbps is None
