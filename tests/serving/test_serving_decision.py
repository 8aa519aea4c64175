"""Serving on the training ranking's rules: an offer whose vendor has a critical finding is
excluded (ranked after every eligible offer, with the reason), and an offer without a
public-bandwidth price is a problem ("price unknown"), never a bandwidth bill of 0."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from domain import serving as sv
from quotes.models import GpuModel
from quotes.testing import make_quote
from serving.selectors import ranking_dict, serving_ranking
from vendors.models import DataCentre, NetworkProfile, Vendor
from vendors.services import vendor_refresh_findings

pytestmark = pytest.mark.django_db


def _serving_quote(team, user, vendor, label, price, **over):  # type: ignore[no-untyped-def]
    data = {"label": label, "nodes": 6, "gpu": GpuModel.objects.get(key="L40S"),
            "price_per_node_month": Decimal(price), "public_bandwidth_mbps": 2000,
            "bandwidth_billing": "p95", "bandwidth_price": Decimal("25")}  # fmt: skip
    return make_quote(team, user, vendor, **{**data, **over})


@pytest.fixture
def flagged_cheapest(serving_setup, team_a, analyst_a):  # type: ignore[no-untyped-def]
    bad = Vendor.objects.create(team=team_a, name_en="No Licence Co", name_zh="无证公司",
                                services=["gpu_rental", "idc"])  # fmt: skip
    dc = DataCentre.objects.create(vendor=bad, name="无证机房", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="roce", nic_gbps=Decimal("100"))
    bad = vendor_refresh_findings(vendor=bad)
    assert bad.findings_critical >= 1
    quote = _serving_quote(team_a, analyst_a, bad, "cheap but unlicensed", "4000")
    return serving_setup, quote


def test_an_offer_of_a_vendor_with_a_critical_finding_is_excluded_like_in_training(
    flagged_cheapest, team_a
):
    setup, bad = flagged_cheapest
    body = ranking_dict(serving_ranking(team=team_a, workload=setup["workload"]))
    rows = body["results"]
    first = rows[0]
    assert first["eligible"] and first["quote"] != bad.pk
    mine = next(r for r in rows if r["quote"] == bad.pk)
    # excluded: listed after every eligible offer, with no rank of its own
    assert not mine["eligible"] and mine["rank"] == 0
    assert rows.index(mine) > max(i for i, r in enumerate(rows) if r["eligible"])
    # cheapest on cost alone, but not recommended
    assert mine["cost_per_million_tokens_cny"] < first["cost_per_million_tokens_cny"]
    assert mine["eligibility_reasons"][0]["code"] == "risk_excluded"
    assert "不合格" in mine["eligibility_reasons"][0]["zh"]


def test_the_serving_page_marks_the_excluded_offer_and_shows_no_raw_codes(
    flagged_cheapest, analyst_a, client_as
):
    setup, bad = flagged_cheapest
    client = client_as(analyst_a)
    url = reverse("serving:workload", args=[setup["workload"].pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    row = html.split(f'data-offer="{bad.pk}"')[1].split("</tr>")[0]
    assert "excluded" in html.split(f'data-offer="{bad.pk}"')[0][-40:] or "不合格" in row
    assert "risk_excluded" not in html and "offer_too_small" not in html


def test_an_offer_without_a_bandwidth_price_is_a_problem_not_a_bill_of_zero(
    serving_setup, team_a, analyst_a
):
    vendor = serving_setup["serve"].vendor
    unpriced = _serving_quote(team_a, analyst_a, vendor, "no bandwidth price", "15000",
                              bandwidth_price=Decimal("0"))  # fmt: skip
    body = ranking_dict(serving_ranking(team=team_a, workload=serving_setup["workload"]))
    assert unpriced.pk not in [r["quote"] for r in body["results"]]
    problem = next(p for p in body["problems"] if p["quote"] == unpriced.pk)
    assert [m["code"] for m in problem["messages"]] == ["bandwidth_price_unknown"]
    assert "price unknown" in problem["messages"][0]["en"]
    assert all(r["bandwidth_cny_month"] > 0 for r in body["results"])


def test_chart_bars_are_named_short_and_distinct_with_the_whole_name_on_hover(serving_setup):
    from serving.figures import cost_per_million_figure

    long_vendor = "示例算力网络（深圳）有限公司【演示】"
    names = {"1": f"{long_vendor} · 6×8 L40S · serving · per GB",
             "2": f"{long_vendor} · 4×8 A100 · serving · 95th pct"}  # fmt: skip
    workload = sv_workload()
    offers = [_domain_offer("1"), _domain_offer("2")]
    outcome = sv.rank_offers(workload, offers)
    fig = cost_per_million_figure(outcome.results, name=names.__getitem__,
                                  labels={"compute": "c", "bandwidth": "b", "title": "t",
                                          "axis": "a"})  # fmt: skip
    bars = list(fig.data[0].y)
    assert len(set(bars)) == 2 and all(len(b) <= 26 for b in bars)
    assert not any(long_vendor in b for b in bars)  # the vendor prefix made them read the same
    assert set(fig.data[0].hovertext) == set(names.values())


def sv_workload():  # type: ignore[no-untyped-def]
    return sv.InferenceWorkload(params_b=7.0, mean_rps=20.0, peak_rps=60.0, tokens_in=800.0,
                                tokens_out=300.0, response_bytes=150_000.0)  # fmt: skip


def _domain_offer(oid: str):  # type: ignore[no-untyped-def]
    return sv.ServingOffer(id=oid, label=oid, gpu="L40S", gpus_per_node=8, nodes=6,
                           price_per_node_month=16000.0 + int(oid), public_bandwidth_mbps=2000.0,
                           plans=(("p95", 25.0),))  # fmt: skip


def test_a_plan_on_a_quote_without_a_bandwidth_price_says_price_unknown_not_zero(
    serving_setup, team_a, analyst_a, client_as
):
    from serving.models import MixedPlan

    vendor = serving_setup["serve"].vendor
    unpriced = _serving_quote(team_a, analyst_a, vendor, "no bandwidth price", "15000",
                              bandwidth_price=Decimal("0"))  # fmt: skip
    plan = serving_setup["plan"]
    MixedPlan.objects.filter(pk=plan.pk).update(serving_quote=unpriced)
    html = client_as(analyst_a).get(reverse("serving:plan", args=[plan.pk])).content.decode()
    bill = html.split('id="serving-bill"')[1].split("</p>")[0]
    assert "price unknown" in bill and "0.00" not in bill
    assert 'id="saving"' in html  # the plan itself is still computed on its own price
