"""Ranking end to end: task, snapshot, idempotence, problems, pages, API, isolation, CLI."""

import json
import re
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from core.models import JobStatus
from quotes.services import quote_update
from quotes.testing import make_quote, make_vendor, make_workload, seed_quotes
from rankings.models import RankingResult, RankingRun
from rankings.services import rank_snapshot, ranking_start
from rankings.tasks import compute_ranking, run_job

DATA = Path(__file__).parent / "data"
pytestmark = pytest.mark.django_db


@pytest.fixture
def seeded(team_a, analyst_a):  # type: ignore[no-untyped-def]
    a, b = seed_quotes(team_a, analyst_a)
    return {"tcp": a, "roce": b, "workload": make_workload(team_a)}


def _start(team, user, workload, capture, **kw):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        run = ranking_start(team=team, user=user, workload=workload, **kw)
    run.refresh_from_db()
    return run


def test_the_100g_roce_offer_wins_at_under_half_the_10g_cost(
    seeded, team_a, analyst_a, django_capture_on_commit_callbacks
):
    run = _start(team_a, analyst_a, seeded["workload"], django_capture_on_commit_callbacks)
    assert run.status == JobStatus.DONE and run.progress == 100
    first, second = run.results.order_by("rank")
    assert first.quote_version_id == seeded["roce"].current_version_id
    assert first.cost_per_eth < 0.5 * second.cost_per_eth
    assert second.hourly_cost < first.hourly_cost  # the cheaper rent is the dearer way to train
    assert any(w["code"] == "bandwidth_inference_only" for w in second.warnings)


def test_running_the_task_twice_never_duplicates_results(
    seeded, team_a, analyst_a, django_capture_on_commit_callbacks
):
    run = _start(team_a, analyst_a, seeded["workload"], django_capture_on_commit_callbacks)
    before = list(run.results.values_list("offer_id", "rank", "cost_per_eth"))
    compute_ranking.apply(args=[run.pk])
    run_job(run.pk)
    assert RankingResult.objects.filter(run=run).count() == 2
    assert list(run.results.values_list("offer_id", "rank", "cost_per_eth")) == before


def test_a_run_keeps_its_quote_version_and_snapshot_after_an_edit(
    seeded, team_a, analyst_a, django_capture_on_commit_callbacks
):
    run = _start(team_a, analyst_a, seeded["workload"], django_capture_on_commit_callbacks)
    old_version = seeded["tcp"].current_version_id
    quote_update(
        quote=seeded["tcp"], user=analyst_a, data={"price_per_node_month": Decimal("1000")}
    )
    run.refresh_from_db()
    assert old_version in set(run.results.values_list("quote_version_id", flat=True))
    again = rank_snapshot(run.snapshot)
    stored = {r.offer_id: r.cost_per_eth for r in run.results.all()}
    assert {r.offer_id: r.cost_per_eth for r in again.results} == pytest.approx(stored)


