"""Query counts of the serving pages, API lists and report section do not grow with rows.

Each test measures with two rows, adds ten more, and expects the same number of queries."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from quotes.testing import make_quote
from serving.selectors import serving_report_section
from serving.services import mixed_plan_create, serving_workload_create, traffic_upload_create

from .conftest import SERVING_WORKLOAD

pytestmark = pytest.mark.django_db


def add_workloads_and_plans(setup, team, user, n: int, csv_file, *, traffic: bool = True) -> None:  # type: ignore[no-untyped-def]
    """n workloads and n plans, each with a traffic upload in use (half measured per plan)."""
    for i in range(n):
        w = serving_workload_create(team=team, data={**SERVING_WORKLOAD, "name": f"w{i:02}"})
        p = mixed_plan_create(team=team, data={
            "name": f"p{i:02}", "training_quote": setup["roce"], "training_months": 2,
            "training_bandwidth_mbps": 500.0, "serving_workload": w,
            "serving_quote": setup["serve"], "horizon_months": 6,
            "bandwidth_price_mbps_month": Decimal("30"),
        })  # fmt: skip
        if traffic:
            traffic_upload_create(team=team, user=user, upload=csv_file(), workload=w)
            if i % 2:
                traffic_upload_create(team=team, user=user, upload=csv_file(), plan=p)


def add_quotes(setup, team, user, n: int) -> None:  # type: ignore[no-untyped-def]
    for i in range(n):
        make_quote(team, user, setup["serve"].vendor, label=f"extra {i}", nodes=4,
                   public_bandwidth_mbps=500, bandwidth_billing="fixed",
                   bandwidth_price=Decimal("20"))  # fmt: skip


def test_the_serving_home_page(serving_setup, team_a, analyst_a, client_as, count_queries,
                               csv_file):  # fmt: skip
    client = client_as(analyst_a)
    url = reverse("serving:home")
    add_workloads_and_plans(serving_setup, team_a, analyst_a, 1, csv_file, traffic=False)
    client.get(url)  # warm the session and the caches
    before = count_queries(lambda: client.get(url))
    add_workloads_and_plans(serving_setup, team_a, analyst_a, 10, csv_file, traffic=False)
    page = client.get(url)
    assert page.content.decode().count("/serving/plans/") >= 12
    assert count_queries(lambda: client.get(url)) == before


@pytest.mark.parametrize("target", ["workload", "plan"])
def test_the_workload_and_plan_pages_with_more_offers_uploads_and_plans(  # type: ignore[no-untyped-def]
    target, serving_setup, team_a, analyst_a, client_as, count_queries, csv_file
):
    client = client_as(analyst_a)
    obj = serving_setup[target]
    url = reverse(f"serving:{target}", args=[obj.pk])

    def upload() -> None:
        traffic_upload_create(team=team_a, user=analyst_a, upload=csv_file(), **{target: obj})

    for _ in range(2):
        upload()
    client.get(url)
    before = count_queries(lambda: client.get(url))
    add_quotes(serving_setup, team_a, analyst_a, 10)
    add_workloads_and_plans(serving_setup, team_a, analyst_a, 2, csv_file)
    for _ in range(10):
        upload()
    html = client.get(url).content.decode()
    if target == "workload":
        # every offer with a bandwidth price is ranked (the two training quotes state none:
        # their price is unknown, listed as problems)
        assert html.count("data-offer=") >= 11
    else:
        assert "plotly-graph-div" in html
    assert count_queries(lambda: client.get(url)) == before


@pytest.mark.parametrize("path", ["/api/v1/serving-workloads/", "/api/v1/mixed-plans/"])
def test_the_api_lists(path, serving_setup, team_a, analyst_a, api_as, count_queries, csv_file):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    add_workloads_and_plans(serving_setup, team_a, analyst_a, 1, csv_file, traffic=False)
    api.get(path)
    before = count_queries(lambda: api.get(path))
    add_workloads_and_plans(serving_setup, team_a, analyst_a, 10, csv_file, traffic=False)
    assert api.get(path).json()["count"] == 12
    assert count_queries(lambda: api.get(path)) == before


def test_the_report_section_reads_quotes_once_and_is_pinned(serving_setup, team_a, analyst_a,
                                                           count_queries, csv_file):  # fmt: skip
    add_workloads_and_plans(serving_setup, team_a, analyst_a, 1, csv_file)
    section = serving_report_section(team=team_a)
    assert len(section["workloads"]) == 2 and len(section["plans"]) == 2
    before = count_queries(lambda: serving_report_section(team=team_a))
    # quotes once, the team's risk policy, uploads in use once, workloads, plans (with quotes,
    # versions and GPUs)
    assert before == 5
    add_workloads_and_plans(serving_setup, team_a, analyst_a, 10, csv_file)
    add_quotes(serving_setup, team_a, analyst_a, 10)
    section = serving_report_section(team=team_a)
    assert len(section["workloads"]) == 12 and len(section["plans"]) == 12
    assert all(len(w["results"]) + len(w["problems"]) == 13 for w in section["workloads"])
    assert count_queries(lambda: serving_report_section(team=team_a)) == before


def test_the_report_section_keeps_its_shape_and_the_measured_traffic(
    serving_setup, team_a, analyst_a, csv_file
):  # type: ignore[no-untyped-def]
    """The shared look-ups give the same answer as the per-page ones (the upload in use)."""
    from serving.selectors import (
        mixed_plan_evaluate,
        plan_dict,
        ranking_dict,
        serving_ranking,
    )

    workload, plan = serving_setup["workload"], serving_setup["plan"]
    upload = traffic_upload_create(team=team_a, user=analyst_a, upload=csv_file(),
                                   workload=workload)  # fmt: skip
    section = serving_report_section(team=team_a)
    assert set(section) == {"workloads", "plans"}
    [w] = section["workloads"]
    assert w == {"id": workload.pk, "name": workload.name,
                 **ranking_dict(serving_ranking(team=team_a, workload=workload))}  # fmt: skip
    assert w["measured_traffic"]["id"] == upload.pk
    [p] = section["plans"]
    assert p == {"id": plan.pk, "name": plan.name, **plan_dict(mixed_plan_evaluate(plan))}
    # the plan has no samples of its own: its workload's are billed
    assert p["measured_traffic"]["id"] == upload.pk
