"""The rankings API list is a page of run summaries whose size and query count do not grow with
runs or results; each run's results are at /rankings/{id}/results/, paginated; a finished run's
answer is kept in Django's cache (shared by every web worker) under a key that names the run
and a version of it that changes when the run is computed again."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.models import JobStatus
from rankings.api import views as api_views
from rankings.models import RankingResult, RankingRun

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


def _copies(run: RankingRun, runs: int, results: int) -> list[RankingRun]:
    """`runs` more finished runs of the same team, each with `results` result rows (copies of
    the run's first result under other offer ids), not recommended."""
    template = run.results.order_by("rank").first()
    made = []
    for n in range(runs):
        copy = RankingRun.objects.create(
            team=run.team, workload=run.workload, label=f"copy {n}", status=JobStatus.DONE,
            decision={}, finished_at=timezone.now(),
        )  # fmt: skip
        copy.quotes.set(run.quotes.all())
        rows = []
        for i in range(results):
            row = RankingResult.objects.get(pk=template.pk)
            row.pk, row.run = None, copy
            row.rank, row.decision_rank, row.offer_id = i + 1, i + 1, f"offer-{i}"
            row.recommended = False
            rows.append(row)
        RankingResult.objects.bulk_create(rows)
        made.append(copy)
    return made


def _list_queries(api) -> tuple[int, dict]:  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as ctx:
        r = api.get("/api/v1/rankings/")
    assert r.status_code == 200
    return len(ctx.captured_queries), r.json()


def test_the_list_is_a_page_of_summaries_whose_queries_do_not_grow(
    finished_run, api_as, analyst_a, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    api.get("/api/v1/rankings/")  # the session and membership are read once per client
    cache.clear()
    cold, body = _list_queries(api)  # every summary made: the page, then its runs' summaries
    warm, again = _list_queries(api)  # every summary kept: the page only
    assert again == body and warm == cold - 1
    assert body["count"] == 1
    row = body["results"][0]
    assert "results" not in row and "quotes" not in row and "problems" not in row
    n = finished_run.results.count()
    assert row["results_count"] == n
    assert row["eligible_count"] == finished_run.results.filter(eligible=True).count()
    assert row["quotes_count"] == finished_run.quotes.count()
    assert row["results_url"] == f"/api/v1/rankings/{finished_run.pk}/results/"
    assert row["url"] == f"/api/v1/rankings/{finished_run.pk}/"
    leader = finished_run.results.get(recommended=True)
    assert row["recommended"] == leader.offer_id
    assert row["leader"]["offer_id"] == leader.offer_id
    assert row["leader"]["label"] == leader.label
    assert row["leader"]["deciding_cost_per_eth"] == pytest.approx(leader.deciding_cost_per_eth)
    assert row["tax_basis"] == "excl_vat"

    # more runs with many results: the same number of queries, a bounded page
    _copies(finished_run, runs=6, results=120)
    cache.clear()
    with django_assert_max_num_queries(cold):
        r = api.get("/api/v1/rankings/")
    with CaptureQueriesContext(connection) as ctx:
        assert api.get("/api/v1/rankings/").json() == r.json()
    assert len(ctx.captured_queries) == warm
    assert "rankings_rankingresult" not in " ".join(q["sql"] for q in ctx.captured_queries)
    body = r.json()
    assert body["count"] == 7 and len(body["results"]) == 7
    copies = [x for x in body["results"] if x["label"].startswith("copy")]
    assert {x["results_count"] for x in copies} == {120}
    assert all(x["leader"] is None and x["eligible_count"] == 120 for x in copies)
    assert len(r.content) < 7 * 4000  # a summary per run, no result rows
    # a run still computing is read live: its progress moves
    RankingRun.objects.filter(pk=finished_run.pk).update(status=JobStatus.RUNNING, progress=40)
    mine = next(x for x in api.get("/api/v1/rankings/").json()["results"]
                if x["id"] == finished_run.pk)  # fmt: skip
    assert mine["status"] == JobStatus.RUNNING and mine["progress"] == 40
    # filters and pages: the total is the filtered runs', a page past the end is a 404
    done = api.get("/api/v1/rankings/?status=done").json()
    assert done["count"] == 6 and all(x["status"] == "done" for x in done["results"])
    assert api.get("/api/v1/rankings/?page=2").status_code == 404
    assert api.get("/api/v1/rankings/?page=0").status_code == 404
    assert api.get("/api/v1/rankings/?status=failed").json() == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }


def test_a_run_s_results_are_paginated_in_the_decision_order(
    finished_run, api_as, analyst_a, analyst_b, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    (big,) = _copies(finished_run, runs=1, results=120)
    api = api_as(analyst_a)
    url = f"/api/v1/rankings/{big.pk}/results/"
    api.get(url)
    cache.clear()
    with django_assert_max_num_queries(8):
        first = api.get(url).json()
    assert first["count"] == 120 and len(first["results"]) == 50
    assert [r["shown_rank"] for r in first["results"]] == list(range(1, 51))
    assert first["next"].endswith("/results/?page=2") and first["previous"] is None
    last = api.get(url + "?page=3").json()
    assert [r["shown_rank"] for r in last["results"]] == list(range(101, 121))
    assert last["next"] is None
    # each result as in the run's answer
    whole = api.get(f"/api/v1/rankings/{big.pk}/").json()["results"]
    assert first["results"] == whole[:50]
    # a page that does not exist, another team's run
    bad = api.get(url + "?page=9")
    assert bad.status_code == 404 and bad.json()["code"] == "not_found"
    assert api.get(url + "?page=x").status_code == 404
    assert api_as(analyst_b).get(url).status_code == 404
    # the small run's one page
    small = api.get(f"/api/v1/rankings/{finished_run.pk}/results/").json()
    assert small["count"] == finished_run.results.count() and small["next"] is None


def test_the_answer_is_kept_in_the_shared_cache_under_the_run_s_version(
    finished_run, api_as, analyst_a
) -> None:  # type: ignore[no-untyped-def]
    """No per-process copy: what a worker reads is what the cache holds (another worker's
    write included), and a run computed again is read afresh under its new version."""
    assert not hasattr(api_views, "_BODIES")
    api = api_as(analyst_a)
    url = f"/api/v1/rankings/{finished_run.pk}/"
    first = api.get(url, HTTP_ACCEPT_LANGUAGE="en")
    from django.utils import translation

    with translation.override("en"):
        key = api_views.answer_key(finished_run, "run")
    assert str(finished_run.pk) in key and api_views.run_version(finished_run) in key
    assert cache.get(key) == first.content
    # what another worker wrote under the key is what this one answers
    cache.set(key, b'{"id": 0, "kept": true}')
    assert api.get(url, HTTP_ACCEPT_LANGUAGE="en").json() == {"id": 0, "kept": True}
    # emptied cache: computed again from the database, not from a copy in this process
    cache.clear()
    with CaptureQueriesContext(connection) as ctx:
        again = api.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert again.content == first.content
    assert "rankings_rankingresult" in " ".join(q["sql"] for q in ctx.captured_queries)
    # computed again (new finished_at): a new version, the old key is not read
    RankingRun.objects.filter(pk=finished_run.pk).update(finished_at=timezone.now())
    run = RankingRun.objects.get(pk=finished_run.pk)
    assert api_views.run_version(run) != api_views.run_version(finished_run)
    cache.set(key, b'{"id": 0, "stale": true}')
    assert api.get(url, HTTP_ACCEPT_LANGUAGE="en").json()["id"] == finished_run.pk


def test_the_schema_documents_the_summary_and_the_results_page(api_as, analyst_a) -> None:  # type: ignore[no-untyped-def]
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = schema["paths"]
    assert "/api/v1/rankings/{id}/results/" in paths
    listed = paths["/api/v1/rankings/"]["get"]["responses"]["200"]["content"]
    ref = listed["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    page = schema["components"]["schemas"][ref]
    item = page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[-1]
    summary = schema["components"]["schemas"][item]["properties"]
    assert {"results_count", "leader", "results_url"} <= set(summary)
    assert "results" not in summary
    results = paths["/api/v1/rankings/{id}/results/"]["get"]["responses"]["200"]["content"]
    ref = results["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "count" in schema["components"]["schemas"][ref]["properties"]
    detail = paths["/api/v1/rankings/{id}/"]["get"]["responses"]["200"]["content"]
    ref = detail["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "results" in schema["components"]["schemas"][ref]["properties"]
