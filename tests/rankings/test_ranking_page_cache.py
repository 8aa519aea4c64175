"""The run page renders what its job stored, once per finished run, table page and language."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from core.models import JobStatus
from rankings.models import RankingRun

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_run(team_a, analyst_a):  # type: ignore[no-untyped-def]
    import quotes.demo
    import rankings.demo
    import vendors.demo

    for module in (vendors.demo, quotes.demo, rankings.demo):
        module.load(team=team_a, user=analyst_a)
    run = RankingRun.objects.get(team=team_a)
    assert run.status == JobStatus.DONE and run.results.exists()
    return run


def test_the_page_draws_the_stored_figures_per_language_and_a_rerun_is_not_served_stale(
    finished_run, analyst_a, client_as
):
    """The figures and sweep come from what the job stored, in the page's language; a run
    computed again (new finished_at) gets its new stored figures, not the cached page."""
    client = client_as(analyst_a)
    url = reverse("rankings:detail", args=[finished_run.pk])
    first = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert first.count("chart-figure") == 3  # breakdown, bandwidth, tornado
    assert "Sensitivity of the winner" in first
    client.cookies.load({"django_language": "zh-hans"})
    chinese = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "Sensitivity of the winner" not in chinese and chinese.count("chart-figure") == 3
    # computed again: other stored figures and a new finished_at -> the page shows the new ones
    from django.utils import timezone

    data = RankingRun.objects.get(pk=finished_run.pk).page_data
    data["charts"]["zh-hans"]["tornado"]["layout"]["title"] = {"text": "recomputed sweep"}
    RankingRun.objects.filter(pk=finished_run.pk).update(page_data=data, finished_at=timezone.now())
    assert "recomputed sweep" in client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


def test_a_cached_run_page_reads_neither_results_nor_snapshot_and_shows_the_same(
    finished_run, analyst_a, client_as
):  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_as(analyst_a)
    url = reverse("rankings:detail", args=[finished_run.pk])
    first = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    with CaptureQueriesContext(connection) as ctx:
        second = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    sql = " ".join(q["sql"] for q in ctx.captured_queries)
    assert "rankings_rankingresult" not in sql
    # only the workload name is read out of the snapshot, not the whole column
    # (SQLite reads a key with JSON_EXTRACT("...snapshot", '$.workload'): not the column)
    assert not re.search(r'(?<!\()"rankings_rankingrun"\."snapshot"(,| FROM)', sql)
    # the page after its header (whose logout form's CSRF token is masked anew each time)
    assert second.split('<div id="ranking"')[1] == first.split('<div id="ranking"')[1]
    top = finished_run.results.order_by("rank").first()
    assert top.label in second and f'data-offer="{top.offer_id}"' in second
    # the title still names the workload of the snapshot
    assert finished_run.snapshot["workload_name"] in second.split("</h1>")[0]


def test_the_api_answer_of_a_finished_run_is_kept_and_follows_a_recompute(
    finished_run, analyst_a, api_as
):  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    api = api_as(analyst_a)
    url = f"/api/v1/rankings/{finished_run.pk}/"
    first = api.get(url).json()
    ranks = [r["rank"] for r in first["results"]]  # the decision's: excluded offers (None) last
    shown = [k for k in ranks if k is not None]
    assert shown == sorted(shown) and ranks == shown + [None] * (len(ranks) - len(shown))
    assert sorted(first["quotes"]) == sorted(finished_run.quotes.values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as ctx:
        assert api.get(url).json() == first
    assert "rankings_rankingresult" not in " ".join(q["sql"] for q in ctx.captured_queries)
    # computed again: new finished_at, results changed -> the new answer, not the kept one
    finished_run.results.filter(rank=1).update(label="recomputed leader")
    RankingRun.objects.filter(pk=finished_run.pk).update(finished_at=timezone.now())
    again = api.get(url).json()
    assert again["results"][0]["label"] == "recomputed leader"
    # a run still computing is never kept: its progress shows as it moves
    RankingRun.objects.filter(pk=finished_run.pk).update(status=JobStatus.RUNNING, progress=40)
    assert api.get(url).json()["progress"] == 40
    RankingRun.objects.filter(pk=finished_run.pk).update(progress=70)
    assert api.get(url).json()["progress"] == 70
