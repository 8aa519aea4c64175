"""Large evidence: API uploads beyond the in-memory limit, long runs on the pages."""

import math

import numpy as np
import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkLog
from core.models import JobStatus

from .conftest import long_iperf3

pytestmark = pytest.mark.django_db


def test_an_api_upload_over_the_memory_limit_is_stored_and_parsed(
    api_as, analyst_a, run_a, settings, django_capture_on_commit_callbacks
):
    """Files over FILE_UPLOAD_MAX_MEMORY_SIZE are spooled to a temporary file, which the view
    must not deep-copy (it answered 500: cannot pickle '_io.BufferedRandom')."""
    body = long_iperf3(2500)
    assert len(body) > 3 * 1024 * 1024 > settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    api = api_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post(
            "/api/v1/benchmarks/",
            {"test_run": run_a.pk, "files": [SimpleUploadedFile("long.json", body)]},
        )
    assert resp.status_code == 201, resp.content[:500]
    log = BenchmarkLog.objects.get(pk=resp.json()["created"][0]["id"])
    assert log.size_bytes == len(body) and log.status == JobStatus.DONE
    assert log.tool == "iperf3" and len(log.result["interval_gbps"]) == 2500
    with log.file.open("rb") as stored:
        assert stored.read() == body


SECONDS, STREAMS = 86_400, 8  # a day-long `iperf3 -P 8` run: the 182 MB log of the issue


def _day_long_result() -> dict:  # type: ignore[type-arg]
    """A parsed day-long result (as ``parsing.result_json`` stores it) with one deep dip and one
    spike at known intervals and a gap (null intervals)."""
    streams = []
    for k in range(STREAMS):
        gbps = [3.0 + 0.01 * ((i * (k + 3)) % 97) for i in range(SECONDS)]
        streams.append({"label": f"stream {k + 1}", "gbps": gbps})
    total = [sum(s["gbps"][i] for s in streams) for i in range(SECONDS)]
    total[12_345], total[54_321] = 0.125, 99.5
    total[700:1000] = [None] * 300  # the log lost 300 s: a gap wider than a chart bucket
    return {
        "file": "day.json", "tool": "iperf3", "test": "tcp", "throughput_gbps": 24.0,
        "sender_gbps": 24.0, "retransmits": 0, "streams": STREAMS, "duration_s": float(SECONDS),
        "intervals": SECONDS, "interval_gbps": total, "cv": 0.01, "p5_gbps": 23.5,
        "lost_percent": None, "jitter_ms": None, "latency_us": None, "sizes": [],
        "link_type": None, "warnings": [], "error": None, "series": streams,
        "interval_start_s": [float(i) for i in range(SECONDS)],
        "interval_end_s": [float(i + 1) for i in range(SECONDS)],
        "direction": "forward", "measured_kind": "link", "fabric": None, "start_time_s": None,
        "truncated": False,
    }  # fmt: skip


@pytest.fixture
def day_log(run_a, analyst_a):  # type: ignore[no-untyped-def]
    from benchmarks.models import TestRun

    log = BenchmarkLog.objects.create(
        team=run_a.team, test_run=run_a, original_name="day.json", size_bytes=182 * 2**20,
        sha256="d" * 64, file="benchmarks/day.json", uploaded_by=analyst_a,
        status=JobStatus.DONE, progress=100, tool="iperf3", test_kind="tcp",
        throughput_gbps=24.0, result=_day_long_result(),
    )  # fmt: skip
    TestRun.objects.filter(pk=run_a.pk).update(status=JobStatus.DONE, progress=100, pairs=1)
    return log


def test_the_chart_keeps_each_series_short_with_its_minimum_and_maximum():  # type: ignore[no-untyped-def]
    from benchmarks.figures import MAX_POINTS_PER_SERIES, throughput_over_time

    data = _day_long_result()
    fig = throughput_over_time([("day.json", data)], line_rate_gbps=25.0)
    assert len(fig.data) == STREAMS + 1
    sources = [s["gbps"] for s in data["series"]] + [data["interval_gbps"]]
    for trace, source in zip(fig.data, sources, strict=True):
        assert 0 < len(trace.y) <= MAX_POINTS_PER_SERIES
        values = [v for v in source if v is not None]
        assert math.isclose(float(np.nanmin(trace.y)), min(values), rel_tol=1e-6)
        assert math.isclose(float(np.nanmax(trace.y)), max(values), rel_tol=1e-6)
        assert list(trace.x) == sorted(trace.x)  # still in time order
    total = fig.data[-1]
    assert float(total.x[int(np.nanargmin(total.y))]) == 12_346.0  # the dip, at its own time
    assert np.isnan(total.y).any()  # the lost intervals stay a gap
    assert "86,400" in fig.layout.title.text  # the chart says it is downsampled


