"""Bad values get clear field-level messages in the user's language; nothing is half-saved."""

import pytest
from django.urls import reverse
from django.utils import translation

from domain.credentials import credit_code_check_char
from vendors.models import Licence, Vendor

pytestmark = pytest.mark.django_db

GOOD_CODE_BODY = "91440300MA5DEM002"


def _wrong_check_char_code() -> str:
    good = credit_code_check_char(GOOD_CODE_BODY)
    wrong = "1" if good != "1" else "2"
    return GOOD_CODE_BODY + wrong


def test_the_vendor_form_rejects_a_credit_code_with_a_wrong_check_character(client_as, analyst_a):
    client = client_as(analyst_a)
    response = client.post(
        reverse("vendors:create"),
        {"name_zh": "测试厂商", "credit_code": _wrong_check_char_code()},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 400
    errors = response.context["form"].errors["credit_code"]
    assert errors and any("校验" in e for e in errors)
    assert not Vendor.objects.exists()


def test_the_api_rejects_negative_capital_and_a_bad_credit_code_in_english(api_as, analyst_a):
    response = api_as(analyst_a).post(
        "/api/v1/vendors/",
        {"name_en": "Bad Co", "registered_capital_cny": "-5", "credit_code": "123"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400
    body = response.json()
    assert "registered_capital_cny" in body and "credit_code" in body
    assert "18" in " ".join(body["credit_code"])  # says how long the code must be
    assert not Vendor.objects.exists()


def test_a_vendor_needs_a_name(api_as, analyst_a):
    response = api_as(analyst_a).post(
        "/api/v1/vendors/", {"website": "https://x.example"}, format="json"
    )
    assert response.status_code == 400


@pytest.fixture
def own_vendor(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="自有厂商")


def test_a_malformed_licence_number_is_refused_with_its_reason(client_as, analyst_a, own_vendor):
    client = client_as(analyst_a)
    with translation.override("en"):
        response = client.post(
            reverse("vendors:child_create", args=[own_vendor.pk, "licence"]),
            {"number": "XYZ-12", "issuer_scope": "provincial", "state": "claimed"},
            HTTP_ACCEPT_LANGUAGE="en",
        )
    assert response.status_code == 400
    assert response.context["form"].errors["number"]
    assert not Licence.objects.exists()


def test_expiry_before_issue_is_refused_in_form_and_api(client_as, api_as, analyst_a, own_vendor):
    response = client_as(analyst_a).post(
        reverse("vendors:child_create", args=[own_vendor.pk, "licence"]),
        {
            "number": "粤B1-20190001",
            "issuer_scope": "provincial",
            "state": "claimed",
            "valid_from": "2024-01-01",
            "valid_until": "2023-01-01",
        },
    )
    assert response.status_code == 400
    assert "valid_until" in response.context["form"].errors
    api = api_as(analyst_a).post(
        f"/api/v1/vendors/{own_vendor.pk}/licences/",
        {"number": "粤B1-20190001", "valid_from": "2024-01-01", "valid_until": "2023-01-01"},
        format="json",
    )
    assert api.status_code == 400 and "valid_until" in api.json()
    assert not Licence.objects.exists()


def test_business_codes_outside_the_licence_class_are_refused(api_as, analyst_a, own_vendor):
    response = api_as(analyst_a).post(
        f"/api/v1/vendors/{own_vendor.pk}/licences/",
        {"number": "豫B2-20261089", "business_codes": ["B11"]},
        format="json",
    )
    assert response.status_code == 400 and "business_codes" in response.json()


def test_an_icp_filing_can_be_recorded_as_the_claimed_licence_and_is_flagged(
    api_as, analyst_a, own_vendor
):
    client = api_as(analyst_a)
    created = client.post(
        f"/api/v1/vendors/{own_vendor.pk}/licences/",
        {"number": "滇ICP备2020007656号"},
        format="json",
    )
    assert created.status_code == 201, created.content
    detail = client.get(f"/api/v1/vendors/{own_vendor.pk}/", HTTP_ACCEPT_LANGUAGE="en").json()
    critical = [f for f in detail["findings"] if f["severity"] == "critical"]
    assert any("ICP" in f["message_en"] for f in critical)
    own_vendor.refresh_from_db()
    assert own_vendor.findings_critical >= 1


def test_a_duplicate_sla_is_a_400_not_a_500(api_as, analyst_a, own_vendor):
    client = api_as(analyst_a)
    assert (
        client.post(
            f"/api/v1/vendors/{own_vendor.pk}/sla/", {"availability": "0.999"}, format="json"
        ).status_code
        == 201
    )
    second = client.post(
        f"/api/v1/vendors/{own_vendor.pk}/sla/", {"availability": "0.99"}, format="json"
    )
    assert second.status_code == 400


def test_availability_above_one_is_refused(api_as, analyst_a, own_vendor):
    response = api_as(analyst_a).post(
        f"/api/v1/vendors/{own_vendor.pk}/sla/", {"availability": "1.5"}, format="json"
    )
    assert response.status_code == 400 and "availability" in response.json()
