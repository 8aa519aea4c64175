"""GET /api/v1/benchmarks/{id}/ answers the parsed log as a summary (every figure, no
per-interval arrays: a day-long log's were 9.5 MB of JSON); the intervals are paged by
/api/v1/benchmarks/{id}/intervals/, read a page at a time."""

from __future__ import annotations

import json

import pytest

import benchmarks.selectors
from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest

from .conftest import upload

pytestmark = pytest.mark.django_db

P4 = "iperf3-json/local_3.12_tcp_P4.json"


@pytest.fixture
def log_a(run_a, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=True):
        log = benchmark_ingest(
            team=run_a.team, user=analyst_a, test_run=run_a, upload=upload(P4)
        ).created[0]
    log.refresh_from_db()
    assert log.status == "done" and len(log.result["interval_gbps"]) >= 3
    return log


def test_the_detail_is_a_summary_without_interval_arrays(log_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    body = api_as(analyst_a).get(f"/api/v1/benchmarks/{log_a.pk}/").json()
    result = body["result"]
    assert result["throughput_gbps"] == pytest.approx(log_a.result["throughput_gbps"])
    assert result["intervals"] == len(log_a.result["interval_gbps"])
    for heavy in ("interval_gbps", "interval_sent_gbps", "series", "interval_start_s",
                  "interval_end_s", "chart_series"):  # fmt: skip
        assert heavy not in result, heavy
    assert body["intervals_url"] == f"/api/v1/benchmarks/{log_a.pk}/intervals/"


def test_a_long_logs_detail_stays_small(log_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    from benchmarks.summary import page_summary

    n = 50_000  # intervals of a long run, four streams
    big = {**log_a.result, "interval_gbps": [9.5] * n, "interval_start_s": list(range(n)),
           "interval_end_s": list(range(1, n + 1)),
           "series": [{"label": f"s{i}", "gbps": [2.4] * n} for i in range(4)]}  # fmt: skip
    BenchmarkLog.objects.filter(pk=log_a.pk).update(result=big, summary=page_summary(big))
    api = api_as(analyst_a)
    response = api.get(f"/api/v1/benchmarks/{log_a.pk}/")
    assert len(response.content) < 20_000 < len(json.dumps(big))
    assert response.json()["result"]["intervals"] == n
    page = api.get(f"/api/v1/benchmarks/{log_a.pk}/intervals/", {"page": 3}).json()
    assert page["count"] == n and len(page["results"]) == benchmarks.selectors.INTERVALS_PER_PAGE
    assert page["streams"] and len(page["results"][0]["stream_gbps"]) == 4


def test_a_log_parsed_before_summaries_still_answers_a_summary(log_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    BenchmarkLog.objects.filter(pk=log_a.pk).update(summary=None)
    result = api_as(analyst_a).get(f"/api/v1/benchmarks/{log_a.pk}/").json()["result"]
    assert result["intervals"] == len(log_a.result["interval_gbps"])
    assert "interval_gbps" not in result


def test_the_intervals_are_paged(log_a, analyst_a, analyst_b, api_as, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(benchmarks.selectors, "INTERVALS_PER_PAGE", 2)
    api = api_as(analyst_a)
    url = f"/api/v1/benchmarks/{log_a.pk}/intervals/"
    total = len(log_a.result["interval_gbps"])
    first = api.get(url).json()
    assert first["count"] == total and first["pages"] == -(-total // 2)
    assert [r["interval"] for r in first["results"]] == [1, 2]
    assert first["results"][0]["gbps"] == pytest.approx(log_a.result["interval_gbps"][0])
    assert first["previous"] is None and "page=2" in first["next"]
    last = api.get(url, {"page": first["pages"]}).json()
    assert last["next"] is None and last["results"][-1]["interval"] == total
    seen = []
    for n in range(1, first["pages"] + 1):
        seen += [r["gbps"] for r in api.get(url, {"page": n}).json()["results"]]
    assert seen == pytest.approx(log_a.result["interval_gbps"])
    # another team's log is a 404 here too
    assert api_as(analyst_b).get(url).status_code == 404
