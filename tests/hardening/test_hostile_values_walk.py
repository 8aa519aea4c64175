"""Every field the API writes, walked with hostile values; then every page that shows them.

For each writable resource (vendors and their credentials, data centres, network, SLA, quotes,
workloads, serving workloads, RFQs, risk policy, thresholds) each field of its detail answer is
PATCHed with a string, an object, a list of numbers, a 200 KB string, 1e999, NaN, a lone
surrogate, 5e-324, a negative and a huge number. No answer is a 500, every answer is JSON; then
the pages showing those records answer 200 in both languages. Runs on PostgreSQL and SQLite.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.choices import Role
from quotes.models import GpuModel
from quotes.testing import make_quote, make_vendor, make_workload
from sourcing.services import rfq_create
from vendors.models import Certification, IcpFiling, Licence, SlaTerms

pytestmark = pytest.mark.django_db

HOSTILE = (
    '"a string"',
    '{"an": "object", "GD": 1}',
    "[1, 2, 3]",
    json.dumps("x" * 200_000),
    "1e999",
    "NaN",
    '"\\ud800"',
    "5e-324",
    "-1",
    "1" + "0" * 30,
)
SKIP = {"id", "url", "created_at", "updated_at"}


@pytest.fixture
def admin_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("adam", team_a, Role.ADMIN)


@pytest.fixture
def world(team_a, admin_a, api_as):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Hostile Cloud")
    dc = vendor.data_centres.first()
    w = {
        "vendor": vendor,
        "dc": dc,
        "licence": Licence.objects.create(
            vendor=vendor, number="粤B1-20190001", business_codes=["B11"], coverage_regions=["GD"]
        ),
        "icp": IcpFiling.objects.create(vendor=vendor, number="粤ICP备12345678号"),
        "cert": Certification.objects.create(vendor=vendor, kind="iso27001", number="C-1"),
        "sla": SlaTerms.objects.create(vendor=vendor, availability="0.999"),
        "workload": make_workload(team_a),
    }
    w["quote"] = make_quote(team_a, admin_a, vendor)
    api = api_as(admin_a)
    r = api.post(
        "/api/v1/serving-workloads/",
        {"name": "chat", "params_b": 7, "mean_rps": 5, "peak_rps": 20, "tokens_in": 500,
         "tokens_out": 300, "response_kb": 4, "tokens_per_s_per_replica": 2000},
        format="json",
    )  # fmt: skip
    assert r.status_code == 201, r.content
    w["serving_id"] = r.json()["id"]
    w["rfq"] = rfq_create(
        team=team_a,
        user=admin_a,
        data={
            "title": "hostile rfq", "workload": w["workload"], "nodes": 8,
            "min_internode_gbps": 100, "fabric": "", "term_months": 12,
            "deadline": timezone.now() + timedelta(days=3), "sealed": True, "kit_pairs": 3,
            "gpu_models": [GpuModel.objects.get(key="A100-SXM4-80GB")],
        },
    )  # fmt: skip
    return w


def _api_urls(w) -> list[str]:  # type: ignore[no-untyped-def]
    v = f"/api/v1/vendors/{w['vendor'].pk}"
    return [
        f"{v}/",
        f"{v}/licences/{w['licence'].pk}/",
        f"{v}/icp-filings/{w['icp'].pk}/",
        f"{v}/certifications/{w['cert'].pk}/",
        f"{v}/data-centres/{w['dc'].pk}/",
        f"{v}/data-centres/{w['dc'].pk}/network/{w['dc'].network.pk}/",
        f"{v}/sla/{w['sla'].pk}/",
        f"/api/v1/quotes/{w['quote'].pk}/",
        f"/api/v1/workloads/{w['workload'].pk}/",
        f"/api/v1/serving-workloads/{w['serving_id']}/",
        f"/api/v1/rfqs/{w['rfq'].pk}/",
        "/api/v1/risk-policy/",
        "/api/v1/benchmark-thresholds/",
    ]


def _pages(w) -> list[str]:  # type: ignore[no-untyped-def]
    vendor = w["vendor"]
    child = "vendors:child_edit"
    return [
        reverse("vendors:list"),
        reverse("vendors:detail", kwargs={"pk": vendor.pk}),
        reverse("vendors:edit", kwargs={"pk": vendor.pk}),
        reverse(child, kwargs={"vendor_pk": vendor.pk, "kind": "licence", "pk": w["licence"].pk}),
        reverse(child, kwargs={"vendor_pk": vendor.pk, "kind": "icp", "pk": w["icp"].pk}),
        reverse(
            child, kwargs={"vendor_pk": vendor.pk, "kind": "certification", "pk": w["cert"].pk}
        ),
        reverse(child, kwargs={"vendor_pk": vendor.pk, "kind": "datacentre", "pk": w["dc"].pk}),
        reverse("vendors:sla", kwargs={"vendor_pk": vendor.pk}),
        reverse("vendors:network", kwargs={"dc_pk": w["dc"].pk}),
        reverse("quotes:list"),
        reverse("quotes:detail", kwargs={"pk": w["quote"].pk}),
        reverse("quotes:edit", kwargs={"pk": w["quote"].pk}),
        reverse("quotes:compare") + f"?ids={w['quote'].pk}",
        reverse("quotes:workloads"),
        reverse("quotes:workload_edit", kwargs={"pk": w["workload"].pk}),
        reverse("serving:home"),
        reverse("serving:workload", kwargs={"pk": w["serving_id"]}),
        reverse("serving:workload_edit", kwargs={"pk": w["serving_id"]}),
        reverse("sourcing:list"),
        reverse("sourcing:detail", kwargs={"pk": w["rfq"].pk}),
        reverse("sourcing:edit", kwargs={"pk": w["rfq"].pk}),
        reverse("rankings:policy"),
        reverse("benchmarks:thresholds"),
        reverse("dashboard"),
    ]


def test_every_field_the_api_writes_survives_hostile_values_and_every_page_still_shows(
    world, admin_a, api_as, client
):  # type: ignore[no-untyped-def]
    api = api_as(admin_a)
    wrong: list[str] = []
    for url in _api_urls(world):
        got = api.get(url)
        assert got.status_code == 200, (url, got.status_code)
        fields = [f for f in got.json() if f not in SKIP]
        for field in fields:
            for literal in HOSTILE:
                body = f'{{"{field}": {literal}}}'
                r = api.patch(url, body, content_type="application/json", HTTP_IF_MATCH="*")
                if r.status_code >= 500 or not r["Content-Type"].startswith("application/json"):
                    wrong.append(f"PATCH {url} {field}={literal[:20]} -> {r.status_code}")
    client.force_login(admin_a)
    for page in _pages(world):
        for lang in ("en", "zh-hans"):
            r = client.get(page, HTTP_ACCEPT_LANGUAGE=lang)
            if r.status_code != 200:
                wrong.append(f"GET {page} [{lang}] -> {r.status_code}")
    assert not wrong, "\n".join(wrong)