def test_a_short_series_is_drawn_whole():  # type: ignore[no-untyped-def]
    from benchmarks.figures import downsample_minmax

    x, y = downsample_minmax([1.0, 2.0, 3.0], [5.0, None, 4.0], 2000)
    assert list(x) == [1.0, 2.0, 3.0] and y[0] == 5.0 and np.isnan(y[1]) and y[2] == 4.0


def test_the_run_and_log_pages_of_a_day_long_log_stay_small(client_as, analyst_a, day_log):  # type: ignore[no-untyped-def]
    from django.urls import reverse

    client = client_as(analyst_a)
    run_page = client.get(reverse("benchmarks:run", args=[day_log.test_run_id]))
    assert run_page.status_code == 200 and b"plotly" in run_page.content
    assert len(run_page.content) < 500_000, len(run_page.content)
    log_page = client.get(reverse("benchmarks:log", args=[day_log.pk]))
    assert log_page.status_code == 200 and b"86,400" in log_page.content
    assert len(log_page.content) < 500_000, len(log_page.content)
    table = log_page.context["intervals"]
    assert len(table.rows) == 200 and table.page.paginator.num_pages == 432
    assert table.streams == [f"stream {k + 1}" for k in range(STREAMS)]
    last = client.get(reverse("benchmarks:log", args=[day_log.pk]), {"page": 432})
    assert last.context["intervals"].rows[-1][0] == SECONDS
    assert len(last.content) < 500_000


@pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="only PostgreSQL cuts a page out of the stored JSON (benchmarks.selectors); "
    "elsewhere the page reads the whole result",
)
def test_with_a_page_summary_the_pages_never_read_the_whole_result(  # type: ignore[no-untyped-def]
    client_as, analyst_a, day_log
):
    """The summary (benchmarks/summary.py) holds what the pages show: the run and log pages read
    it, and the log page cuts its one page of intervals out of the stored JSON in the database."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from benchmarks.summary import page_summary

    client = client_as(analyst_a)
    before = client.get(reverse("benchmarks:log", args=[day_log.pk]), {"page": 62})
    summary = page_summary(day_log.result)
    assert summary is not None and "interval_gbps" not in summary and "series" not in summary
    assert summary["intervals"] == SECONDS and len(summary["table_streams"]) == STREAMS
    BenchmarkLog.objects.filter(pk=day_log.pk).update(summary=summary)
    from benchmarks.models import TestRun

    TestRun.objects.filter(pk=day_log.test_run_id).update(run_notes=[])  # as the summary writes

    def reads_result(queries) -> list[str]:  # type: ignore[no-untyped-def]
        return [q["sql"] for q in queries if '."result"' in q["sql"] or ' "result"' in q["sql"]]

    with CaptureQueriesContext(connection) as run_queries:
        run_page = client.get(reverse("benchmarks:run", args=[day_log.test_run_id]))
    assert run_page.status_code == 200 and b"plotly" in run_page.content
    assert b"86,400" in run_page.content  # the chart still says how many intervals it stands for
    assert reads_result(run_queries.captured_queries) == []
    with CaptureQueriesContext(connection) as log_queries:
        after = client.get(reverse("benchmarks:log", args=[day_log.pk]), {"page": 62})
    assert reads_result(log_queries.captured_queries) == []
    assert any("jsonb_path_query_array" in q["sql"] for q in log_queries.captured_queries)
    # The same page of the table as when the whole result was read.
    old, new = before.context["intervals"], after.context["intervals"]
    assert new.rows == old.rows and new.streams == old.streams
    assert new.page.paginator.num_pages == 432 and new.rows[0][0] == 61 * 200 + 1
    chart = [c for c in after.context["charts"] if "Throughput over time" in c][0]
    assert "86,400" in chart and len(after.content) < 500_000


def test_backfill_writes_the_summary_of_older_logs_and_the_notes_of_older_runs(day_log):  # type: ignore[no-untyped-def]
    from io import StringIO

    from django.core.management import call_command

    from benchmarks.models import TestRun
    from benchmarks.summary import page_summary

    TestRun.objects.filter(pk=day_log.test_run_id).update(summarised_at=day_log.uploaded_at)
    out = StringIO()
    call_command("backfill_page_summaries", stdout=out)
    assert "1 log summaries and 1 run notes written." in out.getvalue()
    day_log.refresh_from_db()
    assert day_log.summary == page_summary(day_log.result)
    assert TestRun.objects.get(pk=day_log.test_run_id).run_notes is not None
    again = StringIO()
    call_command("backfill_page_summaries", stdout=again)
    assert "0 log summaries and 0 run notes written." in again.getvalue()
