"""A ranking carries the money rule's basis and the plausibility marks: the page states the tax
basis, marks a confirmed outlier and an offer whose VAT terms were not recorded."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from core.models import JobStatus
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import RankingRun
from rankings.tasks import run_job

pytestmark = pytest.mark.django_db


def test_the_ranking_page_marks_confirmed_outliers_and_states_the_basis(
    team_a, analyst_a, client_as
) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Marks")
    odd = make_quote(
        team_a, analyst_a, vendor, label="odd term", term_months=90,
        prices_include_vat=False, vat_rate=6, invoice_type="special",
        outliers_confirmed=[{"field": "term_months", "value": 90, "code": "unusual_term_months",
                             "en": "term 90 months is above the usual range",
                             "zh": "合同期 90 个月 高于常见范围"}],
    )  # fmt: skip
    make_quote(team_a, analyst_a, vendor, label="unstated", price_per_node_month=Decimal("41000"))
    workload = make_workload(team_a)
    run = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    run_job(run.pk)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE, run.error
    offers = {o["label"]: o for o in run.snapshot["offers"]}
    assert offers["odd term"]["confirmed_outliers"][0]["field"] == "term_months"
    assert offers["unstated"]["tax"]["assumed"] is True
    assert odd.current_version.outliers_confirmed
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    html = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert html.count('class="badge warn outlier"') == 1
    assert "term 90 months is above the usual range" in html
    assert "Prices compared excluding VAT" in html
    assert html.count('class="muted small tax-assumed"') == 1
    client.cookies["django_language"] = "zh-hans"
    html = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert "不含税口径" in html and "合同期 90 个月" in html
