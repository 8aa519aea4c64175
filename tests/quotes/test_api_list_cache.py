"""The API lists keep each unchanged row's answer in the cache (core.serializer_cache): a row
changed in any way, even by a bulk update that never calls save(), is answered afresh."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.cache import cache
from rest_framework.renderers import JSONRenderer

from quotes.api.serializers import QuoteSerializer
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
    Quote.objects.filter(pk=quote.pk).update(measured_typical_gbps=Decimal("87.5"), label="memo-2")
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


def test_the_value_row_list_answers_as_the_serializer_does(
    team_a, analyst_a, api_as, django_assert_max_num_queries
):  # type: ignore[no-untyped-def]
    """The list reads its rows as values and answers from the cache (quotes.api.serializers.
    quote_list_answers): cold, warm and after changes it answers exactly what serialising the
    instances answers."""
    vendors = [make_vendor(team_a, f"Value Row {i}") for i in range(3)]
    quotes = [make_quote(team_a, analyst_a, vendors[i % 3], label=f"vr{i:02d}") for i in range(7)]
    make_quote(team_a, analyst_a, vendors[0], label="vr-usd", currency="USD",
               fx_to_cny=Decimal("7.1"), data_centre=None)  # fmt: skip
    Quote.objects.filter(pk=quotes[1].pk).update(
        measured_typical_gbps=Decimal("93.4"), measured_kind="link"
    )
    api = api_as(analyst_a)

    def truth() -> list:  # type: ignore[type-arg]
        rows = Quote.objects.filter(team=team_a).select_related("current_version__gpu")
        cache.clear()
        return QuoteSerializer(list(rows.order_by("pk")), many=True, context={"team": team_a}).data

    def answer() -> list:  # type: ignore[type-arg]
        r = api.get("/api/v1/quotes/")
        assert r.status_code == 200
        return r.json()["results"]

    expected = [dict(row) for row in truth()]
    cache.clear()
    cold = answer()
    warm = answer()
    as_json = api.get("/api/v1/quotes/").json()["results"]
    assert cold == warm == as_json
    assert [r["id"] for r in cold] == [q["id"] for q in expected]
    # the JSON of the value-row path equals the JSON of serialising instances
    render = JSONRenderer().render
    assert json.loads(render(cold)) == json.loads(render(expected))
    # a quote row changed by a bulk update, another quote moved to a new version
    Vendor.objects.filter(pk=vendors[2].pk).update(name_en="renamed")  # not in a quote row
    Quote.objects.filter(pk=quotes[2].pk).update(label="vr-renamed")
    r = api.patch(
        f"/api/v1/quotes/{quotes[3].pk}/", {"terms": {"nodes": 3}}, format="json",
        HTTP_IF_MATCH=f'"{Quote.objects.get(pk=quotes[3].pk).revision}"',
    )  # fmt: skip
    assert r.status_code == 200, r.content
    changed = answer()
    assert json.loads(render(changed)) == json.loads(render(truth()))
    by_id = {row["id"]: row for row in changed}
    assert by_id[quotes[2].pk]["label"] == "vr-renamed"
    assert by_id[quotes[3].pk]["terms"]["nodes"] == 3
    assert by_id[quotes[1].pk]["measured_gbps"] == 93.4
    answer()
    with django_assert_max_num_queries(4):  # membership, count, page (+ a spare)
        answer()
