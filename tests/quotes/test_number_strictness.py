"""Numbers that are not real amounts are refused, confirmation or not: a NIC of 1e-9 Gbit/s,
a repair time of 0 or -0 hours, a set-up fee of "-0", JSON true/false in a number field (DRF read
true as 1.0), and a subnormal 1e-320 in the risk policy."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Role
from quotes.models import Quote
from quotes.testing import make_vendor
from rankings.models import TeamRiskPolicy

pytestmark = pytest.mark.django_db


def _body(vendor, **terms):  # type: ignore[no-untyped-def]
    base = {"gpu": "A100-SXM4-80GB", "gpus_per_node": 8, "nodes": 8,
            "price_per_node_month": "40000", "nic_gbps": 100, "fabric": "roce"}  # fmt: skip
    return {"vendor": vendor.pk, "label": "api", "terms": {**base, **terms}}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("nic_gbps", 1e-9),
        ("repair_hours", 0),
        ("repair_hours", -0.0),
        ("repair_hours", "-0"),
        ("setup_fee", "-0"),
        ("nic_gbps", True),
        ("repair_hours", False),
        ("nic_gbps", 1e-320),
    ],
)
def test_the_quote_api_refuses_a_number_that_is_not_an_amount_even_confirmed(
    team_a, analyst_a, api_as, field, value
) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "V")
    api = api_as(analyst_a)
    for confirm in (False, True):
        body = {**_body(vendor, **{field: value}), "confirm_outliers": confirm}
        r = api.post("/api/v1/quotes/", body, format="json")
        assert r.status_code == 400, (field, value, r.json())
        assert field in r.json()["terms"], r.json()
    assert Quote.objects.count() == 0


def test_a_usual_quote_with_a_repair_time_still_saves(team_a, analyst_a, api_as) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "V")
    r = api_as(analyst_a).post(
        "/api/v1/quotes/", _body(vendor, repair_hours=24, setup_fee="0"), format="json"
    )
    assert r.status_code == 201, r.json()


def test_the_quote_form_refuses_a_nic_of_a_billionth_gbit(team_a, analyst_a, client_as) -> None:  # type: ignore[no-untyped-def]
    from tests.quotes.test_plausible_inputs import _post_data

    vendor = make_vendor(team_a, "V")
    r = client_as(analyst_a).post(
        reverse("quotes:create"), _post_data(vendor, nic_gbps="1e-9", confirm_outliers="on")
    )
    assert r.status_code == 400 and Quote.objects.count() == 0


@pytest.fixture
def admin_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("adam", team_a, Role.ADMIN)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("warning_premium_pct", True),
        ("premium_cap_pct", False),
        ("critical_premium_pct", 1e-320),
        ("info_premium_pct", "1e-320"),
    ],
)
def test_the_risk_policy_api_refuses_booleans_and_subnormal_numbers(
    api_as, admin_a, field, value
) -> None:  # type: ignore[no-untyped-def]
    api = api_as(admin_a)
    r = api.patch("/api/v1/risk-policy/", {field: value}, format="json")
    assert r.status_code == 400 and field in r.json(), r.json()
    assert not TeamRiskPolicy.objects.exists()
    zh = api.patch(
        "/api/v1/risk-policy/", {field: value}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert zh.status_code == 400 and ("数字" in str(zh.json()) or "数值" in str(zh.json()))


def test_the_risk_policy_page_refuses_a_subnormal_premium(admin_a, client_as) -> None:  # type: ignore[no-untyped-def]
    from tests.rankings.test_risk_policy_page import _form

    r = client_as(admin_a).post(reverse("rankings:policy"), _form(warning_premium_pct="1e-320"))
    assert r.status_code == 400 and "1e-320" in r.content.decode()
    assert not TeamRiskPolicy.objects.exists()
