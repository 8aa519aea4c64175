"""Contract pages in both languages: list, contract page (stored evaluation, chart served
locally, evidence, kit), forms with the schedule as rows, quote and award actions, vendor page."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from contracts.models import Contract

from .test_contract_services import _award

pytestmark = pytest.mark.django_db


def lang_client(client, lang: str):  # type: ignore[no-untyped-def]
    client.cookies["django_language"] = lang
    return client


@pytest.mark.parametrize(("lang", "title"), [("en", "Contracts"), ("zh-hans", "合同")])
def test_the_list_and_page_render_in_both_languages(
    evaluated, contract_a, analyst_a, client_as, lang, title
):  # type: ignore[no-untyped-def]
    client = lang_client(client_as(analyst_a), lang)
    r = client.get("/contracts/")
    assert r.status_code == 200 and title in r.content.decode()
    assert contract_a.title in r.content.decode()
    page = client.get(f"/contracts/{contract_a.pk}/").content.decode()
    assert "/static/plotly/plotly.min.js" in page and not re.search(
        r"(?:src|href)=\"(?:https?:)?//", page
    )
    assert 'id="breaches"' in page and "gpu-02" in page
    assert ("Credits due" if lang == "en" else "应得赔付") in page
    assert f"/contracts/{contract_a.pk}/kit/gpu-01.sh" in page


def test_another_teams_contract_page_is_404(contract_a, analyst_b, client_as):  # type: ignore[no-untyped-def]
    client = client_as(analyst_b)
    for path in ("", "edit/", "kit/gpu-01.sh"):
        assert client.get(f"/contracts/{contract_a.pk}/{path}").status_code == 404
    assert client.post(f"/contracts/{contract_a.pk}/evaluate/").status_code == 404


def test_a_viewer_sees_the_page_without_forms_and_cannot_post(contract_a, viewer_a, client_as):  # type: ignore[no-untyped-def]
    client = client_as(viewer_a)
    page = client.get(f"/contracts/{contract_a.pk}/").content.decode()
    assert "upload-form" not in page and "Evaluate now" not in page
    assert client.post(f"/contracts/{contract_a.pk}/evaluate/").status_code == 403


def _form(vendor, **over):  # type: ignore[no-untyped-def]
    data = {
        "title": "Form contract", "vendor": vendor.pk, "status": "signed",
        "starts_on": "2026-12-01", "ends_on": "2027-12-01", "monthly_fee": "100000",
        "currency": "CNY", "fee_includes_vat": "unknown", "committed_gbps": "200",
        "committed_gbps_source": "agreed", "availability_pct": "99.9", "response_minutes": "30",
        "repair_hours": "4", "servers": "node-a R1 leaf1\nnode-b, R1\n", "has_schedule": "on",
        "band_0_below": "99.5", "band_0_credit": "10", "band_1_below": "99", "band_1_credit": "25",
        "bw_threshold_pct": "80", "bw_min_minutes": "60", "bw_credit_pct_per_hour": "0.5",
        "response_credit_pct_per_hour": "1", "cap_pct": "30", "claim_window_days": "30",
    }  # fmt: skip
    data.update(over)
    return data


def test_the_form_creates_a_contract_with_its_bands_and_servers(analyst_a, vendor_a, client_as):  # type: ignore[no-untyped-def]
    r = client_as(analyst_a).post("/contracts/new/", _form(vendor_a))
    assert r.status_code == 302, r.content.decode()[:2000]
    c = Contract.objects.get()
    bands = c.schedule["availability_bands"]
    assert bands == [
        {"below_pct": 99.5, "credit_pct": 10.0},
        {"below_pct": 99.0, "credit_pct": 25.0},
    ]
    assert c.schedule["bandwidth"]["threshold_fraction"] == 0.8
    assert [(s.hostname, s.rack, s.leaf) for s in c.servers.all()] == [
        ("node-a", "R1", "leaf1"), ("node-b", "R1", "")]  # fmt: skip
    edit = client_as(analyst_a).get(f"/contracts/{c.pk}/edit/").content.decode()
    assert 'value="99.5"' in edit and "node-a R1 leaf1" in edit


@pytest.mark.parametrize(("lang", "needle"), [("en", "overlap"), ("zh-hans", "重叠")])
def test_overlapping_bands_in_the_form_are_refused_in_the_users_language(
    analyst_a, vendor_a, client_as, lang, needle
):  # type: ignore[no-untyped-def]
    client = lang_client(client_as(analyst_a), lang)
    r = client.post("/contracts/new/", _form(vendor_a, band_1_below="99.5"))
    assert r.status_code == 400 and needle in r.content.decode()
    assert not Contract.objects.exists()


def test_a_negative_cap_in_the_form_is_refused(analyst_a, vendor_a, client_as):  # type: ignore[no-untyped-def]
    with translation.override("en"):
        r = client_as(analyst_a).post("/contracts/new/", _form(vendor_a, cap_pct="-10"))
    assert r.status_code == 400 and not Contract.objects.exists()


def test_marking_a_quote_signed_creates_its_contract(analyst_a, quote_a, client_as):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    assert (
        f"/contracts/from-quote/{quote_a.pk}/"
        in client.get(f"/quotes/{quote_a.pk}/").content.decode()
    )
    r = client.post(f"/contracts/from-quote/{quote_a.pk}/")
    c = Contract.objects.get()
    assert r.status_code == 302 and r["Location"] == f"/contracts/{c.pk}/edit/"
    assert c.quote_id == quote_a.pk


def test_an_award_becomes_a_contract_from_the_rfq_page(team_a, analyst_a, quote_a, client_as):  # type: ignore[no-untyped-def]
    award = _award(team_a, analyst_a, quote_a, state="approved", evidence={})
    client = client_as(analyst_a)
    page = client.get(f"/sourcing/{award.rfq_id}/").content.decode()
    assert f"/contracts/from-award/{award.pk}/" in page
    r = client.post(f"/contracts/from-award/{award.pk}/")
    assert r.status_code == 302 and Contract.objects.get().award_id == award.pk


def test_the_kit_script_carries_the_token_its_peer_and_the_upload(contract_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    r = client_as(analyst_a).get(f"/contracts/{contract_a.pk}/kit/gpu-04.sh")
    body = r.content.decode()
    assert r.status_code == 200 and r["Content-Disposition"].endswith('delivery-kit-gpu-04.sh"')
    assert f"KIT_TOKEN={contract_a.kit_token}" in body and "PEER=gpu-01" in body  # ring wraps
    assert "/api/v1/contracts/kit/uploads/" in body and "iperf3 -c" in body


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_vendor_page_and_api_show_the_delivery_record(
    evaluated, contract_a, analyst_a, client_as, api_as, lang
):  # type: ignore[no-untyped-def]
    page = lang_client(client_as(analyst_a), lang).get(f"/vendors/{contract_a.vendor_id}/")
    text = page.content.decode()
    assert page.status_code == 200 and 'id="delivery-record"' in text and contract_a.title in text
    rows = api_as(analyst_a).get("/api/v1/contracts/vendor-records/",
                                 {"vendor": contract_a.vendor_id}).json()["results"]  # fmt: skip
    assert rows[0]["delivered_ratio"] == pytest.approx(evaluated.delivered_ratio, rel=0.05)
    assert rows[0]["breaches"] >= 1


def test_another_team_sees_no_vendor_record(evaluated, analyst_b, api_as):  # type: ignore[no-untyped-def]
    assert api_as(analyst_b).get("/api/v1/contracts/vendor-records/").json()["count"] == 0
