"""Quote create/edit: field-level messages (forms and API), versions, team isolation."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from quotes.forms import QuoteForm
from quotes.models import Quote
from quotes.services import quote_set_measured_bandwidth, quote_update
from quotes.testing import make_quote, make_vendor, quote_data

pytestmark = pytest.mark.django_db


def _post_data(vendor, **over):  # type: ignore[no-untyped-def]
    d = quote_data(vendor)
    d.update(
        vendor=vendor.pk,
        data_centre=d["data_centre"].pk,
        gpu="A100-SXM4-80GB",
        is_current="on",
        term_months=12,
        trial_days=0,
        setup_fee=0,
        storage_tb=0,
        storage_price_tb_month=0,
        public_bandwidth_mbps=0,
        bandwidth_billing="fixed",
        bandwidth_price=0,
    )
    d.update(over)
    return d


def test_the_form_names_each_impossible_field(team_a):
    vendor = make_vendor(team_a, "V")
    form = QuoteForm(
        data=_post_data(
            vendor,
            gpus_per_node=0,
            price_per_node_month=-1,
            availability="1.5",
            gpu="B300-imaginary",
            currency="USD",
        ),
        team=team_a,
    )
    assert not form.is_valid()
    assert {"gpus_per_node", "price_per_node_month", "availability", "gpu", "fx_to_cny"} <= set(
        form.errors
    )
    assert "Unknown GPU" in form.errors["gpu"][0]
    assert "USD" in form.errors["fx_to_cny"][0]


def test_form_messages_come_in_chinese_for_chinese_users(team_a):
    vendor = make_vendor(team_a, "V")
    with translation.override("zh-hans"):
        form = QuoteForm(data=_post_data(vendor, availability="99"), team=team_a)
        assert not form.is_valid()
        assert form.errors["availability"]


def test_the_api_rejects_zero_gpus_with_a_field_message(api_as, analyst_a, team_a):
    vendor = make_vendor(team_a, "V")
    body = {
        "vendor": vendor.pk,
        "label": "x",
        "terms": {
            "gpu": "A100-SXM4-80GB",
            "gpus_per_node": 0,
            "nodes": 8,
            "price_per_node_month": "40000",
            "nic_gbps": 100,
            "fabric": "roce",
        },
    }
    r = api_as(analyst_a).post("/api/v1/quotes/", body, format="json")
    assert r.status_code == 400
    assert "gpus_per_node" in r.json()["terms"]
    body["terms"]["gpus_per_node"] = 8
    body["terms"]["gpu"] = "nope"
    r = api_as(analyst_a).post("/api/v1/quotes/", body, format="json")
    assert r.status_code == 400 and "gpu" in r.json()["terms"]
    body["terms"]["gpu"] = "A100-SXM4-80GB"
    r = api_as(analyst_a).post("/api/v1/quotes/", body, format="json")
    assert r.status_code == 201, r.json()
    assert r.json()["terms"]["number"] == 1


def test_an_edit_adds_a_version_and_keeps_the_old_one(team_a, analyst_a):
    vendor = make_vendor(team_a, "V")
    quote = make_quote(team_a, analyst_a, vendor)
    first = quote.current_version
    v2 = quote_update(quote=quote, user=analyst_a, data={"price_per_node_month": Decimal("39000")})
    assert v2.number == 2 and first.number == 1
    first.refresh_from_db()
    assert first.price_per_node_month == Decimal("40000")
    assert quote.versions.count() == 2


def test_the_edit_page_saves_a_new_version(client_as, analyst_a, team_a):
    vendor = make_vendor(team_a, "V")
    quote = make_quote(team_a, analyst_a, vendor)
    r = client_as(analyst_a).post(
        reverse("quotes:edit", args=[quote.pk]),
        _post_data(vendor, nodes=6, label="edited", revision=quote.revision),
    )
    assert r.status_code == 302
    quote.refresh_from_db()
    assert quote.current_version.number == 2 and quote.current_version.nodes == 6


def test_measured_bandwidth_is_set_by_the_service(team_a, analyst_a):
    quote = make_quote(team_a, analyst_a, make_vendor(team_a, "V"))
    quote_set_measured_bandwidth(
        quote=quote,
        typical_gbps=80.0,
        high_gbps=90.0,
        measured_kind="link",
        test_run_id=12,
    )
    quote.refresh_from_db()
    assert quote.measured_gbps == 80.0 and quote.measured_test_run_id == "12"


def test_another_team_gets_404_on_pages_and_api(client_as, api_as, analyst_a, team_b, analyst_b):
    other = make_quote(team_b, analyst_b, make_vendor(team_b, "Secret B"))
    page = client_as(analyst_a)
    assert page.get(reverse("quotes:detail", args=[other.pk])).status_code == 404
    assert page.get(reverse("quotes:edit", args=[other.pk])).status_code == 404
    assert page.post(reverse("quotes:edit", args=[other.pk]), {"label": "x"}).status_code == 404
    assert "Secret B" not in page.get(reverse("quotes:list")).content.decode()
    assert "Secret B" not in page.get(reverse("quotes:compare")).content.decode()
    api = api_as(analyst_a)
    assert api.get(f"/api/v1/quotes/{other.pk}/").status_code == 404
    assert (
        api.patch(f"/api/v1/quotes/{other.pk}/", {"label": "x"}, format="json").status_code == 404
    )
    assert api.delete(f"/api/v1/quotes/{other.pk}/").status_code == 404
    assert api.get("/api/v1/quotes/").json()["count"] == 0
    body = {
        "vendor": other.vendor_id,
        "label": "x",
        "terms": {
            "gpu": "A100-SXM4-80GB",
            "gpus_per_node": 8,
            "nodes": 8,
            "price_per_node_month": "1",
            "nic_gbps": 100,
            "fabric": "roce",
        },
    }
    assert api.post("/api/v1/quotes/", body, format="json").status_code == 400
    assert Quote.objects.filter(team=team_b).count() == 1


def test_a_viewer_cannot_write(client_as, api_as, viewer_a, team_a, analyst_a):
    quote = make_quote(team_a, analyst_a, make_vendor(team_a, "V"))
    assert api_as(viewer_a).get("/api/v1/quotes/").status_code == 200
    assert (
        api_as(viewer_a)
        .patch(f"/api/v1/quotes/{quote.pk}/", {"label": "x"}, format="json")
        .status_code
        == 403
    )
    page = client_as(viewer_a)
    assert page.get(reverse("quotes:create")).status_code == 403
    assert page.post(reverse("quotes:import")).status_code == 403
    assert page.get(reverse("quotes:workload_create")).status_code == 403


def _queries(fn) -> int:  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return len(ctx.captured_queries)


def test_list_endpoints_and_compare_page_have_pinned_query_counts(
    api_as, client_as, analyst_a, team_a
):
    api, page = api_as(analyst_a), client_as(analyst_a)
    urls = ["/api/v1/quotes/", "/api/v1/workloads/", "/api/v1/gpus/"]
    pages = [reverse("quotes:compare"), reverse("quotes:list")]
    make_quote(team_a, analyst_a, make_vendor(team_a, "V0"))
    page.get(pages[0])
    before = [_queries(lambda u=u: api.get(u)) for u in urls]
    before += [_queries(lambda u=u: page.get(u)) for u in pages]
    for i in range(1, 6):
        make_quote(team_a, analyst_a, make_vendor(team_a, f"V{i}"))
    after = [_queries(lambda u=u: api.get(u)) for u in urls]
    after += [_queries(lambda u=u: page.get(u)) for u in pages]
    assert after == before
    assert max(after) <= 8
    assert api.get("/api/v1/gpus/").status_code == 200
    assert api.get("/api/v1/gpus/H100-SXM/").json()["tflops_bf16"] == 989.0


def test_workload_presets_are_offered(client_as, analyst_a):
    page = client_as(analyst_a)
    html = page.get(reverse("quotes:workload_create") + "?preset=pretrain-70b").content.decode()
    assert "70" in html and "pretrain-13b" in html and "finetune-1node" in html
