"""The what-if is the saved run's own computation with other settings: every part of the page
follows it (rank, recommendation, headline, table, charts), Reset is the saved run, and a
scenario can be saved as a new run computed by the normal job path."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from core.models import JobStatus
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingRun
from rankings.services import ranking_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(team_a, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    tcp, _roce = seed_quotes(team_a, analyst_a)
    # Half the seed's TCP price: the 100G RoCE offer still wins as saved (model v2 exposes most
    # of 10G's traffic), but with 4x the bandwidth on slower GPUs the cheap TCP offer wins.
    tcp.current_version.__class__.objects.filter(pk=tcp.current_version_id).update(
        price_per_node_month=20000
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = ranking_start(team=team_a, user=analyst_a, workload=make_workload(team_a))
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    return run


FLIP = {"bandwidth_scale": "4", "overlap": "1", "mfu_scale": "0.5"}


def _labels(figure_html: str) -> list[str]:
    """The offer names of the first figure in a piece of HTML (its JSON data block), in drawing
    order."""
    block = re.search(r'<script id="figure-[^"]*" type="application/json">(.*?)</script>',
                      figure_html, re.S)  # fmt: skip
    assert block, "no figure in the HTML"
    return list(json.loads(block.group(1))["data"][0]["y"])


def test_a_scenario_that_changes_the_winner_moves_badge_headline_table_and_chart(
    run, analyst_a, client_as, django_assert_max_num_queries
):
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert 'tr data-offer="' in page and "Recommended: Fast RoCE" in page
    saved_first = _labels(page.split('id="finished-section"')[1])[0]
    assert "Fast RoCE" in saved_first
    with django_assert_max_num_queries(6):
        data = client.get(reverse("rankings:whatif", args=[run.pk]), FLIP).json()
    assert data["scenario"] == {"bandwidth_scale": 4.0, "overlap": 1.0, "mfu_scale": 0.5}
    assert data["is_saved"] is False and "overlap 1" in data["scenario_text"]
    html = data["html"]
    tcp = next(r for r in data["results"] if "TCP" in r["label"])
    assert data["recommended"] == tcp["id"]
    assert f'data-offer="{tcp["id"]}" class=" recommended' in html
    assert "recommended-badge" in html.split(f'data-offer="{tcp["id"]}"')[1].split("</tr>")[0]
    headline = html.split('class="headline"')[1].split("</p>")[0]
    assert "Cheap TCP" in headline and (
        "Recommended: Cheap TCP" in headline or "No clear winner: Cheap TCP" in headline
    )
    assert "Cheap TCP" in _labels(html)[0]
    # the job time and cost follow the scenario, not the saved run
    saved = {r.offer_id: r for r in run.results.all()}
    assert tcp["cost_per_eth"] < saved[tcp["id"]].cost_per_eth


def test_the_saved_settings_are_the_saved_run_and_bad_values_are_clamped(run, analyst_a, client_as):
    client = client_as(analyst_a)
    url = reverse("rankings:whatif", args=[run.pk])
    same = client.get(url, {"overlap": "0.5", "mfu_scale": "1", "bandwidth_scale": "1"}).json()
    assert same["is_saved"] is True and same["scenario"] == {}
    saved = run.results.order_by("rank").first()
    assert same["recommended"] == saved.offer_id
    assert same["results"][0]["cost_per_eth"] == pytest.approx(saved.cost_per_eth)
    odd = client.get(url, {"overlap": "abc", "mfu_scale": "inf", "bandwidth_scale": "1e9"})
    assert odd.status_code == 200
    assert odd.json()["scenario"] == {"bandwidth_scale": 4.0}


def test_a_scenario_saved_as_a_run_is_computed_by_the_job_path_and_owned_by_its_author(
    run, analyst_a, viewer_a, client_as, django_capture_on_commit_callbacks
):
    url = reverse("rankings:whatif_save", args=[run.pk])
    assert client_as(viewer_a).post(url, FLIP).status_code == 403
    client = client_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(url, FLIP)
    new = RankingRun.objects.exclude(pk=run.pk).get()
    assert r.status_code == 302 and r["Location"] == reverse("rankings:detail", args=[new.pk])
    assert new.status == JobStatus.DONE and new.created_by == analyst_a
    assert new.snapshot["scenario"] == {"bandwidth_scale": 4.0, "overlap": 1.0, "mfu_scale": 0.5}
    assert new.snapshot["offers"] == run.snapshot["offers"]
    assert "overlap 1" in new.label
    preview = client.get(reverse("rankings:whatif", args=[run.pk]), FLIP).json()
    first = new.results.get(recommended=True)
    assert first.offer_id == preview["recommended"]
    by_id = {x["id"]: x for x in preview["results"]}
    for res in new.results.all():
        assert res.cost_per_eth == pytest.approx(by_id[res.offer_id]["cost_per_eth"])
    # the new run's page starts at its scenario; its own settings are "saved"
    page = client.get(reverse("rankings:detail", args=[new.pk])).content.decode()
    assert 'name="overlap" min="0.0" max="1.0" step="0.05" value="1"' in page
    again = client.get(reverse("rankings:whatif", args=[new.pk]), FLIP).json()
    assert again["is_saved"] is True


def test_another_team_cannot_preview_or_save_a_scenario(run, analyst_b, client_as):
    client = client_as(analyst_b)
    assert client.get(reverse("rankings:whatif", args=[run.pk]), FLIP).status_code == 404
    assert client.post(reverse("rankings:whatif_save", args=[run.pk]), FLIP).status_code == 404
    assert RankingRun.objects.count() == 1


def test_the_run_page_and_the_policy_page_have_pinned_query_counts(
    run, analyst_a, client_as, django_assert_max_num_queries
):
    client = client_as(analyst_a)
    client.get(reverse("rankings:detail", args=[run.pk]))  # fills the section cache
    with django_assert_max_num_queries(8):
        assert client.get(reverse("rankings:detail", args=[run.pk])).status_code == 200
    with django_assert_max_num_queries(6):
        assert client.get(reverse("rankings:policy")).status_code == 200
