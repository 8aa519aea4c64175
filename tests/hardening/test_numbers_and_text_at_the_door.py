"""Numbers a float cannot hold and lone surrogates are refused by the API's JSON parser, named
by their field, in the reader's language; every API error is JSON with a stable code."""

from __future__ import annotations

import pytest
from django.test import override_settings
from django.urls import path

from accounts.choices import Role
from vendors.models import Licence, Vendor

pytestmark = pytest.mark.django_db


@pytest.fixture
def vendor(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="测试云", name_en="Test Cloud")


def _post(api, url: str, body: str, lang: str = "en"):  # type: ignore[no-untyped-def]
    return api.post(url, body, content_type="application/json", HTTP_ACCEPT_LANGUAGE=lang)


@pytest.mark.parametrize("literal", ["1e999", "-1e999", "5e-324", "-2e-320", "1" + "0" * 400])
def test_an_exponent_overflow_or_a_subnormal_in_a_foreign_key_is_out_of_range(
    api_as, analyst_a, vendor, literal
):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    body = f'{{"label": "x", "vendor": {literal}, "gpu": "A100-SXM4-80GB"}}'
    r = _post(api, "/api/v1/quotes/", body)
    assert r.status_code == 400, r.content[:300]
    assert "out of range" in r.json()["vendor"][0]
    zh = _post(api, "/api/v1/quotes/", body, "zh-hans")
    assert zh.status_code == 400 and "超出范围" in zh.json()["vendor"][0]


def test_a_subnormal_mean_rps_is_refused(api_as, analyst_a):  # type: ignore[no-untyped-def]
    body = '{"name": "w", "mean_rps": 5e-324}'
    r = _post(api_as(analyst_a), "/api/v1/serving-workloads/", body)
    assert r.status_code == 400
    assert "out of range" in r.json()["mean_rps"][0]


def test_ordinary_small_and_large_numbers_still_parse(api_as, analyst_a):  # type: ignore[no-untyped-def]
    import io

    from core.parsers import BoundedJSONParser

    data = BoundedJSONParser().parse(io.BytesIO(b'{"a": 1e-300, "b": 1.5e308, "c": 0.0, "d": 12}'))
    assert data == {"a": 1e-300, "b": 1.5e308, "c": 0.0, "d": 12}


@pytest.mark.parametrize("text", ['"\\ud800"', '"ok \\udfff"', '["GD", "\\udc00"]'])
def test_a_lone_surrogate_in_a_choice_field_is_refused_without_being_echoed(
    api_as, analyst_a, vendor, text
):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    url = f"/api/v1/vendors/{vendor.pk}/licences/"
    r = _post(api, url, f'{{"number": "B1-20190001", "issuer_scope": {text}}}')
    assert r.status_code == 400, r.content[:300]
    assert r["Content-Type"].startswith("application/json")
    assert "lone surrogate" in r.json()["issuer_scope"][0]
    assert not Licence.objects.exists()


def test_a_lone_surrogate_in_a_key_names_no_field(api_as, analyst_a):  # type: ignore[no-untyped-def]
    r = _post(api_as(analyst_a), "/api/v1/vendors/", '{"\\ud800": 1, "name_en": "x"}')
    assert r.status_code == 400 and set(r.json()) == {"detail", "code"}


def test_a_malformed_body_is_a_json_400_with_a_code(api_as, analyst_a):  # type: ignore[no-untyped-def]
    r = _post(api_as(analyst_a), "/api/v1/vendors/", '{"name_en": "x",')
    assert r.status_code == 400
    assert r.json()["code"] == "parse_error" and r["X-Error-Code"] == "parse_error"


def test_not_found_and_forbidden_carry_a_stable_code(api_as, analyst_a, make_user, team_a):  # type: ignore[no-untyped-def]
    r = api_as(analyst_a).get("/api/v1/vendors/999999/")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    viewer = make_user("vera", team_a, Role.VIEWER)
    r = _post(api_as(viewer), "/api/v1/vendors/", '{"name_en": "x"}')
    assert r.status_code == 403 and r.json()["code"] == "permission_denied"


def test_field_errors_keep_their_shape_and_say_their_code_in_a_header(api_as, analyst_a):  # type: ignore[no-untyped-def]
    r = _post(api_as(analyst_a), "/api/v1/vendors/", '{"founded_year": "abc", "name_en": "x"}')
    assert r.status_code == 400 and "founded_year" in r.json()
    assert r["X-Error-Code"] == "invalid"


def test_an_unexpected_error_in_an_api_view_is_a_json_500(api_as, analyst_a, monkeypatch):  # type: ignore[no-untyped-def]
    from vendors.api import views

    def boom(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("secret internals")

    monkeypatch.setattr(views.VendorViewSet, "list", boom)
    api = api_as(analyst_a)
    api.raise_request_exception = False  # as a server does: the 500 handler answers
    r = api.get("/api/v1/vendors/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 500
    assert r["Content-Type"].startswith("application/json")
    body = r.json()
    assert body["code"] == "server_error" and "secret" not in r.content.decode()
    assert "服务器" in body["detail"]


def _broken_plain_view(request):  # type: ignore[no-untyped-def]
    raise RuntimeError("not a DRF view")


urlpatterns = [path("api/v1/plain-broken/", _broken_plain_view)]
handler500 = "core.views.server_error"


@override_settings(ROOT_URLCONF=__name__)
def test_a_500_outside_drf_under_api_is_json_too(client):  # type: ignore[no-untyped-def]
    client.raise_request_exception = False
    r = client.get("/api/v1/plain-broken/")
    assert r.status_code == 500
    assert r["Content-Type"].startswith("application/json")
    assert r.json()["code"] == "server_error"


def test_a_lone_surrogate_sent_through_a_form_never_reaches_a_page(client_as, analyst_a):  # type: ignore[no-untyped-def]
    """Form bodies are decoded by Django with replacement characters: the encoded surrogate
    (%ED%A0%80) cannot be stored or echoed as one."""
    from django.urls import reverse

    body = "name_zh=%ED%A0%80bad&name_en=Form+Cloud&services=gpu_rental"
    r = client_as(analyst_a).post(
        reverse("vendors:create"), body, content_type="application/x-www-form-urlencoded"
    )
    assert r.status_code in (200, 302)
    for vendor in Vendor.objects.all():
        assert not any("\ud800" <= c <= "\udfff" for c in vendor.name_zh)
    page = client_as(analyst_a).get(reverse("vendors:list"))
    assert page.status_code == 200
