"""rail_optimised is yes, no or not stated: another word is refused with a message (form, import),
not stored as "not stated" (the form) or as "no" (the import); the API refuses it as well."""

from __future__ import annotations

import pytest
from django.utils import translation

from quotes.importing import quotes_import
from quotes.models import Quote
from quotes.testing import make_vendor

from .test_v2_inputs import _form

pytestmark = pytest.mark.django_db
MESSAGE = "Say whether the network is rail-optimised: yes, no or not stated."


def test_the_form_refuses_an_unknown_word(team_a):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "V")
    with translation.override("en"):
        bad = _form(vendor, rail_optimised="junk")
        assert not bad.is_valid() and bad.errors["rail_optimised"] == [MESSAGE]
    for word, value in (("true", True), ("false", False), ("unknown", None), ("", None)):
        ok = _form(vendor, rail_optimised=word)
        assert ok.is_valid(), ok.errors
        assert ok.cleaned_data["rail_optimised"] is value


def test_the_import_refuses_an_unknown_word(team_a, analyst_a):  # type: ignore[no-untyped-def]
    make_vendor(team_a, "Imp")
    head = "vendor,label,gpu,gpus_per_node,nodes,price_per_node_month,nic_gbps,fabric,"
    head += "rail_optimised"
    csv = f"{head}\nImp,c,A100-SXM4-80GB,8,8,40000,100,roce,perhaps\n".encode()
    with translation.override("en"):
        report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=csv)
    assert not report.ok and MESSAGE in " ".join(report.errors)
    assert not Quote.objects.exists()
    csv = f"{head}\nImp,c,A100-SXM4-80GB,8,8,40000,100,roce,否\n".encode()
    assert quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=csv).ok
    assert Quote.objects.get(label="c").current_version.rail_optimised is False


def test_the_api_refuses_an_unknown_word(team_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Api")
    terms = {"gpu": "A100-SXM4-80GB", "gpus_per_node": 8, "nodes": 8,
             "price_per_node_month": "40000", "nic_gbps": 100, "fabric": "roce",
             "rail_optimised": "junk"}  # fmt: skip
    r = api_as(analyst_a).post("/api/v1/quotes/", {"vendor": vendor.pk, "label": "a",
                                                   "terms": terms}, format="json")  # fmt: skip
    assert r.status_code == 400 and "rail_optimised" in r.json()["terms"]
    assert not Quote.objects.exists()
