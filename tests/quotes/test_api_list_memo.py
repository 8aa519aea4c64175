"""The API lists keep each unchanged row's answer (core.serializer_memo): a row changed in any
way, even by a bulk update that never calls save(), is answered afresh."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quotes.models import Quote
from quotes.testing import make_quote, make_vendor
from vendors.models import Vendor

pytestmark = pytest.mark.django_db


def _by_id(answer) -> dict:  # type: ignore[no-untyped-def,type-arg]
    return {row["id"]: row for row in answer["results"]}


def test_quote_list_rows_follow_bulk_updates_and_new_versions(team_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Memo Compute")
    quote = make_quote(team_a, analyst_a, vendor, label="memo-1")
    api = api_as(analyst_a)
    first = _by_id(api.get("/api/v1/quotes/").json())[quote.pk]
    assert first["measured_gbps"] is None
    assert _by_id(api.get("/api/v1/quotes/").json())[quote.pk] == first  # kept, same answer
    detail = api.get(f"/api/v1/quotes/{quote.pk}/").json()
    assert detail == first  # the list row reads as the detail
    Quote.objects.filter(pk=quote.pk).update(measured_gbps=Decimal("87.5"), label="memo-2")
    again = _by_id(api.get("/api/v1/quotes/").json())[quote.pk]
    assert again["measured_gbps"] == 87.5 and again["label"] == "memo-2"
    # a new version (an edit through the API) shows its terms
    r = api.patch(
        f"/api/v1/quotes/{quote.pk}/", {"terms": {"nodes": 6}}, format="json",
        HTTP_IF_MATCH=f'"{again["revision"]}"',
    )  # fmt: skip
    assert r.status_code == 200, r.content
    row = _by_id(api.get("/api/v1/quotes/").json())[quote.pk]
    assert row["terms"]["nodes"] == 6 and row["terms"]["number"] == first["terms"]["number"] + 1


def test_api_lists_take_a_fixed_number_of_queries(
    team_a, analyst_a, api_as, django_assert_max_num_queries
):  # type: ignore[no-untyped-def]
    vendors = [make_vendor(team_a, f"Q{i}") for i in range(3)]
    for i in range(12):
        make_quote(team_a, analyst_a, vendors[i % 3], label=f"q{i:02d}")
    api = api_as(analyst_a)
    for url in ("/api/v1/quotes/", "/api/v1/quotes/?sort=-rent", "/api/v1/vendors/"):
        api.get(url)
        with django_assert_max_num_queries(4):  # membership, count, page (+ a spare)
            assert api.get(url).status_code == 200


def test_vendor_list_rows_follow_bulk_updates(team_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Memo Vendor")
    api = api_as(analyst_a)
    row = _by_id(api.get("/api/v1/vendors/").json())[vendor.pk]
    assert row["name_en"] == "Memo Vendor" and row["findings_critical"] == 0
    Vendor.objects.filter(pk=vendor.pk).update(findings_critical=2, services=["idc"])
    row = _by_id(api.get("/api/v1/vendors/").json())[vendor.pk]
    assert row["findings_critical"] == 2 and row["services"] == ["idc"]
