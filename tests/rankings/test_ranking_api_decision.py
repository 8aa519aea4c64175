"""The ranking API answers what the page shows: per result eligibility and reasons, risk marks,
tie and recommendation flags, VAT terms and confirmed outliers; per run the decision, its
headline in the request's language and the tax basis. A scenario is saved through the API with
the page's code (201, a new run), by analysts and admins only."""

from __future__ import annotations

import pytest

from core.models import JobStatus
from quotes.models import QuoteVersion
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingRun
from rankings.services import ranking_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(team_a, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    tcp, _roce = seed_quotes(team_a, analyst_a)
    QuoteVersion.objects.filter(pk=tcp.current_version_id).update(
        prices_include_vat=True, vat_rate=6, invoice_type="special",
        outliers_confirmed=[{"field": "nic_gbps", "value": 10, "code": "unusual_nic_gbps",
                             "en": "NIC port speed 10 is odd", "zh": "网卡端口速率 10 不常见"}],
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run = ranking_start(team=team_a, user=analyst_a, workload=make_workload(team_a))
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    return run


def test_each_result_carries_the_decision_vat_terms_and_confirmed_outliers(
    run, api_as, analyst_a, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    with django_assert_max_num_queries(8):
        body = api.get(f"/api/v1/rankings/{run.pk}/").json()
    assert body["tax_basis"] == "excl_vat" and "excluding VAT" in body["tax_basis_text"]
    assert body["headline"] == run.decision["headline"]["en"]
    assert body["recommended"] == run.decision["recommended"]
    results = {r["offer_id"]: r for r in body["results"]}
    assert [r["offer_id"] for r in body["results"] if r["recommended"]] == [body["recommended"]]
    for r in body["results"]:
        assert {"eligible", "eligibility_reasons", "risk_marks", "tie_with_winner"} <= set(r)
    tcp = next(r for r in results.values() if "TCP" in r["label"])
    assert tcp["vat_terms"] == {"prices_include_vat": True, "vat_rate": 6.0,
                                "invoice_type": "special"}  # fmt: skip
    assert tcp["confirmed_outliers"][0]["field"] == "nic_gbps"
    assert tcp["confirmed_outliers"][0]["message"] == "NIC port speed 10 is odd"
    other = next(r for r in results.values() if "TCP" not in r["label"])
    assert other["confirmed_outliers"] == [] and other["vat_terms"]["vat_rate"] is None
    # the same run in Chinese: the cached English answer is not served
    zh = api.get(f"/api/v1/rankings/{run.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert zh["headline"] == run.decision["headline"]["zh"] and "不含税" in zh["tax_basis_text"]
    zh_tcp = next(r for r in zh["results"] if "TCP" in r["label"])
    assert zh_tcp["confirmed_outliers"][0]["message"] == "网卡端口速率 10 不常见"
    listed = api.get("/api/v1/rankings/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert rows[0]["tax_basis"] == "excl_vat"


def test_a_scenario_is_saved_through_the_api_as_a_new_run(
    run, api_as, analyst_a, viewer_a, analyst_b, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    url = f"/api/v1/rankings/{run.pk}/scenario/"
    controls = {"controls": {"bandwidth_scale": 4, "overlap": 1, "mfu_scale": 0.5}}
    assert api_as(viewer_a).post(url, controls, format="json").status_code == 403
    assert api_as(analyst_b).post(url, controls, format="json").status_code == 404
    bad = api_as(analyst_a).post(url, {"controls": {"nope": 1}}, format="json")
    assert bad.status_code == 400 and "nope" in str(bad.json())
    assert RankingRun.objects.count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        r = api_as(analyst_a).post(url, controls, format="json")
    assert r.status_code == 201, r.content
    new = RankingRun.objects.get(pk=r.json()["id"])
    assert new.status == JobStatus.DONE and new.created_by == analyst_a
    assert new.snapshot["scenario"] == {"bandwidth_scale": 4.0, "overlap": 1.0, "mfu_scale": 0.5}
    assert new.snapshot["offers"] == run.snapshot["offers"]
    # out-of-range values are clamped as on the page
    with django_capture_on_commit_callbacks(execute=True):
        r = api_as(analyst_a).post(url, {"controls": {"bandwidth_scale": 99}}, format="json")
    assert RankingRun.objects.get(pk=r.json()["id"]).snapshot["scenario"] == {
        "bandwidth_scale": 4.0
    }
