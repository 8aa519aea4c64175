"""Quote and vendor lists: one FilterSet for page and API (same rows for the same filters),
sortable column headers, CSV / XLSX export of the whole filtered, sorted list (formulas kept as
text), the quote-import template, and the dashboard's red-flag count."""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from quotes.importing import COLUMNS, quotes_import
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor
from tests.reports.downloads import body, download
from vendors.models import DataCentre, Vendor

pytestmark = pytest.mark.django_db

QUOTES = reverse("quotes:list")
VENDORS = reverse("vendors:list")


@pytest.fixture
def world(team_a, team_b, analyst_a, analyst_b):  # type: ignore[no-untyped-def]
    tcp = make_vendor(team_a, "Cheap TCP", fabric="tcp", gbps=10, pfc=None, ecn=None)
    roce = make_vendor(team_a, "=HYPERLINK(1) RoCE", fabric="roce", gbps=100)
    Vendor.objects.filter(pk=roce.pk).update(home_province="GD", findings_critical=2)
    DataCentre.objects.filter(vendor=tcp).update(province="GZ")
    h800 = GpuModel.objects.get(key="H800-SXM")
    quotes = [make_quote(team_a, analyst_a, tcp, label="tcp-8n")]
    quotes.append(make_quote(team_a, analyst_a, roce, label="roce-4n", nodes=4, gpu=h800))
    quotes.append(make_quote(team_a, analyst_a, roce, label="=cmd|' /C calc'!A0", nodes=16,
                             is_current=False))  # fmt: skip
    Quote.objects.filter(pk=quotes[1].pk).update(measured_typical_gbps=Decimal("90"))
    for i in range(30):  # more than one page (25) of the list
        make_quote(team_a, analyst_a, tcp, label=f"bulk-{i:02d}", nodes=1 + i % 5)
    other = make_vendor(team_b, "Other team", fabric="tcp", gbps=10)
    make_quote(team_b, analyst_b, other, label="not ours")
    return {"tcp": tcp, "roce": roce, "other": other}


def _page_ids(client, url, params) -> list[int]:  # type: ignore[no-untyped-def]
    ids: list[int] = []
    for number in range(1, 20):
        response = client.get(url, {**params, "page": number})
        assert response.status_code == 200
        ids += [obj.pk for obj in response.context["page"].object_list]
        if not response.context["page"].has_next():
            return ids
    raise AssertionError("too many pages")


def _api_ids(api, url, params) -> list[int]:  # type: ignore[no-untyped-def]
    response = api.get(url, {**params, "page_size": 500})
    assert response.status_code == 200, response.content
    body = response.json()
    ids = [row["id"] for row in body["results"]]
    while body.get("next"):
        body = api.get(body["next"]).json()
        ids += [row["id"] for row in body["results"]]
    return ids


@pytest.mark.parametrize(
    ("page_params", "api_params"),
    [
        ({}, {}),
        ({"fabric": "tcp"}, {"fabric": "tcp"}),
        ({"gpu": "H800-SXM"}, {"gpu": "H800-SXM"}),
        ({"min_nic_gbps": "40"}, {"min_nic_gbps": "40"}),
        ({"search": "roce"}, {"search": "roce"}),
        ({"evidence": "measured"}, {"measured": "true"}),
        ({"evidence": "unverified"}, {"measured": "false"}),
        ({"current": "1"}, {"is_current": "true"}),
        ({"sort": "-rent"}, {"sort": "-rent"}),
        ({"sort": "gpus", "fabric": "tcp"}, {"sort": "gpus", "fabric": "tcp"}),
    ],
)
def test_quote_page_and_api_return_the_same_rows(  # type: ignore[no-untyped-def]
    client_as, api_as, analyst_a, world, page_params, api_params
):
    page = _page_ids(client_as(analyst_a), QUOTES, page_params)
    api = _api_ids(api_as(analyst_a), "/api/v1/quotes/", {**api_params, **page_params})
    assert page, page_params
    if "sort" in page_params:
        assert page == api
    else:
        assert sorted(page) == sorted(api)
    # the page also accepts the API's names (aliases) and gives the same rows
    alias = _page_ids(client_as(analyst_a), QUOTES, api_params)
    assert sorted(alias) == sorted(page)


def test_quote_vendor_filter_is_the_same_team_scoped_filter_on_page_and_api(  # type: ignore[no-untyped-def]
    client_as, api_as, analyst_a, world
):
    own = world["roce"].pk
    assert sorted(_page_ids(client_as(analyst_a), QUOTES, {"vendor": own})) == sorted(
        _api_ids(api_as(analyst_a), "/api/v1/quotes/", {"vendor": own})
    )
    # another team's vendor is not a choice on either
    response = client_as(analyst_a).get(QUOTES, {"vendor": world["other"].pk})
    assert "vendor" in response.context["filter"].form.errors
    assert (
        api_as(analyst_a).get("/api/v1/quotes/", {"vendor": world["other"].pk}).status_code == 400
    )