def test_an_inconsistent_set_is_explained_not_a_500(
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    vendor = make_vendor(team_a, "Mixed")
    make_quote(team_a, analyst_a, vendor, label="yuan")
    make_quote(
        team_a,
        analyst_a,
        vendor,
        label="dollars",
        currency="USD",
        fx_to_cny=Decimal("7.2"),
        nodes=2,
    )
    workload = make_workload(team_a, nodes=4)
    run = _start(team_a, analyst_a, workload, django_capture_on_commit_callbacks)
    assert run.status == JobStatus.DONE
    assert run.results.count() == 1
    codes = {m["code"] for p in run.problems for m in p["messages"]}
    assert "workload_nodes_exceeds_offer" in codes
    page = client_as(analyst_a).get(reverse("rankings:detail", args=[run.pk]))
    assert page.status_code == 200 and "dollars" in page.content.decode()


def test_the_start_form_explains_nodes_beyond_the_offer_and_missing_rates(
    client_as, analyst_a, team_a, django_capture_on_commit_callbacks
):
    vendor = make_vendor(team_a, "V")
    small = make_quote(team_a, analyst_a, vendor, label="small", nodes=2)
    workload = make_workload(team_a, nodes=4)
    client = client_as(analyst_a)
    # no offer at all can run the workload: the form says which and why, nothing is stored
    r = client.post(reverse("rankings:start"), {"workload": workload.pk})
    assert r.status_code == 400 and "V · small" in r.content.decode()
    assert RankingRun.objects.count() == 0
    # with one offer that can, the default ("all current quotes") starts; the small one is
    # listed on the run as unable to run the workload
    make_quote(team_a, analyst_a, vendor, label="big", nodes=8)
    page = client.get(reverse("rankings:start")).content.decode()
    assert "V · small (2 × 8" in page and "V · big (8 × 8" in page
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(reverse("rankings:start"), {"workload": workload.pk})
    run = RankingRun.objects.get()
    assert r.status_code == 302 and run.status == JobStatus.DONE
    assert [p["id"] for p in run.problems] == [str(small.current_version_id)]
    assert run.results.count() == 1


def test_the_page_shows_the_lesson_charts_and_what_if(
    seeded, team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    run = _start(team_a, analyst_a, seeded["workload"], django_capture_on_commit_callbacks)
    client = client_as(analyst_a)
    html = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert "plotly/plotly.min.js" in html and not re.search(r"(?:src|href)=\"(?:https?:)?//", html)
    assert "plotly-graph-div" in html
    status = client.get(reverse("rankings:status", args=[run.pk])).json()
    assert status["status"] == "done" and status["progress"] == 100
    fast = client.get(reverse("rankings:whatif", args=[run.pk]), {"bandwidth_scale": "100"}).json()
    slow = client.get(reverse("rankings:whatif", args=[run.pk]), {"overlap": "0"}).json()
    assert fast["results"][0]["cost_per_eth"] < slow["results"][0]["cost_per_eth"]


def test_the_api_starts_a_run_and_reports_results(
    seeded, api_as, analyst_a, django_capture_on_commit_callbacks
):
    api = api_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post("/api/v1/rankings/", {"workload": seeded["workload"].pk}, format="json")
    assert r.status_code == 202
    body = api.get(f"/api/v1/rankings/{r.json()['id']}/").json()
    assert body["status"] == "done" and [x["rank"] for x in body["results"]] == [1, 2]


def test_rankings_of_another_team_are_404_and_viewers_cannot_start(
    seeded,
    api_as,
    client_as,
    analyst_b,
    viewer_a,
    team_a,
    analyst_a,
    django_capture_on_commit_callbacks,
):
    run = _start(team_a, analyst_a, seeded["workload"], django_capture_on_commit_callbacks)
    api = api_as(analyst_b)
    assert api.get(f"/api/v1/rankings/{run.pk}/").status_code == 404
    assert api.get("/api/v1/rankings/").json()["count"] == 0
    assert (
        api.post(
            "/api/v1/rankings/", {"workload": seeded["workload"].pk}, format="json"
        ).status_code
        == 400
    )
    assert api.get(f"/api/v1/workloads/{seeded['workload'].pk}/").status_code == 404
    page = client_as(analyst_b)
    for name in ("detail", "status", "whatif"):
        assert page.get(reverse(f"rankings:{name}", args=[run.pk])).status_code == 404
    assert (
        api_as(viewer_a)
        .post("/api/v1/rankings/", {"workload": seeded["workload"].pk}, format="json")
        .status_code
        == 403
    )
    assert client_as(viewer_a).get(reverse("rankings:start")).status_code == 403


def test_the_rankings_list_has_a_pinned_query_count(
    seeded,
    api_as,
    analyst_a,
    team_a,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
):
    for _ in range(4):
        _start(team_a, analyst_a, seeded["workload"], django_capture_on_commit_callbacks)
    with django_assert_max_num_queries(8):
        assert api_as(analyst_a).get("/api/v1/rankings/").status_code == 200


def test_rank_offers_prints_the_seed_ranking(capsys):
    call_command("rank_offers", str(DATA / "seed_example.json"))
    out = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in out] == ["B-100G-RoCE", "A-10G-TCP"]
    assert out[0]["cost_per_eth"] < 0.5 * out[1]["cost_per_eth"]
    assert {"rank", "cost_per_eth", "utilisation", "bandwidth_basis", "warnings"} <= set(out[0])


def test_rank_offers_exits_2_on_a_bad_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"offers": 3}')
    with pytest.raises(SystemExit) as exc:
        call_command("rank_offers", str(bad))
    assert exc.value.code == 2


def test_the_schema_generates_without_errors():
    done = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--fail-on-warn", "--file", "/dev/null"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_ranking_runs_through_the_real_worker(celery_worker_process, team_a, analyst_a):
    a, b = seed_quotes(team_a, analyst_a)
    workload = make_workload(team_a)
    run = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    conf = compute_ranking.app.conf
    eager, conf.task_always_eager = conf.task_always_eager, False  # really go through Redis
    try:
        sent = compute_ranking.apply_async(args=[run.pk], queue=celery_worker_process["queue"])
    finally:
        conf.task_always_eager = eager
    assert sent.get(timeout=60) == "done"
    deadline = time.time() + 60
    while time.time() < deadline:
        run.refresh_from_db()
        if run.is_finished:
            break
        time.sleep(0.3)
    assert run.status == JobStatus.DONE, run.error
    assert run.results.get(rank=1).quote_version_id == b.current_version_id
