"""The quote list page: filters, sorting, paging, thousand separators, team scope, bad input."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from accounts.choices import Role
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor

URL = reverse("quotes:list")


def _labels(response) -> list[str]:  # type: ignore[no-untyped-def]
    return re.findall(r'href="/quotes/\d+/">([^<]+)</a>', response.content.decode())


@pytest.fixture
def quotes(team_a, analyst_a):  # type: ignore[no-untyped-def]
    tcp = make_vendor(team_a, "Cheap TCP", fabric="tcp", gbps=10, pfc=None, ecn=None)
    roce = make_vendor(team_a, "Fast RoCE", fabric="roce", gbps=100)
    h800 = GpuModel.objects.get(key="H800-SXM")
    return {
        # 8 × 40,000 + 3,000 fees = 323,000 CNY
        "tcp": make_quote(team_a, analyst_a, tcp, label="tcp-8n"),
        # 4 × 52,500 + 0 + storage 10 TB × 100 + set-up 12,000 / 12 = 212,000 CNY
        "roce": make_quote(
            team_a, analyst_a, roce, label="roce-4n", nodes=4,
            price_per_node_month=Decimal("52500"), monthly_fees=Decimal("0"),
            storage_tb=Decimal("10"), storage_price_tb_month=Decimal("100"),
            setup_fee=Decimal("12000"), term_months=12, gpu=h800,
        ),
        # 16 × 61,000 + 3,000 = 979,000 CNY, not current
        "old": make_quote(
            team_a, analyst_a, roce, label="roce-16n-old", nodes=16,
            price_per_node_month=Decimal("61000"), is_current=False,
        ),
    }  # fmt: skip


def test_lists_the_teams_quotes_with_rent_grouped_by_thousands(client_as, analyst_a, quotes):
    html = client_as(analyst_a).get(URL).content.decode()
    assert "323,000 CNY" in html and "212,000 CNY" in html and "979,000 CNY" in html
    assert "3 quotes" in html


def test_rent_annotation_matches_the_models_monthly_rent(quotes):  # type: ignore[no-untyped-def]
    from quotes.filters import with_monthly_rent

    for quote in with_monthly_rent(Quote.objects.filter(pk__in=[q.pk for q in quotes.values()])):
        assert quote.rent == quote.current_version.monthly_rent, quote.label


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"fabric": "tcp"}, ["tcp-8n"]),
        ({"gpu": "H800-SXM"}, ["roce-4n"]),
        ({"min_nic_gbps": "40"}, ["roce-4n", "roce-16n-old"]),
        ({"current": "1"}, ["tcp-8n", "roce-4n"]),
        ({"search": "fast"}, ["roce-4n", "roce-16n-old"]),
        ({"search": "16n"}, ["roce-16n-old"]),
        ({"evidence": "measured"}, ["roce-4n"]),
        ({"evidence": "unverified"}, ["tcp-8n", "roce-16n-old"]),
        ({"sort": "rent"}, ["roce-4n", "tcp-8n", "roce-16n-old"]),
        ({"sort": "-rent"}, ["roce-16n-old", "tcp-8n", "roce-4n"]),
        ({"sort": "gpus"}, ["roce-4n", "tcp-8n", "roce-16n-old"]),
        ({"sort": "-nic,rent"}, ["roce-4n", "roce-16n-old", "tcp-8n"]),
    ],
)
def test_filters_and_sorting(client_as, analyst_a, quotes, query, expected):  # type: ignore[no-untyped-def]
    Quote.objects.filter(pk=quotes["roce"].pk).update(
        measured_typical_gbps=91.07, measured_kind="rdma"
    )
    labels = _labels(client_as(analyst_a).get(URL, query))
    if "sort" in query:
        assert labels == expected
    else:
        assert sorted(labels) == sorted(expected)


def test_vendor_filter_offers_only_own_team_vendors(
    client_as, analyst_a, analyst_b, quotes, team_b
):
    other = make_vendor(team_b, "Other team vendor")
    make_quote(team_b, analyst_b, other, label="team-b-quote")
    client = client_as(analyst_a)
    html = client.get(URL).content.decode()
    assert "team-b-quote" not in html and "Other team vendor" not in html
    response = client.get(URL, {"vendor": other.pk})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()  # refused, not silently applied
    assert "team-b-quote" not in response.content.decode()
    mine = quotes["tcp"].vendor_id
    assert _labels(client.get(URL, {"vendor": mine})) == ["tcp-8n"]


@pytest.mark.parametrize(
    "query",
    [
        {"min_nic_gbps": "fast"},
        {"min_nic_gbps": "-5"},
        {"sort": "password"},
        {"gpu": "'; drop table quotes_quote; --"},
        {"page": "99999"},
        {"page": "-1"},
        {"fabric": "<script>"},
        {"search": "\x00" * 3},
    ],
)
def test_bad_filter_values_answer_200_with_a_message(client_as, analyst_a, quotes, query):  # type: ignore[no-untyped-def]
    response = client_as(analyst_a).get(URL, query)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script>" not in html  # a reflected value is escaped
    if set(query) - {"page", "search"}:
        assert "are ignored" in html
    assert Quote.objects.count() == 3


def test_bad_filters_are_explained_in_chinese(client_as, analyst_a, quotes):  # type: ignore[no-untyped-def]
    html = client_as(analyst_a).get(URL, {"min_nic_gbps": "fast"}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = html.content.decode()
    assert "部分筛选条件无法识别" in text


def test_pages_of_twenty_five_or_fifty_and_a_constant_number_of_queries(
    client_as, analyst_a, team_a, django_assert_max_num_queries
):  # type: ignore[no-untyped-def]
    vendors = [make_vendor(team_a, f"V{i}") for i in range(3)]
    for i in range(55):
        make_quote(team_a, analyst_a, vendors[i % 3], label=f"q{i:02d}")
    client = client_as(analyst_a)
    with django_assert_max_num_queries(9) as ctx:
        first = client.get(URL, {"sort": "vendor"})
    few_queries = len(ctx.captured_queries)
    assert len(_labels(first)) == 25 and "1 / 3" in first.content.decode()
    pages = [_labels(client.get(URL, {"sort": "vendor", "page": n})) for n in (2, 3)]
    assert [len(p) for p in pages] == [25, 5]
    seen = _labels(first) + pages[0] + pages[1]
    assert sorted(seen) == sorted(f"q{i:02d}" for i in range(55))  # each quote on one page
    # the vendor order across pages is the order of the whole list
    assert seen == _labels(client.get(URL, {"sort": "vendor", "per_page": "100"}))
    fifty = client.get(URL, {"sort": "vendor", "per_page": "50"})
    assert len(_labels(fifty)) == 50 and "1 / 2" in fifty.content.decode()
    second = client.get(URL, {"sort": "vendor", "per_page": "50", "page": "2"})
    assert len(_labels(second)) == 5 and set(_labels(fifty)).isdisjoint(_labels(second))
    # an unknown page size is reported and the default used
    odd = client.get(URL, {"per_page": "100000"})
    assert odd.status_code == 200 and len(_labels(odd)) == 25
    for i in range(55, 120):
        make_quote(team_a, analyst_a, vendors[i % 3], label=f"q{i:03d}")
    with django_assert_max_num_queries(few_queries):
        client.get(URL)


def test_compare_selected_posts_the_ticked_ids(client_as, analyst_a, quotes):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    html = client.get(URL).content.decode()
    assert f'name="q" value="{quotes["tcp"].pk}"' in html
    compare = client.get(reverse("quotes:compare"), {"q": [quotes["tcp"].pk, quotes["old"].pk]})
    text = compare.content.decode()
    assert "tcp-8n" in text and "roce-16n-old" in text and "roce-4n" not in text


def test_viewer_reads_without_write_buttons(make_user, team_a, client_as, quotes):  # type: ignore[no-untyped-def]
    viewer = make_user("vera", team_a, Role.VIEWER)
    html = client_as(viewer).get(URL).content.decode()
    assert "tcp-8n" in html and reverse("quotes:create") not in html


def test_the_api_filters_searches_and_orders_the_same_quotes(api_as, analyst_a, quotes):  # type: ignore[no-untyped-def]
    Quote.objects.filter(pk=quotes["roce"].pk).update(
        measured_typical_gbps=91.07, measured_kind="rdma"
    )
    api = api_as(analyst_a)

    def labels(**query):  # type: ignore[no-untyped-def]
        response = api.get("/api/v1/quotes/", query)
        assert response.status_code == 200, response.content
        return [row["label"] for row in response.json()["results"]]

    assert labels(measured="true") == ["roce-4n"]
    assert sorted(labels(measured="false")) == ["roce-16n-old", "tcp-8n"]
    assert sorted(labels(min_nic_gbps="40")) == ["roce-16n-old", "roce-4n"]
    assert sorted(labels(search="Fast RoCE")) == ["roce-16n-old", "roce-4n"]
    assert labels(ordering="-current_version__nic_gbps,label") == [
        "roce-16n-old", "roce-4n", "tcp-8n",
    ]  # fmt: skip
    bad = api.get("/api/v1/quotes/", {"min_nic_gbps": "fast"})
    assert bad.status_code == 400 and "min_nic_gbps" in bad.json()


def test_the_api_shows_new_terms_at_once_after_an_edit(api_as, analyst_a, quotes):  # type: ignore[no-untyped-def]
    """Serialised terms are kept per version; an edit is a new version, never the old terms."""
    api = api_as(analyst_a)
    quote = quotes["tcp"]
    url = f"/api/v1/quotes/{quote.pk}/"
    read = api.get(url)
    before = read.json()["terms"]
    assert api.get("/api/v1/quotes/").json()["results"]  # the list serialises (and keeps) too
    r = api.patch(
        url, {"terms": {"price_per_node_month": "41234.00"}}, format="json",
        HTTP_IF_MATCH=read["ETag"],
    )  # fmt: skip
    assert r.status_code == 200, r.content
    after = api.get(url).json()["terms"]
    assert after["number"] == before["number"] + 1 and after["price_per_node_month"] == "41234.00"
    listed = {row["id"]: row for row in api.get("/api/v1/quotes/").json()["results"]}
    assert listed[quote.pk]["terms"] == after
    # each answer is a copy of the kept terms: changing one does not change the next
    from quotes.api.serializers import QuoteTermsSerializer

    version = Quote.objects.get(pk=quote.pk).current_version
    first = QuoteTermsSerializer().to_representation(version)  # as the quote serialiser calls it
    first["nodes"] = -1
    assert QuoteTermsSerializer().to_representation(version)["nodes"] == version.nodes
