"""A JSON body that is not an object (`[]`, `5`, `"x"`, `true`, `null`) is a 400 with a JSON
message on every endpoint, never a 500 page: the risk policy's PUT/PATCH merged it as a dict."""

from __future__ import annotations

import pytest

from accounts.models import Role
from rankings.models import TeamRiskPolicy

pytestmark = pytest.mark.django_db

BODIES = ("[]", "5", '"x"', "true", "null")


@pytest.fixture
def admin_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("adam", team_a, Role.ADMIN)


@pytest.mark.parametrize("verb", ["put", "patch"])
@pytest.mark.parametrize("body", BODIES)
def test_the_risk_policy_answers_400_json_to_a_body_that_is_not_an_object(
    api_as, admin_a, verb, body
):  # type: ignore[no-untyped-def]
    api = api_as(admin_a)
    r = getattr(api, verb)("/api/v1/risk-policy/", body, content_type="application/json")
    assert r.status_code == 400, r.content[:200]
    assert r["Content-Type"].startswith("application/json")
    assert "JSON object" in r.json()["detail"]
    assert not TeamRiskPolicy.objects.exists()
    # in Chinese too
    zh = getattr(api, verb)(
        "/api/v1/risk-policy/", body, content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )  # fmt: skip
    assert zh.status_code == 400 and "JSON 对象" in zh.json()["detail"]


@pytest.mark.parametrize(
    ("verb", "url"),
    [
        ("post", "/api/v1/rankings/"),
        ("post", "/api/v1/reports/"),
        ("put", "/api/v1/benchmark-thresholds/"),
        ("patch", "/api/v1/benchmark-thresholds/"),
        ("post", "/api/v1/vendors/"),
    ],
)
@pytest.mark.parametrize("body", BODIES)
def test_every_endpoint_answers_400_json_to_a_body_that_is_not_an_object(
    api_as, admin_a, verb, url, body
):  # type: ignore[no-untyped-def]
    r = getattr(api_as(admin_a), verb)(url, body, content_type="application/json")
    assert r.status_code == 400, (url, r.status_code, r.content[:200])
    assert r["Content-Type"].startswith("application/json")


def test_an_object_body_still_works(api_as, admin_a):  # type: ignore[no-untyped-def]
    api = api_as(admin_a)
    r = api.patch("/api/v1/risk-policy/", {"warning_premium_pct": 3}, format="json")
    assert r.status_code == 200 and r.json()["warning_premium_pct"] == 3.0
