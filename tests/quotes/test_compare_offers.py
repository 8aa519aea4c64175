"""The compare page's offers (rankings.compare.compare_quotes): the chosen quotes (else the
current ones) in vendor order, every linked instance loaded as the ORM loads it, an absent SLA,
data centre or network answered without a query, one query in all on either database (the
README's SQLite and production's PostgreSQL), and nothing of another team."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quotes.models import Quote
from quotes.testing import make_quote, make_vendor
from rankings.compare import compare_quotes
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
    """Each quote and its links read one by one (a query per link)."""
    qs = Quote.objects.filter(team=team, current_version__isnull=False)
    qs = qs.filter(pk__in=ids) if ids else qs.filter(is_current=True)
    return sorted(qs, key=lambda q: (q.vendor.name_zh, q.vendor.name_en, q.label, q.pk))


def test_one_query_loads_every_offer_and_its_links_as_read_one_by_one(
    team_a, team_b, analyst_a, make_user
):  # type: ignore[no-untyped-def]
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
            loaded = compare_quotes(team_a, chosen)
            pictures = [_picture(q) for q in loaded]  # reading every link: no further query
        assert len(queries.captured_queries) == 1
        expected = _orm(team_a, chosen)
        assert [q.pk for q in loaded] == [q.pk for q in expected]
        assert pictures == [_picture(q) for q in expected]
        assert foreign.pk not in {q.pk for q in loaded}
    assert {q.label for q in compare_quotes(team_a, [])} == {"b-full", "a-full-usd", "no-network",
                                                          "no-dc"}  # fmt: skip
    loaded = {q.label: q for q in compare_quotes(team_a, ids)}
    assert loaded["b-full"].vendor.sla.hw_replacement_hours == 4
    assert loaded["b-full"].current_version.outliers_confirmed == ["nodes"]
    assert _related(loaded["no-network"].vendor, "sla") is None
    assert _related(loaded["no-network"].data_centre, "network") is None
    assert loaded["no-dc"].data_centre is None
    assert isinstance(loaded["a-full-usd"].current_version.fx_to_cny, Decimal)
    assert Vendor.objects.filter(pk=bare.pk).exists() and DataCentre.objects.exists()
