"""Plausible vendor and workload numbers: beyond a hard bound is a field error,
beyond a soft bound the analyst must confirm, in the form (checkbox) and the API
(confirm_outliers); messages in both languages; nothing half-saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from domain import plausibility
from quotes.models import WorkloadProfile
from vendors.models import DataCentre, SlaTerms, Vendor

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_vendor(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="自有厂商")


def _sla(value):  # type: ignore[no-untyped-def]
    return {"availability": value, "response_minutes": 30, "hw_replacement_hours": 24,
            "bandwidth_in_contract": "unknown", "compensation_clause": "unknown",
            "state": "claimed"}  # fmt: skip


def test_the_sla_form_refuses_90_percent_and_asks_to_confirm_98(
    client_as, analyst_a, own_vendor
) -> None:  # type: ignore[no-untyped-def]
    page = client_as(analyst_a)
    url = reverse("vendors:sla", args=[own_vendor.pk])
    r = page.post(url, _sla("0.9"))
    assert r.status_code == 400 and "must be above 0.9" in r.content.decode()
    r = page.post(url, _sla("0.98"))
    html = r.content.decode()
    assert r.status_code == 400 and 'type="checkbox" name="confirm_outliers"' in html
    assert "usual range" in html
    assert not SlaTerms.objects.exists()
    zh = page.post(url, _sla("0.98"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "SLA 可用性 0.98 低于常见范围" in zh
    r = page.post(url, {**_sla("0.98"), "confirm_outliers": "on"})
    assert r.status_code == 302
    assert float(SlaTerms.objects.get().availability) == 0.98
    # a usual value shows no checkbox
    assert 'type="checkbox" name="confirm_outliers"' not in page.get(url).content.decode()


def test_the_api_refuses_impossible_vendor_numbers_and_needs_confirm_for_unusual_ones(
    api_as, analyst_a, own_vendor
) -> None:  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    base = f"/api/v1/vendors/{own_vendor.pk}"
    r = api.post(f"{base}/sla/", {"availability": "0.85"}, format="json")
    assert r.status_code == 400 and "availability" in r.json()
    r = api.post(f"{base}/sla/", {"availability": "0.999", "hw_replacement_hours": "200"},
                 format="json")  # fmt: skip
    body = r.json()
    assert r.status_code == 400 and body["outliers"][0]["field"] == "hw_replacement_hours"
    assert "confirm_outliers" in body and not SlaTerms.objects.exists()
    r = api.post(f"{base}/sla/", {"availability": "0.999", "hw_replacement_hours": "200",
                                  "confirm_outliers": True}, format="json")  # fmt: skip
    assert r.status_code == 201, r.content
    r = api.post(f"{base}/data-centres/", {"name": "DC", "power_per_rack_kw": "500"},
                 format="json")  # fmt: skip
    assert r.status_code == 400 and "power_per_rack_kw" in r.json()
    assert not DataCentre.objects.exists()
    r = api.post(f"{base}/data-centres/", {"name": "DC", "power_per_rack_kw": "2"}, format="json")
    assert r.status_code == 400 and r.json()["outliers"][0]["field"] == "power_per_rack_kw"
    dc = api.post(f"{base}/data-centres/", {"name": "DC", "power_per_rack_kw": "40"},
                  format="json")  # fmt: skip
    assert dc.status_code == 201, dc.content
    # a partial update is checked against the stored values
    r = api.patch(f"/api/v1/vendors/{own_vendor.pk}/", {"registered_capital_cny": "5e12"},
                  format="json")  # fmt: skip
    assert r.status_code == 400 and "outliers" in r.json()
    r = api.patch(f"/api/v1/vendors/{own_vendor.pk}/", {"registered_capital_cny": "5000000"},
                  format="json")  # fmt: skip
    assert r.status_code == 200, r.content


def test_the_network_bounds_are_the_quotes_bounds() -> None:
    net = plausibility.VENDOR_BOUNDS["networkprofile"]
    assert net["nic_gbps"] is plausibility.VERSION_BOUNDS["nic_gbps"]
    found = plausibility.vendor_findings("networkprofile", {"nic_gbps": 99_999}.get)
    assert [(f.kind, f.field) for f in found] == [(plausibility.HARD, "nic_gbps")]
    assert "不可能" in found[0].message.zh and "impossible" in found[0].message.en
    assert plausibility.vendor_findings("nosuchthing", {"nic_gbps": 99_999}.get) == []


_WL = {"name": "W", "params_b": 7, "tokens_per_step": 4_000_000, "flops_per_token_factor": 6,
       "grad_bytes": 2, "strategy": "ddp", "overlap": 0.5, "mfu": 0.4}  # fmt: skip


def test_an_unusual_workload_needs_the_checkbox_in_the_form_and_the_flag_in_the_api(
    client_as, api_as, analyst_a
) -> None:  # type: ignore[no-untyped-def]
    page = client_as(analyst_a)
    url = reverse("quotes:workload_create")
    r = page.post(url, {**_WL, "mfu": 0.9})
    html = r.content.decode()
    assert r.status_code in (200, 400) and 'type="checkbox" name="confirm_outliers"' in html
    assert "usual range" in html and not WorkloadProfile.objects.exists()
    r = page.post(url, {**_WL, "mfu": 0.9, "confirm_outliers": "on"})
    assert r.status_code == 302 and WorkloadProfile.objects.get().mfu == 0.9
    api = api_as(analyst_a)
    r = api.post("/api/v1/workloads/", {**_WL, "tokens_per_step": 100}, format="json")
    assert r.status_code == 400 and r.json()["outliers"][0]["field"] == "tokens_per_step"
    r = api.post("/api/v1/workloads/", {**_WL, "params_b": 500_000}, format="json")
    assert r.status_code == 400 and "params_b" in r.json()
    r = api.post("/api/v1/workloads/", {**_WL, "tokens_per_step": 100, "confirm_outliers": True},
                 format="json")  # fmt: skip
    assert r.status_code == 201, r.content
    assert WorkloadProfile.objects.count() == 2
