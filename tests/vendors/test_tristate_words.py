"""A yes / no / not-stated field of a vendor's SLA or network refuses any other word on the form
(Django read one as "not stated" and the form stored it silently); the API refuses it too."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from vendors.models import SlaTerms, Vendor

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_vendor(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="自有厂商")


def _sla(**over):  # type: ignore[no-untyped-def]
    return {"availability": "0.999", "response_minutes": 30, "hw_replacement_hours": 24,
            "bandwidth_in_contract": "unknown", "compensation_clause": "unknown",
            "state": "claimed", **over}  # fmt: skip


def test_the_sla_form_refuses_a_word_that_is_no_answer(client_as, analyst_a, own_vendor):  # type: ignore[no-untyped-def]
    page = client_as(analyst_a)
    url = reverse("vendors:sla", args=[own_vendor.pk])
    r = page.post(url, _sla(bandwidth_in_contract="junk"), HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 400
    assert r.context["form"].errors["bandwidth_in_contract"] == ["Choose yes, no or not stated."]
    assert not SlaTerms.objects.exists()
    r = page.post(url, _sla(bandwidth_in_contract="true", compensation_clause="false"))
    assert r.status_code == 302
    sla = SlaTerms.objects.get()
    assert (sla.bandwidth_in_contract, sla.compensation_clause) == (True, False)


def test_the_api_refuses_it_too(api_as, analyst_a, own_vendor):  # type: ignore[no-untyped-def]
    with translation.override("en"):
        r = api_as(analyst_a).post(f"/api/v1/vendors/{own_vendor.pk}/sla/",
                                   {"availability": "0.999", "compensation_clause": "junk"},
                                   format="json")  # fmt: skip
    assert r.status_code == 400 and "compensation_clause" in r.json()
    assert not SlaTerms.objects.exists()
