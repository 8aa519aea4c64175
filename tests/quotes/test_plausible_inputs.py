"""Plausible inputs and VAT terms through the quote form, the API and the importer: hard bounds
are errors, soft ones need a confirmation that is stored on the version; bad VAT terms get a
clear message in both languages; nothing is half-saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotes.importing import quotes_import
from quotes.models import Quote
from quotes.testing import make_vendor, quote_data

pytestmark = pytest.mark.django_db


def _post_data(vendor, **over):  # type: ignore[no-untyped-def]
    d = quote_data(vendor)
    d.update(
        vendor=vendor.pk, data_centre=d["data_centre"].pk, gpu="A100-SXM4-80GB", is_current="on",
        term_months=12, trial_days=0, setup_fee=0, storage_tb=0, storage_price_tb_month=0,
        public_bandwidth_mbps=0, bandwidth_billing="fixed", bandwidth_price=0, currency="CNY",
        prices_include_vat="unknown", vat_rate="", invoice_type="",
    )  # fmt: skip
    d.update(over)
    return d


def test_the_form_refuses_an_impossible_nic_and_asks_to_confirm_an_unusual_price(
    team_a, analyst_a, client_as
) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "V")
    page = client_as(analyst_a)
    url = reverse("quotes:create")
    r = page.post(url, _post_data(vendor, nic_gbps=99_999))
    assert r.status_code == 400 and "99,999" in r.content.decode()
    assert Quote.objects.count() == 0
    r = page.post(url, _post_data(vendor, price_per_node_month=400))
    html = r.content.decode()
    assert r.status_code == 400 and 'type="checkbox" name="confirm_outliers"' in html
    assert "I confirm these unusual values" in html and "usual range" in html
    assert Quote.objects.count() == 0
    r = page.post(url, _post_data(vendor, price_per_node_month=400, confirm_outliers="on"))
    assert r.status_code == 302
    confirmed = Quote.objects.get().current_version.outliers_confirmed
    assert [o["field"] for o in confirmed] == ["price_per_node_month"]
    assert confirmed[0]["zh"] and confirmed[0]["en"]
    # a normal quote shows no checkbox at all
    assert 'type="checkbox" name="confirm_outliers"' not in page.get(url).content.decode()
    zh = page.post(url, _post_data(vendor, price_per_node_month=400),
                   HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert "常见范围" in zh.content.decode()


def test_the_form_takes_vat_terms_and_refuses_a_rate_without_basis(
    team_a, analyst_a, client_as
) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "V")
    page = client_as(analyst_a)
    url = reverse("quotes:create")
    r = page.post(url, _post_data(vendor, vat_rate="6"))
    assert r.status_code == 400 and "whether the prices include VAT" in r.content.decode()
    r = page.post(url, _post_data(vendor, vat_rate="6"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "未说明价格是否含税" in r.content.decode()
    r = page.post(url, _post_data(vendor, prices_include_vat="true", vat_rate="6",
                                  invoice_type="fapiao"))  # fmt: skip
    assert r.status_code == 400 and "Unknown invoice type" in r.content.decode()
    assert Quote.objects.count() == 0
    r = page.post(url, _post_data(vendor, prices_include_vat="true", vat_rate="6",
                                  invoice_type="special"))  # fmt: skip
    assert r.status_code == 302
    v = Quote.objects.get().current_version
    assert (v.prices_include_vat, v.vat_rate, v.invoice_type) == (True, 6, "special")


def _body(vendor, **terms):  # type: ignore[no-untyped-def]
    base = {"gpu": "A100-SXM4-80GB", "gpus_per_node": 8, "nodes": 8,
            "price_per_node_month": "40000", "nic_gbps": 100, "fabric": "roce"}  # fmt: skip
    return {"vendor": vendor.pk, "label": "api", "terms": {**base, **terms}}


def test_the_api_needs_confirm_outliers_for_unusual_values(team_a, analyst_a, api_as) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "V")
    api = api_as(analyst_a)
    r = api.post("/api/v1/quotes/", _body(vendor, nic_gbps=99_999), format="json")
    assert r.status_code == 400 and "nic_gbps" in r.json()["terms"]
    r = api.post("/api/v1/quotes/", _body(vendor, term_months=90), format="json")
    assert r.status_code == 400
    assert [o["field"] for o in r.json()["outliers"]] == ["term_months"]
    assert r.json()["confirm_outliers"]
    assert Quote.objects.count() == 0
    body = {**_body(vendor, term_months=90), "confirm_outliers": True}
    r = api.post("/api/v1/quotes/", body, format="json")
    assert r.status_code == 201, r.json()
    assert [o["field"] for o in r.json()["terms"]["outliers_confirmed"]] == ["term_months"]


def test_the_api_takes_vat_terms_with_clear_errors(team_a, analyst_a, api_as) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "V")
    api = api_as(analyst_a)
    r = api.post("/api/v1/quotes/", _body(vendor, invoice_type="fapiao"), format="json")
    assert r.status_code == 400 and "专票" in r.json()["terms"]["invoice_type"][0]
    r = api.post("/api/v1/quotes/", _body(vendor, vat_rate=6), format="json")
    assert r.status_code == 400 and "prices_include_vat" in r.json()["terms"]
    r = api.post("/api/v1/quotes/", _body(vendor, vat_rate=7, prices_include_vat=True),
                 format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400 and "vat_rate" in r.json()["terms"]
    r = api.post(
        "/api/v1/quotes/",
        _body(vendor, vat_rate=13, prices_include_vat=False, invoice_type="ordinary"),
        format="json",
    )
    assert r.status_code == 201
    assert r.json()["terms"]["invoice_type"] == "ordinary"


HEADER = "vendor,label,gpu,gpus_per_node,nodes,price_per_node_month,nic_gbps,fabric,"
HEADER += "prices_include_vat,vat_rate,invoice_type,confirm_outliers"


def test_the_import_takes_vat_words_and_needs_confirmed_outliers(team_a, analyst_a) -> None:  # type: ignore[no-untyped-def]
    make_vendor(team_a, "Imp")
    rows = [
        "Imp,a,A100-SXM4-80GB,8,8,45200,100,roce,含税,13%,专票,",
        "Imp,b,A100-SXM4-80GB,8,8,400,100,roce,不含税,6,普票,",
    ]
    raw = "\n".join([HEADER, *rows]).encode()
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=raw)
    assert not report.created and Quote.objects.count() == 0
    assert any(e.startswith("Row 3, confirm_outliers") for e in report.errors), report.errors
    assert any(e.startswith("Row 3: Some values are unusual") for e in report.errors)
    assert not any("__all__" in e for e in report.errors)
    raw = "\n".join([HEADER, rows[0], rows[1] + "yes"]).encode()
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=raw)
    assert report.ok, report.errors
    a, b = (q.current_version for q in sorted(report.created, key=lambda q: q.label))
    assert (a.prices_include_vat, a.vat_rate, a.invoice_type) == (True, 13, "special")
    assert (b.prices_include_vat, b.vat_rate, b.invoice_type) == (False, 6, "ordinary")
    assert [o["field"] for o in b.outliers_confirmed] == ["price_per_node_month"]
    bad = "\n".join([HEADER, "Imp,c,A100-SXM4-80GB,8,8,40000,100,roce,maybe,6,专票,"]).encode()
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=bad)
    assert any("prices_include_vat" in e for e in report.errors), report.errors


def test_the_workload_form_refuses_an_impossible_model_size(team_a) -> None:  # type: ignore[no-untyped-def]
    from quotes.forms import WorkloadForm

    data = {"name": "huge", "params_b": 1e6, "tokens_per_step": 4_000_000, "strategy": "ddp",
            "overlap": 0.5, "flops_per_token_factor": 6, "grad_bytes": 2}  # fmt: skip
    form = WorkloadForm(data=data)
    assert not form.is_valid() and "impossible" in form.errors["params_b"][0]
    form = WorkloadForm(data={**data, "params_b": 70})
    assert form.is_valid(), form.errors


def test_an_import_with_an_unusual_value_leaves_the_quote_form_as_it_was(
    team_a, analyst_a, client_as
) -> None:  # type: ignore[no-untyped-def]
    """Import row forms share QuoteForm's declared fields: asking to confirm an unusual value
    in an import once showed the checkbox on every later quote form of the process."""
    from quotes.importing import quotes_import

    make_vendor(team_a, "Imp")
    head = "vendor,label,gpu,gpus_per_node,nodes,price_per_node_month,nic_gbps,fabric"
    raw = f"{head}\nImp,cheap,A100-SXM4-80GB,8,8,400,100,roce\n".encode()
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=raw)
    assert not report.ok and "usual range" in " ".join(report.errors)
    page = client_as(analyst_a).get(reverse("quotes:create")).content.decode()
    assert 'type="checkbox" name="confirm_outliers"' not in page