@pytest.mark.parametrize(
    ("page_params", "api_params"),
    [
        ({}, {}),
        ({"q": "cheap"}, {"search": "cheap"}),
        ({"province": "GD"}, {"province": "GD"}),  # registered there
        ({"province": "GZ"}, {"province": "GZ"}),  # a data centre there
        ({"fabric": "roce"}, {"fabric": "roce"}),
        ({"findings": "critical"}, {"has_critical": "true"}),
        ({"sort": "-name"}, {"sort": "-name"}),
    ],
)
def test_vendor_page_and_api_return_the_same_rows(  # type: ignore[no-untyped-def]
    client_as, api_as, analyst_a, world, page_params, api_params
):
    page = _page_ids(client_as(analyst_a), VENDORS, page_params)
    api = _api_ids(api_as(analyst_a), "/api/v1/vendors/", api_params)
    assert page
    assert (page == api) if "sort" in page_params else (sorted(page) == sorted(api))
    assert world["other"].pk not in page


def test_province_means_a_data_centre_or_the_registration_on_both(  # type: ignore[no-untyped-def]
    api_as, analyst_a, world
):
    assert _api_ids(api_as(analyst_a), "/api/v1/vendors/", {"province": "GD"}) == [world["roce"].pk]
    assert _api_ids(api_as(analyst_a), "/api/v1/vendors/", {"province": "GZ"}) == [world["tcp"].pk]


def test_sortable_headers_keep_filters_toggle_order_and_show_an_arrow(  # type: ignore[no-untyped-def]
    client_as, analyst_a, world
):
    client = client_as(analyst_a)
    html = client.get(QUOTES, {"fabric": "tcp", "page": "2"}).content.decode()
    link = re.search(r'<th class="num"><a class="sort" href="\?([^"]+)"', html)
    assert link is not None
    assert "fabric=tcp" in link.group(1) and "sort=rent" in link.group(1)
    assert "page=" not in link.group(1)  # a new order starts on page 1
    html = client.get(QUOTES, {"fabric": "tcp", "sort": "rent"}).content.decode()
    th = re.search(r'<th class="num" aria-sort="ascending"><a class="sort" href="\?([^"]+)"[^>]*>'
                   r'([^<]+) <span aria-hidden="true">▲</span>', html)  # fmt: skip
    assert th is not None and "sort=-rent" in th.group(1)
    html = client.get(QUOTES, {"sort": "-rent"}).content.decode()
    assert 'aria-sort="descending"' in html and "▼" in html
    html = client.get(VENDORS, {"sort": "name"}).content.decode()
    assert 'aria-sort="ascending"' in html and "sort=-name" in html


def test_vendor_rows_list_every_data_centre_one_per_line(client_as, analyst_a, world):  # type: ignore[no-untyped-def]
    DataCentre.objects.create(vendor=world["tcp"], name="Second <b>DC</b>", city="")
    html = client_as(analyst_a).get(VENDORS, {"q": "cheap"}).content.decode()
    row = html[html.index("Cheap TCP") :]
    row = row[: row.index("</tr>")]
    assert "Cheap TCP DC (" in row and "<br>Second &lt;b&gt;DC&lt;/b&gt; (" in row
    assert "&lt;br&gt;" not in row


def _csv_rows(response) -> list[list[str]]:  # type: ignore[no-untyped-def]
    assert getattr(response, "status_code", 200) == 200, response.status_code
    return list(csv.reader(io.StringIO(body(response).decode("utf-8-sig"))))


def test_quote_export_has_every_page_in_the_pages_order_and_escapes_formulas(  # type: ignore[no-untyped-def]
    client_as, analyst_a, world
):
    client = client_as(analyst_a)
    params = {"sort": "-gpus", "fabric": "roce", "page": "1"}
    rows = _csv_rows(download(client, reverse("quotes-export", args=["csv"]), params))
    assert rows[0][:2] == ["Vendor", "Quote"]
    assert [r[1] for r in rows[1:]] == ["'=cmd|' /C calc'!A0", "roce-4n"]
    assert rows[1][0] == "'=HYPERLINK(1) RoCE"
    everything = _csv_rows(download(client, reverse("quotes-export", args=["csv"])))
    assert len(everything) == 1 + 33  # all pages, the team's quotes only
    assert "not ours" not in {r[1] for r in everything}

    response = download(client, reverse("quotes-export", args=["xlsx"]), {"sort": "label"})
    assert response["Content-Disposition"].startswith("attachment;")
    ws = load_workbook(io.BytesIO(body(response))).worksheets[0]
    labels = [row[1] for row in ws.iter_rows(min_row=2, values_only=True)]
    assert labels == sorted(labels) and len(labels) == 33
    cell = next(c for c in ws["B"] if c.value == "=cmd|' /C calc'!A0")
    assert cell.data_type == "s"  # text, not a formula


