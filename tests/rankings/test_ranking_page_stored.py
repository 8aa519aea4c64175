"""Jobs compute, pages read: the ranking job stores the sensitivity sweep and the figures of its
page (with progress), the page renders only what is stored and pages its table, and a run from
before (nothing stored) offers to compute it again instead of sweeping in the request."""

from __future__ import annotations

import importlib
import time
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation

import domain.ranking
import domain.sensitivity
import domain.trainmodel.api
import rankings.page_data
import rankings.services
import rankings.views
import rankings.whatif
from core.models import JobStatus
from quotes.models import GpuModel, WorkloadProfile
from quotes.testing import make_quote, make_vendor, make_workload, seed_quotes
from rankings.models import RankingResult, RankingRun
from rankings.page_data import CHART_OFFERS, PAGE_DATA_VERSION, chart_figures
from rankings.services import ranking_compute
from rankings.tasks import run_job
from rankings.views import RESULTS_PER_PAGE

pytestmark = pytest.mark.django_db

# the module: the package's `rank` attribute is the function it exports
RANK_MODULE = importlib.import_module("domain.ranking.rank")


def _model_raises(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every entry point of the model (ranking, layout search, sweep) raises when called."""

    def called(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("the model ran in the request")

    for module, name in (
        (domain.ranking, "rank"),
        (RANK_MODULE, "rank"),
        (RANK_MODULE, "estimate"),
        (domain.trainmodel.api, "search"),
        (domain.sensitivity, "rank_offers"),
        (domain.sensitivity, "sensitivity"),
        (rankings.whatif, "sensitivity"),
        (rankings.whatif, "sensitivity_data"),
        (rankings.page_data, "sensitivity_data"),
        (rankings.services, "rank_snapshot"),
        (rankings.services, "compute_snapshot"),
        (rankings.views, "compute_snapshot"),
    ):
        monkeypatch.setattr(module, name, called)


@pytest.fixture
def seed_run(team_a, analyst_a):  # type: ignore[no-untyped-def]
    seed_quotes(team_a, analyst_a)
    run = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=make_workload(team_a)
    )
    run_job(run.pk)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE, run.error
    return run


def test_the_job_stores_the_sweep_and_figures_in_every_language_and_reports_progress(
    team_a, analyst_a
):  # type: ignore[no-untyped-def]
    seed_quotes(team_a, analyst_a)
    run = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=make_workload(team_a)
    )
    seen: list[int] = []
    ranking_compute(run_id=run.pk, progress=seen.append)
    run.refresh_from_db()
    data = run.page_data
    assert data["version"] == PAGE_DATA_VERSION and data["offers"] == 2
    assert [r["key"] for r in data["sensitivity"]["rows"]] == ["overlap", "mfu", "bandwidth"]
    assert data["sensitivity"]["verdict"]["en"] and data["sensitivity"]["verdict"]["zh"]
    for language in ("en", "zh-hans"):
        assert set(data["charts"][language]) == {"breakdown", "bandwidth", "tornado"}
    assert data["charts"]["en"]["tornado"]["layout"]["title"]["text"].startswith("Sensitivity")
    assert "Sensitivity" not in data["charts"]["zh-hans"]["tornado"]["layout"]["title"]["text"]
    # progress moves through the sweep, never back, and ends at 100
    assert seen == sorted(seen) and seen[-1] == 100
    assert len([p for p in seen if 45 < p < 70]) >= 6


def test_the_page_renders_the_stored_sweep_without_running_the_model(
    seed_run, analyst_a, client_as, monkeypatch
):  # type: ignore[no-untyped-def]
    cache.clear()
    _model_raises(monkeypatch)
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    html = client.get(reverse("rankings:detail", args=[seed_run.pk])).content.decode()
    assert 'id="sensitivity"' in html and 'data-parameter="bandwidth"' in html
    assert (
        "sensitivity-verdict" in html and html.count('class="plotly-graph-div chart-figure"') == 3
    )
    assert "recompute-note" not in html and "Compute this ranking again" not in html
    # the status, list and API reads do not run it either
    assert client.get(reverse("rankings:status", args=[seed_run.pk])).json()["finished"]
    assert client.get(reverse("rankings:list")).status_code == 200


def test_a_run_without_stored_page_data_offers_a_recompute_and_never_sweeps(
    seed_run, analyst_a, viewer_a, client_as, monkeypatch, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    RankingRun.objects.filter(pk=seed_run.pk).update(page_data={})
    cache.clear()
    url = reverse("rankings:detail", args=[seed_run.pk])
    with monkeypatch.context() as patched:
        _model_raises(patched)
        client = client_as(analyst_a)
        client.cookies["django_language"] = "en"
        html = client.get(url).content.decode()
        assert "recompute-note" in html and "Compute this ranking again" in html
        assert "chart-figure" not in html and 'data-parameter="' not in html
        # the table is still there, from the stored results
        assert html.count('<tr data-offer="') == seed_run.results.count()
        viewer = client_as(viewer_a)
        assert "Compute this ranking again" not in viewer.get(url).content.decode()
        recompute = reverse("rankings:recompute", args=[seed_run.pk])
        assert viewer.post(recompute).status_code == 403
    client = client_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("rankings:recompute", args=[seed_run.pk]))
    assert response.status_code == 302
    seed_run.refresh_from_db()
    assert seed_run.status == JobStatus.DONE and seed_run.page_data["version"] == PAGE_DATA_VERSION
    html = client.get(url).content.decode()
    assert "recompute-note" not in html and html.count("chart-figure") == 3


@pytest.fixture
def big_moe_run(team_a, analyst_a):  # type: ignore[no-untyped-def]
    """A run of 2,000 large offers for the DeepSeek-V3-style MoE preset: the job runs once on
    six real offers; 1,994 more results are bulk-created from them (the page reads rows)."""
    vendor = make_vendor(team_a, "Big iron")
    for i in range(6):
        make_quote(team_a, analyst_a, vendor, label=f"H100 x 256 nodes #{i}",
                   gpu=GpuModel.objects.get(key="H100-SXM"),
                   nodes=256, nic_gbps=400.0, nics_per_node=8,
                   price_per_node_month=Decimal(90000 + 1500 * i))  # fmt: skip
    workload = WorkloadProfile.objects.create(
        team=team_a, name="DeepSeek-V3 MoE", preset="deepseek-v3-moe", params_b=671,
        tokens_per_step=62914560, strategy="fsdp", overlap=0.5, train_tokens=14.8e12,
    )  # fmt: skip
    run = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    run_job(run.pk)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE, run.error
    real = list(run.results.order_by("rank"))
    assert real and real[0].model_detail, run.problems
    last = real[-1]
    extra = []
    for i in range(len(real) + 1, 2001):
        row = RankingResult(**{
            f.attname: getattr(last, f.attname) for f in RankingResult._meta.concrete_fields
            if f.attname != "id"
        })  # fmt: skip
        row.offer_id, row.rank, row.label = f"x{i}", i, f"bulk offer {i} <b>"
        row.cost_per_eth = last.cost_per_eth * (1 + i / 1000)
        row.recommended = row.tie_with_winner = False
        row.decision_rank = i if row.eligible else None
        extra.append(row)
    RankingResult.objects.bulk_create(extra, batch_size=500)
    # the stored figures of the whole set, as the job draws them (the first CHART_OFFERS)
    everything = list(run.results.order_by("rank"))
    data = run.page_data
    for language in data["charts"]:
        with translation.override(language):
            data["charts"][language] = chart_figures(everything, data["sensitivity"])
    RankingRun.objects.filter(pk=run.pk).update(page_data=data)
    return run


def test_a_ranking_of_2000_large_moe_offers_renders_paged_from_stored_results_in_2_s(
    big_moe_run, analyst_a, client_as, monkeypatch
):  # type: ignore[no-untyped-def]
    assert big_moe_run.results.count() == 2000
    assert big_moe_run.page_data["sensitivity"]["rows"], "the job stored the sweep"
    _model_raises(monkeypatch)
    cache.clear()
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    url = reverse("rankings:detail", args=[big_moe_run.pk])
    last_page = -(-2000 // RESULTS_PER_PAGE)
    for query in ({}, {"page": "7"}, {"page": str(last_page)}):
        started = time.perf_counter()
        response = client.get(url, query)
        took = time.perf_counter() - started
        assert response.status_code == 200
        html = response.content.decode()
        assert took < 2.0, f"{query}: {took:.2f} s"
        assert len(response.content) < 1_500_000, f"{query}: {len(response.content)} bytes"
        assert html.count('<tr data-offer="') == RESULTS_PER_PAGE
        assert "of 2000" in html and 'id="results-pager"' in html
        assert html.count("chart-figure") == 3
    # the last page lists the last offers, the recommended one is still named above the table
    best = big_moe_run.results.get(recommended=True)
    headline = html.split('class="headline"')[1].split("</p>")[0]
    assert 'data-offer="x2000"' in html and best.label in headline
    assert f"draw the {CHART_OFFERS} cheapest of 2000 offers" in html


def test_the_what_if_of_a_large_run_is_not_computed_in_the_request(
    seed_run, analyst_a, client_as, monkeypatch
):  # type: ignore[no-untyped-def]
    """Beyond WHATIF_LIVE_OFFERS offers a scenario is refused with a message pointing to saving
    it as a run (computed by the job); the saved settings answer at once. No model call."""
    from rankings.views import WHATIF_LIVE_OFFERS

    snapshot = seed_run.snapshot
    first = snapshot["offers"][0]
    snapshot["offers"] = [
        {**first, "id": f"copy{i}"} for i in range(WHATIF_LIVE_OFFERS + 1)
    ]  # fmt: skip
    RankingRun.objects.filter(pk=seed_run.pk).update(snapshot=snapshot)
    _model_raises(monkeypatch)
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    url = reverse("rankings:whatif", args=[seed_run.pk])
    refused = client.get(url, {"overlap": "0.9"})
    assert refused.status_code == 400 and refused.json()["refused"] is True
    assert "save it as a new ranking run" in refused.json()["problems"][0]
    assert refused.json()["scenario"] == {"overlap": 0.9}
    saved = client.get(url, {"overlap": "0.5"}).json()
    assert saved["is_saved"] is True and saved["html"] == ""


def test_the_report_uses_the_stored_sweep(seed_run, monkeypatch):  # type: ignore[no-untyped-def]
    import reports.selectors

    def swept(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("the report swept again")

    monkeypatch.setattr(reports.selectors, "sensitivity_rows", swept)
    data = reports.selectors.report_data(run=seed_run)
    assert [r["key"] for r in data.sensitivity] == ["overlap", "mfu", "bandwidth"]
    assert data.sensitivity.verdict is not None
