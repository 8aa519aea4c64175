"""A licence's coverage regions and a vendor's services hold a list of catalogue codes, checked
by the API, the form and the model; rows stored before are repaired, and the vendor page shows
any stored value (history included) without assuming its shape."""

from __future__ import annotations

import importlib
import json

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError
from django.urls import reverse

from vendors.forms import LicenceForm
from vendors.models import Licence, Vendor

pytestmark = pytest.mark.django_db

BAD_REGIONS = [
    "GD",
    {"GD": True},
    [1, 2],
    ["GD", {"x": 1}],
    ["XX"],
    ["GD", "GD"],
    ["x" * 200_000],
    5,
]


@pytest.fixture
def licence(team_a):  # type: ignore[no-untyped-def]
    vendor = Vendor.objects.create(team=team_a, name_zh="覆盖云", name_en="Coverage Cloud")
    return Licence.objects.create(vendor=vendor, number="粤B1-20190001", coverage_regions=["GD"])


def _url(lic: Licence) -> str:
    return f"/api/v1/vendors/{lic.vendor_id}/licences/{lic.pk}/"


@pytest.mark.parametrize("value", BAD_REGIONS, ids=repr)
def test_the_api_refuses_coverage_regions_that_are_not_catalogue_codes(
    api_as, analyst_a, licence, value
):  # type: ignore[no-untyped-def]
    r = api_as(analyst_a).patch(_url(licence), {"coverage_regions": value}, format="json")
    assert r.status_code == 400, r.content[:200]
    message = r.json()["coverage_regions"][0]
    assert len(message) < 200 and "xxxxxxxxxxxxxxxxx" not in message
    licence.refresh_from_db()
    assert licence.coverage_regions == ["GD"]


def test_the_api_takes_catalogue_codes_and_answers_in_chinese(api_as, analyst_a, licence):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    r = api.patch(_url(licence), {"coverage_regions": ["national", "BJ"]}, format="json")
    assert r.status_code == 200 and r.json()["coverage_regions"] == ["national", "BJ"]
    zh = api.patch(
        _url(licence), {"coverage_regions": ["XX"]}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert zh.status_code == 400 and "不在可选项中" in zh.json()["coverage_regions"][0]


def test_the_model_refuses_a_bad_shape_in_full_clean(licence):  # type: ignore[no-untyped-def]
    licence.coverage_regions = {"GD": 1}
    with pytest.raises(ValidationError) as exc:
        licence.full_clean()
    assert "coverage_regions" in exc.value.message_dict


def test_the_form_keeps_to_the_catalogue(licence):  # type: ignore[no-untyped-def]
    data = {"number": licence.number, "issuer_scope": "provincial", "coverage_regions": ["ZZ"]}
    form = LicenceForm(data=data, instance=licence)
    assert not form.is_valid() and "coverage_regions" in form.errors


@pytest.mark.parametrize("value", [{"GD": True}, 5, "x" * 200_000, [{"a": 1}, ["GD"]], 1.5])
def test_the_vendor_page_shows_a_stored_value_of_any_shape_history_included(
    client_as, analyst_a, licence, value
):  # type: ignore[no-untyped-def]
    """A value written around the model (or before the check existed) must not break the page,
    and putting a valid value back leaves a history row holding the bad one."""
    Licence.objects.filter(pk=licence.pk).update(coverage_regions=value)
    Vendor.objects.filter(pk=licence.vendor_id).update(services=value)
    page = reverse("vendors:detail", kwargs={"pk": licence.vendor_id})
    client = client_as(analyst_a)
    assert client.get(page).status_code == 200
    # the history now holds the bad value next to a good one: the audit trail compares them
    licence.refresh_from_db()
    licence.coverage_regions = ["BJ"]
    licence.save()
    history = Licence.history.filter(id=licence.pk).order_by("history_id")
    first = history.first()
    type(first).objects.filter(pk=first.pk).update(coverage_regions=value)
    for lang in ("en", "zh-hans"):
        r = client.get(page, HTTP_ACCEPT_LANGUAGE=lang)
        assert r.status_code == 200
        assert "x" * 300 not in r.content.decode()
    assert client.get(reverse("vendors:list")).status_code == 200


def test_the_data_migration_repairs_rows_and_history_rows(licence):  # type: ignore[no-untyped-def]
    migration = importlib.import_module("vendors.migrations.0003_json_shapes")
    vendor = licence.vendor
    Licence.objects.filter(pk=licence.pk).update(
        coverage_regions=["gd", "national", 7, {"x": 1}, "XX", "GD"], business_codes={"B11": 1}
    )
    Vendor.objects.filter(pk=vendor.pk).update(services="gpu_rental")
    hist = Licence.history.filter(id=licence.pk).first()
    type(hist).objects.filter(pk=hist.pk).update(coverage_regions={"GD": True})
    migration.repair(apps, None)
    licence.refresh_from_db()
    vendor.refresh_from_db()
    hist.refresh_from_db()
    assert licence.coverage_regions == ["GD", "national"]
    assert licence.business_codes == []
    assert vendor.services == []
    assert hist.coverage_regions == []
    licence.full_clean()  # what was kept passes the check


def test_the_workload_architecture_must_be_a_bounded_object(api_as, analyst_a, team_a):  # type: ignore[no-untyped-def]
    from quotes.testing import make_workload

    workload = make_workload(team_a)
    api = api_as(analyst_a)
    url = f"/api/v1/workloads/{workload.pk}/"
    for value in ("x", 5, [1, 2], {"model": {"layers": "x" * 20_000}}):
        r = api.patch(url, json.dumps({"architecture": value}), content_type="application/json")
        assert r.status_code == 400, (value if len(str(value)) < 50 else "long", r.content[:200])
        assert "architecture" in r.json()