def test_exports_are_in_the_users_language(client_as, analyst_a, world):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    client.cookies["django_language"] = "zh-hans"
    rows = _csv_rows(
        download(client, reverse("quotes-export", args=["csv"]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    )
    assert rows[0][0] == "厂商"
    rows = _csv_rows(
        download(client, reverse("vendors-export", args=["csv"]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    )
    assert rows[0][0] == "厂商"


def test_vendor_export_follows_the_filters(client_as, analyst_a, world):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    rows = _csv_rows(download(client, reverse("vendors-export", args=["csv"]), {"fabric": "tcp"}))
    assert [r[0] for r in rows[1:]] == ["Cheap TCP"]
    response = download(client, reverse("vendors-export", args=["xlsx"]), {"findings": "critical"})
    ws = load_workbook(io.BytesIO(body(response))).worksheets[0]
    assert [r[0] for r in ws.iter_rows(min_row=2, values_only=True)] == ["=HYPERLINK(1) RoCE"]
    assert ws["A2"].data_type == "s"
    assert client.get("/vendors/export.pdf").status_code == 404


def test_other_team_cannot_see_rows_in_exports(client_as, analyst_b, world):  # type: ignore[no-untyped-def]
    rows = _csv_rows(download(client_as(analyst_b), reverse("vendors-export", args=["csv"])))
    assert [r[0] for r in rows[1:]] == ["Other team"]


def test_import_template_has_the_exact_columns_and_an_example_that_imports(  # type: ignore[no-untyped-def]
    client_as, analyst_a, team_a, world
):
    # the example row names the team's first vendor (a CSV cell starting like a formula would
    # be escaped on the way out, so this test's "=HYPERLINK" vendor is renamed)
    Vendor.objects.filter(pk=world["roce"].pk).update(name_zh="Z RoCE", name_en="Z RoCE")
    client = client_as(analyst_a)
    page = client.get(reverse("quotes:import")).content.decode()
    assert reverse("quotes:import_template", args=["xlsx"]) in page
    assert reverse("quotes:import_template", args=["csv"]) in page
    raw = client.get(reverse("quotes:import_template", args=["csv"])).content
    rows = _csv_rows(type("R", (), {"content": raw}))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 2
    before = Quote.objects.count()
    report = quotes_import(team=team_a, user=analyst_a, name="t.csv", raw=raw)
    assert report.ok, report.errors
    assert Quote.objects.count() == before + 1

    raw = client.get(reverse("quotes:import_template", args=["xlsx"])).content
    wb = load_workbook(io.BytesIO(raw))
    first = list(wb.worksheets[0].iter_rows(values_only=True))
    assert tuple(first[0]) == COLUMNS and len(first) == 2
    help_rows = list(wb.worksheets[1].iter_rows(values_only=True))
    assert [r[0] for r in help_rows[1:]] == list(COLUMNS)
    assert re.search(r"[\u4e00-\u9fff]", help_rows[1][2])  # the Chinese column is Chinese
    report = quotes_import(team=team_a, user=analyst_a, name="t.xlsx", raw=raw)
    assert report.ok, report.errors


def test_dashboard_count_agrees_with_the_list(client_as, analyst_a, team_a, world):  # type: ignore[no-untyped-def]
    html = client_as(analyst_a).get(reverse("dashboard")).content.decode()
    section = html[html.index('id="red-flags"') :]
    section = section[: section.index("</section>")]
    assert "1 of 2 vendors" in section
    assert section.count('class="badge critical"') == 1
    assert f"{VENDORS}?findings=critical" in section


def test_list_pages_keep_a_fixed_number_of_queries(  # type: ignore[no-untyped-def]
    client_as, analyst_a, world, django_assert_max_num_queries
):
    client = client_as(analyst_a)
    client.get(QUOTES)
    with django_assert_max_num_queries(12):
        client.get(QUOTES, {"sort": "-rent", "vendor": world["tcp"].pk})
    with django_assert_max_num_queries(10):
        client.get(VENDORS, {"sort": "-findings", "province": "GD"})
    # the download only stores its job (the file is built by the worker, outside the request)
    with django_assert_max_num_queries(10):
        assert client.get(reverse("quotes-export", args=["csv"])).status_code == 202
    with django_assert_max_num_queries(10):
        assert client.get(reverse("vendors-export", args=["xlsx"])).status_code == 202
