"""Serving app end to end: services, pages with charts, API, bad input, isolation, roles, demo."""

import pytest
from django.urls import reverse

from quotes.models import GpuModel
from quotes.testing import make_quote
from serving import demo
from serving.models import MixedPlan, ServingWorkload
from serving.selectors import serving_report_section
from serving.services import serving_workload_create

from .conftest import SERVING_WORKLOAD

pytestmark = pytest.mark.django_db

WORKLOAD = SERVING_WORKLOAD


@pytest.fixture
def setup(make_serving_setup):  # type: ignore[no-untyped-def]
    # a smaller port, and a plan that serves on the training quote
    return make_serving_setup(public_bandwidth_mbps=200, plan_serving="roce")


def test_the_ranking_page_shows_cost_per_million_tokens_and_charts(setup, analyst_a, client_as):
    page = client_as(analyst_a).get(reverse("serving:workload", args=[setup["workload"].pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "serving-table" in html and "plotly/plotly.min.js" in html
    assert "cdn.plot.ly" not in html
    assert html.count("plotly-graph-div") == 2  # cost per million tokens, bill by billing model
    assert "public_bandwidth_unstated" not in html  # codes are shown only for problems


def test_the_plan_page_shows_the_month_line_and_the_elastic_saving(setup, analyst_a, client_as):
    page = client_as(analyst_a).get(reverse("serving:plan", args=[setup["plan"].pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "plotly-graph-div" in html and 'id="saving"' in html


def test_the_api_gives_ranking_and_plan_evaluation(setup, analyst_a, api_as):
    api = api_as(analyst_a)
    body = api.get(f"/api/v1/serving-workloads/{setup['workload'].pk}/ranking/").json()
    assert body["results"] and body["results"][0]["rank"] == 1
    labels = {r["quote"] for r in body["results"]}
    assert setup["serve"].pk in labels
    serve = next(r for r in body["results"] if r["quote"] == setup["serve"].pk)
    assert serve["bills"][0]["kind"] == "p95"
    # 60 req/s * 150 kB * 8 = 72 Mbit/s, +30 %
    assert body["public_bandwidth_mbps"] == pytest.approx(93.6)
    # no public bandwidth and no price stated: its monthly cost is unknown, a problem (not ¥0)
    unstated = next(p for p in body["problems"] if p["quote"] == setup["tcp"].pk)
    assert "bandwidth_price_unknown" in {m["code"] for m in unstated["messages"]}
    plan = api.get(f"/api/v1/mixed-plans/{setup['plan'].pk}/evaluation/").json()
    assert len(plan["months"]) == 12 and plan["elastic_saving_cny"] > 0
    assert sum(plan["shares"].values()) == pytest.approx(1.0)


def test_bad_input_in_the_api_is_a_400_with_a_clear_message(team_a, analyst_a, api_as):
    api = api_as(analyst_a)
    api.credentials(HTTP_ACCEPT_LANGUAGE="en")
    r = api.post("/api/v1/serving-workloads/", {**WORKLOAD, "peak_rps": 5.0}, format="json")
    assert r.status_code == 400 and "below the mean" in str(r.json()["peak_rps"])
    r = api.post("/api/v1/serving-workloads/", {**WORKLOAD, "tokens_out": 0}, format="json")
    assert r.status_code == 400 and "tokens_out" in r.json()
    r = api.post("/api/v1/serving-workloads/", {**WORKLOAD, "latency_target_s": 0.05},
                 format="json")  # fmt: skip
    assert r.status_code == 400 and "No GPU" in str(r.json()["latency_target_s"])
    r = api.post("/api/v1/serving-workloads/", {**WORKLOAD, "mean_rps": "lots"}, format="json")
    assert r.status_code == 400
    assert ServingWorkload.objects.count() == 0


def test_bad_input_in_the_form_is_shown_not_a_500(team_a, analyst_a, client_as):
    client = client_as(analyst_a)
    data = {**WORKLOAD, "peak_rps": 5, "latency_target_s": "", "tokens_per_s_per_replica": ""}
    r = client.post(reverse("serving:workload_create"), data, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 400 and "below the mean" in r.content.decode()
    r = client.post(reverse("serving:workload_create"), {**data, "peak_rps": 60, "tokens_out": 0})
    assert r.status_code == 400
    r = client.post(reverse("serving:workload_create"), {**data, "peak_rps": 60})
    assert r.status_code == 302


def test_a_plan_whose_serving_quote_cannot_serve_explains_why(setup, team_a, analyst_a, client_as):
    small = make_quote(team_a, analyst_a, setup["serve"].vendor, label="tiny", nodes=1,
                       gpu=GpuModel.objects.get(key="RTX4090"))  # fmt: skip
    plan = setup["plan"]
    MixedPlan.objects.filter(pk=plan.pk).update(serving_quote=small)
    page = client_as(analyst_a).get(reverse("serving:plan", args=[plan.pk]))
    html = page.content.decode()
    # said in words, never as the raw code
    assert page.status_code == 200 and "The peak needs" in html and "offer_too_small" not in html


def test_a_plan_longer_than_its_horizon_is_refused(setup, analyst_a, api_as):
    r = api_as(analyst_a).patch(f"/api/v1/mixed-plans/{setup['plan'].pk}/",
                                {"training_months": 20}, format="json")  # fmt: skip
    assert r.status_code == 400 and "training_months" in r.json()


def test_another_team_gets_404(setup, analyst_b, api_as, client_as):
    api = api_as(analyst_b)
    assert api.get(f"/api/v1/serving-workloads/{setup['workload'].pk}/ranking/").status_code == 404
    assert api.get(f"/api/v1/mixed-plans/{setup['plan'].pk}/").status_code == 404
    assert api.get("/api/v1/serving-workloads/").json()["count"] == 0
    client = client_as(analyst_b)
    assert client.get(reverse("serving:workload", args=[setup["workload"].pk])).status_code == 404
    assert client.get(reverse("serving:plan", args=[setup["plan"].pk])).status_code == 404


def test_another_teams_quote_cannot_be_used_in_a_plan(setup, analyst_b, api_as, team_b):
    mine = serving_workload_create(team=team_b, data=dict(WORKLOAD))
    r = api_as(analyst_b).post("/api/v1/mixed-plans/", {
        "name": "x", "training_quote": setup["roce"].pk, "serving_quote": setup["roce"].pk,
        "serving_workload": mine.pk, "bandwidth_price_mbps_month": "30",
    }, format="json")  # fmt: skip
    assert r.status_code == 400 and "training_quote" in r.json()


def test_a_viewer_reads_but_cannot_write(setup, viewer_a, api_as, client_as):
    api = api_as(viewer_a)
    assert api.get(f"/api/v1/serving-workloads/{setup['workload'].pk}/ranking/").status_code == 200
    assert api.post("/api/v1/serving-workloads/", WORKLOAD, format="json").status_code == 403
    r = api.patch(f"/api/v1/mixed-plans/{setup['plan'].pk}/", {"name": "y"}, format="json")
    assert r.status_code == 403
    client = client_as(viewer_a)
    assert client.get(reverse("serving:workload_create")).status_code == 403
    assert client.get(reverse("serving:home")).status_code == 200


def test_the_report_section_selector_gives_plain_data(setup, team_a):
    section = serving_report_section(team=team_a)
    assert section["workloads"][0]["results"]
    assert section["plans"][0]["months"]


def test_the_demo_loader_creates_a_workload_and_a_plan_that_compute(team_a, analyst_a):
    from quotes import demo as quotes_demo
    from vendors import demo as vendors_demo

    vendors_demo.load(team=team_a, user=analyst_a)
    quotes_demo.load(team=team_a, user=analyst_a)
    demo.load(team=team_a, user=analyst_a)
    section = serving_report_section(team=team_a)
    assert len(section["workloads"]) == 1 and len(section["plans"]) == 1
    ranked = section["workloads"][0]["results"]
    assert {b["kind"] for r in ranked for b in r["bills"]} == {"fixed", "per_gb", "p95"}
    plan = section["plans"][0]
    assert not plan["errors"] and plan["elastic_saving_cny"] > 0
