"""The compare page's one-statement loader (quotes.compare_rows) gives what the ORM gives: the
same quotes in the same order, every column of every linked instance equal, absent SLA, data
centre and network answered without a query, one query in all, and nothing of another team."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quotes.compare_rows import offers
from quotes.models import Quote
from quotes.testing import make_quote, make_vendor
from vendors.models import DataCentre, NetworkProfile, SlaTerms, Vendor

pytestmark = pytest.mark.django_db


def _columns(obj) -> dict | None:  # type: ignore[no-untyped-def,type-arg]
    if obj is None:
        return None
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def _related(obj, name: str):  # type: ignore[no-untyped-def]
    try:
        return getattr(obj, name)
    except (SlaTerms.DoesNotExist, NetworkProfile.DoesNotExist):
        return None


def _picture(q: Quote) -> list:  # type: ignore[type-arg]
    dc = q.data_centre if q.data_centre_id else None
    return [
        _columns(q), _columns(q.current_version), _columns(q.current_version.gpu),
        _columns(q.vendor), _columns(_related(q.vendor, "sla")), _columns(dc),
        _columns(_related(dc, "network") if dc is not None else None),
    ]  # fmt: skip


def _orm(team, ids):  # type: ignore[no-untyped-def]
    qs = (
        Quote.objects.filter(team=team, current_version__isnull=False)
        .select_related("vendor__sla", "current_version__gpu", "data_centre__network")
        .order_by("vendor__name_zh", "vendor__name_en", "label", "pk")
    )  # fmt: skip
    return list(qs.filter(pk__in=ids) if ids else qs.filter(is_current=True))


def test_every_column_of_every_instance_equals_the_orm(team_a, team_b, analyst_a, make_user):  # type: ignore[no-untyped-def]
    full = make_vendor(team_a, "Full Vendor")
    SlaTerms.objects.create(vendor=full, availability=Decimal("0.999"), hw_replacement_hours=4)
    no_network = make_vendor(team_a, "No Network Vendor")
    NetworkProfile.objects.filter(data_centre__vendor=no_network).delete()
    bare = make_vendor(team_a, "Bare Vendor")
    quotes = [
        make_quote(team_a, analyst_a, full, label="b-full", outliers_confirmed=["nodes"]),
        make_quote(team_a, analyst_a, full, label="a-full-usd", currency="USD",
                   fx_to_cny=Decimal("7.1"), prices_include_vat=False, vat_rate=6),
        make_quote(team_a, analyst_a, no_network, label="no-network"),
        make_quote(team_a, analyst_a, bare, label="no-dc", data_centre=None),
        make_quote(team_a, analyst_a, bare, label="old", is_current=False),
    ]  # fmt: skip
    other = make_vendor(team_b, "Other Team")
    foreign = make_quote(team_b, make_user("bob-rows", team_b), other, label="foreign")
    ids = [q.pk for q in quotes] + [foreign.pk]
    for chosen in (ids, []):
        with CaptureQueriesContext(connection) as queries:
            loaded = offers(team_a.pk, chosen)
            pictures = [_picture(q) for q in loaded]  # reading every link: no further query
        assert len(queries.captured_queries) == 1
        expected = _orm(team_a, chosen)
        assert [q.pk for q in loaded] == [q.pk for q in expected]
        assert pictures == [_picture(q) for q in expected]
        assert foreign.pk not in {q.pk for q in loaded}
    assert {q.label for q in offers(team_a.pk, [])} == {"b-full", "a-full-usd", "no-network",
                                                          "no-dc"}  # fmt: skip
    loaded = {q.label: q for q in offers(team_a.pk, ids)}
    assert loaded["b-full"].vendor.sla.hw_replacement_hours == 4
    assert loaded["b-full"].current_version.outliers_confirmed == ["nodes"]
    assert _related(loaded["no-network"].vendor, "sla") is None
    assert _related(loaded["no-network"].data_centre, "network") is None
    assert loaded["no-dc"].data_centre is None
    assert isinstance(loaded["a-full-usd"].current_version.fx_to_cny, Decimal)
    assert Vendor.objects.filter(pk=bare.pk).exists() and DataCentre.objects.exists()
