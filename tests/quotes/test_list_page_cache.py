"""The quote list and compare pages keep what they wrote (rows, filter bar, the compare table
and its cost rows) in Django's cache, keyed on every value they read: a change of any of those
values, by any path (a bulk update that never calls save() included), shows at once, and a kept
entry never answers for another language, team or set of options."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.utils import translation

from quotes.filters import QuoteFilter
from quotes.models import GpuModel, Quote, QuoteVersion
from quotes.testing import make_quote, make_vendor
from vendors.models import Vendor

pytestmark = pytest.mark.django_db


def _rows(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr[^>]*>.*?</tr>", body, flags=re.S)


def _getter(client):  # type: ignore[no-untyped-def]
    """get(url, language): the page in that language (the language cookie), answered 200."""

    def get(url: str, lang: str):  # type: ignore[no-untyped-def]
        client.cookies["django_language"] = lang
        response = client.get(url)
        assert response.status_code == 200
        return response

    return get


def test_quote_list_rows_follow_every_change_and_language(team_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Row Cache Cloud")
    quote = make_quote(team_a, analyst_a, vendor, label="rm-1")
    get = _getter(client_as(analyst_a))

    first = get("/quotes/", "en").content.decode()
    assert "Row Cache Cloud" in first and "unverified" in first
    assert _rows(get("/quotes/", "en").content.decode()) == _rows(first)
    # bulk updates (no save(), no signal) of the quote and of its vendor
    Quote.objects.filter(pk=quote.pk).update(measured_typical_gbps=Decimal("87.5"), label="rm-2")
    Vendor.objects.filter(pk=vendor.pk).update(name_en="Renamed Row Cloud")
    again = "".join(_rows(get("/quotes/", "en").content.decode()))
    assert "87.5 Gbit/s" in again and "rm-2" in again and "Renamed Row Cloud" in again
    assert "rm-1" not in again
    # a new version's terms (4 nodes -> 6 nodes) and its number
    v = quote.current_version
    new = QuoteVersion.objects.get(pk=v.pk)
    new.pk, new.number, new.nodes = None, v.number + 1, 6
    new.save()
    Quote.objects.filter(pk=quote.pk).update(current_version=new)
    row = next(r for r in _rows(get("/quotes/", "en").content.decode()) if "rm-2" in r)
    assert f"v{v.number + 1}" in row and f"6 × {v.gpus_per_node} ×" in row
    # the same row in Chinese is written in Chinese, not taken from the English entry
    zh = get("/quotes/", "zh-hans").content.decode()
    zh_row = next(r for r in _rows(zh) if "rm-2" in r)
    assert "对比" in zh_row or "比较" in zh_row
    assert "Compare" not in zh_row


def test_filter_bar_kept_matches_a_fresh_render_and_follows_the_options(team_a, team_b, analyst_a):  # type: ignore[no-untyped-def]
    make_vendor(team_a, "Bar Vendor One")
    make_vendor(team_b, "Other Team Vendor")
    cache.clear()

    def bar(team, data=None) -> str:  # type: ignore[no-untyped-def]
        return str(QuoteFilter(data, queryset=Quote.objects.filter(team=team), team=team).bar())

    def fresh(team, data=None) -> str:  # type: ignore[no-untyped-def]
        f = QuoteFilter(data, queryset=Quote.objects.filter(team=team), team=team)
        return str(f._bar_html())

    with translation.override("en"):
        written = bar(team_a)
        assert written == fresh(team_a)  # a miss writes what the form writes
        assert bar(team_a) == written  # a hit
        assert "Bar Vendor One" in written and "Other Team Vendor" not in written
        assert 'name="gpu"' in written and "H100" in written
        # the other team's bar is its own
        assert "Other Team Vendor" in bar(team_b) and "Bar Vendor One" not in bar(team_b)
        # a new vendor and a new GPU model show at once (bulk_create: no signal)
        make_vendor(team_a, "Bar Vendor Two")
        gpu = GpuModel.objects.first()
        assert gpu is not None
        GpuModel.objects.bulk_create([GpuModel(key="ZZ-TEST-GPU", name="test", tflops_bf16=1,
                                               memory_gb=1, intra_node_gbyte_s=1,
                                               default_mfu=0.4)])  # fmt: skip
        updated = bar(team_a)
        assert "Bar Vendor Two" in updated and "ZZ-TEST-GPU" in updated
        assert updated == fresh(team_a)
        # parameters: the chosen vendor is selected, an invalid value shows its error
        vendor = Vendor.objects.get(name_en="Bar Vendor Two")
        chosen = bar(team_a, {"vendor": str(vendor.pk)})
        assert f'value="{vendor.pk}" selected' in chosen
        assert chosen == fresh(team_a, {"vendor": str(vendor.pk)})
        wrong = bar(team_a, {"min_nic_gbps": "fast"})
        assert 'class="error small"' in wrong
    with translation.override("zh-hans"):
        zh = bar(team_a)
        assert zh == fresh(team_a) and zh != updated
        assert "GPU 型号" in zh or "型号" in zh


def test_compare_page_costs_and_terms_follow_changes(team_a, analyst_a, client_as):  # type: ignore[no-untyped-def]
    import quotes.demo
    import vendors.demo
    from vendors.models import NetworkProfile

    vendors.demo.load(team=team_a, user=analyst_a)
    quotes.demo.load(team=team_a, user=analyst_a)
    current = Quote.objects.filter(team=team_a, is_current=True)
    offers = list(current.filter(data_centre__network__isnull=False).order_by("pk")[:3])
    assert len(offers) == 3
    url = "/quotes/compare/?" + "&".join(f"q={q.pk}" for q in offers)
    get = _getter(client_as(analyst_a))

    def cells(html: str, key: str) -> list[str]:
        row = re.search(rf'<tr[^>]*data-row="{key}".*?</tr>', html, flags=re.S)
        assert row, key
        return re.findall(r"<td[^>]*>(.*?)</td>", row.group(0), flags=re.S)

    first = get(url, "en").content.decode()
    # the page's column of each offer (the page orders them by vendor)
    column = {int(pk): i for i, pk in enumerate(re.findall(r'data-quote="(\d+)"', first))}
    assert sorted(column) == sorted(q.pk for q in offers)
    assert get(url, "en").content.decode().split("<tbody>")[1] == first.split("<tbody>")[1]
    eth, bill = cells(first, "cost_per_eth"), cells(first, "bill")
    lossless = cells(first, "lossless")
    # the GPU table (no save()): a faster GPU changes every offer's cost per ETH (all three
    # rent it), not their bills
    assert {q.current_version.gpu.key for q in offers} == {offers[0].current_version.gpu.key}
    GpuModel.objects.filter(key=offers[0].current_version.gpu.key).update(tflops_bf16=5000)
    second = get(url, "en").content.decode()
    assert all(a != b for a, b in zip(cells(second, "cost_per_eth"), eth, strict=True))
    assert cells(second, "bill") == bill
    # a price change by bulk update (versions are never edited in place, but a stored row is
    # what counts): the bill row follows
    QuoteVersion.objects.filter(pk=offers[1].current_version_id).update(
        price_per_node_month=Decimal("1.00")
    )
    third = get(url, "en").content.decode()
    changed, same = column[offers[1].pk], column[offers[0].pk]
    assert cells(third, "bill")[changed] != bill[changed]
    assert cells(third, "bill")[same] == bill[same]
    assert cells(third, "price_per_node_month")[changed] == "1.00"
    # the network's PFC (another table): the terms' lossless row follows
    dc = offers[2].data_centre
    NetworkProfile.objects.filter(data_centre=dc).update(pfc=None, ecn=None)
    fourth = get(url, "en").content.decode()
    assert cells(fourth, "lossless")[column[offers[2].pk]] == "PFC unknown · ECN unknown"
    assert cells(fourth, "lossless")[same] == lossless[same]
    # Chinese rows are written in Chinese
    zh = get(url, "zh-hans").content.decode()
    assert "Cost per effective training hour" not in zh


def test_a_second_view_of_the_same_rows_takes_them_from_the_cache(
    team_a, analyst_a, client_as, monkeypatch
):  # type: ignore[no-untyped-def]
    from quotes.templatetags import quote_rows as tag

    vendor = make_vendor(team_a, "Kept Rows Cloud")
    make_quote(team_a, analyst_a, vendor, label="kr-1")
    get = _getter(client_as(analyst_a))
    cache.clear()
    first = _rows(get("/quotes/", "en").content.decode())

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("rows written again")

    monkeypatch.setattr(tag, "_quote_row", refuse)
    assert _rows(get("/quotes/", "en").content.decode()) == first
    # kept in Django's cache, nowhere else: emptying it writes the rows again
    cache.clear()
    with pytest.raises(AssertionError, match="rows written again"):
        get("/quotes/", "en")


def test_the_api_list_answers_kept_rows_without_serialising_them(
    team_a, analyst_a, api_as, monkeypatch
):  # type: ignore[no-untyped-def]
    from quotes.api.serializers import QuoteSerializer

    vendor = make_vendor(team_a, "Kept Answers Cloud")
    make_quote(team_a, analyst_a, vendor, label="ka-1")
    api = api_as(analyst_a)
    cache.clear()
    first = api.get("/api/v1/quotes/").json()

    def refuse(self, instance):  # type: ignore[no-untyped-def]
        raise AssertionError("row serialised again")

    monkeypatch.setattr(QuoteSerializer, "to_representation", refuse)
    assert api.get("/api/v1/quotes/").json() == first
    cache.clear()
    with pytest.raises(AssertionError, match="row serialised again"):
        api.get("/api/v1/quotes/")
