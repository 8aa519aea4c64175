"""A ranking's pages name each vendor in the reader's language: the English name where the
vendor has one, the Chinese name for Chinese readers, the stored name when no English one was
recorded (runs stored before the English name was kept)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import RankingResult
from rankings.services import ranking_start
from vendors.models import Vendor

pytestmark = pytest.mark.django_db


def _run(team, user, capture):  # type: ignore[no-untyped-def]
    fast = make_vendor(team, "x", fabric="roce", gbps=100)
    fast_names = {"name_zh": "快速算力科技有限公司", "name_en": "Fast Compute Ltd."}
    Vendor.objects.filter(pk=fast.pk).update(**fast_names)
    slow = make_vendor(team, "y", fabric="tcp", gbps=10, pfc=None, ecn=None)
    Vendor.objects.filter(pk=slow.pk).update(name_zh="慢速网络科技有限公司", name_en="")
    fast.refresh_from_db()
    slow.refresh_from_db()
    make_quote(team, user, fast, label="100G RoCE")
    make_quote(team, user, slow, label="10G TCP")
    with capture(execute=True):
        run = ranking_start(team=team, user=user, workload=make_workload(team))
    run.refresh_from_db()
    return run


def test_the_ranking_page_list_and_dashboard_name_vendors_in_the_readers_language(
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    run = _run(team_a, analyst_a, django_capture_on_commit_callbacks)
    stored = {r.label: r for r in run.results.all()}
    assert stored["100G RoCE"].vendor_name_en == "Fast Compute Ltd."
    assert stored["10G TCP"].vendor_name_en == ""
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert "Fast Compute Ltd. · 100G RoCE" in page
    assert "快速算力科技有限公司" not in page
    assert "慢速网络科技有限公司 · 10G TCP" in page  # no English name recorded: the stored one
    listing = client.get(reverse("rankings:list")).content.decode()
    assert "Fast Compute Ltd. · 100G RoCE" in listing
    client.cookies["django_language"] = "zh-hans"
    page = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert "快速算力科技有限公司 · 100G RoCE" in page
    assert "Fast Compute Ltd." not in page.split("<main", 1)[-1].split("<script", 1)[0]


def test_a_result_without_an_english_name_shows_the_stored_one(
    team_a, analyst_a, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    from django.utils import translation

    run = _run(team_a, analyst_a, django_capture_on_commit_callbacks)
    RankingResult.objects.filter(run=run).update(vendor_name_en="")  # a run stored before
    with translation.override("en"):
        names = {r.vendor_shown for r in run.results.all()}
    assert names == {"快速算力科技有限公司", "慢速网络科技有限公司"}
