"""CSV and XLSX import: all or nothing, the explicit valid-rows choice, row numbers."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from openpyxl import Workbook

from quotes.importing import quotes_import
from quotes.models import Quote
from quotes.testing import make_vendor

pytestmark = pytest.mark.django_db


def _bulk_inserts_in_one_statement() -> bool:
    """PostgreSQL takes a bulk insert of any size in one statement; SQLite caps a statement's
    parameters, so Django splits a large bulk insert into batches (a few queries per table,
    still none per row)."""
    from django.db import connection

    return connection.vendor == "postgresql"


HEADER = [
    "vendor",
    "label",
    "gpu",
    "gpus_per_node",
    "nodes",
    "price_per_node_month",
    "nic_gbps",
    "fabric",
]
GOOD = ["Imp", "good one", "A100-SXM4-80GB", "8", "8", "40000", "100", "roce"]
BAD = ["Imp", "bad one", "A100-SXM4-80GB", "0", "8", "-5", "100", "roce"]


def _csv(*rows) -> bytes:  # type: ignore[no-untyped-def]
    return "\n".join(",".join(r) for r in (HEADER, *rows)).encode()


def test_a_bad_row_stops_the_whole_import_and_names_its_row(team_a, analyst_a):
    make_vendor(team_a, "Imp")
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=_csv(GOOD, BAD))
    assert not report.ok and not report.created
    assert Quote.objects.count() == 0
    assert any(e.startswith("Row 3, gpus_per_node") for e in report.errors)
    assert any("Row 3, price_per_node_month" in e for e in report.errors)


def test_the_valid_rows_are_imported_only_when_asked(team_a, analyst_a):
    make_vendor(team_a, "Imp")
    report = quotes_import(
        team=team_a, user=analyst_a, name="q.csv", raw=_csv(GOOD, BAD), valid_rows=True
    )
    assert len(report.created) == 1 and report.bad_rows == 1
    assert Quote.objects.get().label == "good one"


def test_xlsx_import_through_the_page(client_as, analyst_a, team_a):
    make_vendor(team_a, "Imp")
    wb = Workbook()
    ws = wb.active
    ws.append(HEADER)
    ws.append([*GOOD[:3], 8, 8, 40000, 100, "roce"])
    ws.append(["Unknown vendor", "x", "H999", 8, 8, 1, 100, "roce"])
    buf = io.BytesIO()
    wb.save(buf)
    upload = SimpleUploadedFile("q.xlsx", buf.getvalue())
    r = client_as(analyst_a).post(reverse("quotes:import"), {"file": upload})
    html = r.content.decode()
    assert r.status_code == 200 and "Row 3" in html and Quote.objects.count() == 0
    upload = SimpleUploadedFile("q.xlsx", buf.getvalue())
    r = client_as(analyst_a).post(
        reverse("quotes:import"), {"file": upload, "import_valid_rows": "on"}
    )
    assert Quote.objects.count() == 1


def test_an_unreadable_file_gets_one_clear_message(team_a, analyst_a):
    report = quotes_import(team=team_a, user=analyst_a, name="q.xlsx", raw=b"not a workbook")
    assert report.errors and not report.created


def _many(rows: int) -> bytes:
    """`rows` valid rows over two vendors, their data centres and several GPU models."""
    header = [*HEADER, "data_centre", "currency", "fx_to_cny", "notes"]
    gpus = ("A100-SXM4-80GB", "H800-SXM", "H20")
    lines = [",".join(header)]
    for i in range(rows):
        vendor = ("Imp", "Other")[i % 2]
        usd = i % 5 == 0
        lines.append(",".join([
            vendor, f"offer {i}", gpus[i % 3], "8", str(1 + i % 16),
            str(4200 + i) if usd else str(30000 + i), "100",
            "roce", f"{vendor} DC", "USD" if usd else "CNY", "7.1" if usd else "", f"n{i}",
        ]))  # fmt: skip
    return "\n".join(lines).encode()


def _import_queries(team, user, raw: bytes):  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        report = quotes_import(team=team, user=user, name="q.csv", raw=raw)
    assert report.ok, report.errors[:3]
    return report, len(ctx.captured_queries)


def test_the_import_runs_the_same_queries_for_20_rows_as_for_200(team_a, analyst_a):
    """Lookups once, inserts in bulk: no query per row (2,000 rows took over 120 s with ~45
    queries per row)."""
    make_vendor(team_a, "Imp")
    make_vendor(team_a, "Other")
    small, few = _import_queries(team_a, analyst_a, _many(20))
    large, many = _import_queries(team_a, analyst_a, _many(200))
    assert len(small.created) == 20 and len(large.created) == 200
    assert few <= 12
    assert many == few if _bulk_inserts_in_one_statement() else many < few + 20


def test_imported_quotes_get_their_version_1_like_created_ones(team_a, analyst_a):
    from quotes.models import QuoteVersion

    make_vendor(team_a, "Imp")
    make_vendor(team_a, "Other")
    report, _n = _import_queries(team_a, analyst_a, _many(30))
    quotes = Quote.objects.filter(team=team_a).select_related("current_version", "vendor")
    assert quotes.count() == 30 and {q.pk for q in report.created} == {q.pk for q in quotes}
    for quote in quotes:
        version = quote.current_version
        assert version is not None and version.number == 1 and version.created_by == analyst_a
        assert quote.revision == 1 and not quote.changes.exists()
        i = int(quote.label.split()[1])
        assert (
            version.nodes == 1 + i % 16
            and version.price_per_node_month == (4200 if i % 5 == 0 else 30000) + i
        )
        assert quote.data_centre.name == f"{quote.vendor.name_en} DC"
        assert (version.currency, version.fx_to_cny is not None) == (
            ("USD", True) if i % 5 == 0 else ("CNY", False)
        )
    assert QuoteVersion.objects.filter(quote__team=team_a).count() == 30


def test_a_row_only_the_database_refuses_is_named_and_undoes_the_import(
    team_a, analyst_a, monkeypatch
):
    """If the in-memory rules ever miss a constraint, the bulk insert fails as a whole; the rows
    are then tried one by one so the report still names the row."""
    import quotes.forms
    import quotes.services

    make_vendor(team_a, "Imp")
    monkeypatch.setattr(quotes.forms, "quote_version_errors", lambda v: {})
    monkeypatch.setattr(quotes.services, "quote_version_errors", lambda v: {})
    zero_gpus = ["Imp", "zero", "A100-SXM4-80GB", "0", "8", "40000", "100", "roce"]
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=_csv(GOOD, zero_gpus))
    assert not report.created and Quote.objects.count() == 0
    assert report.errors == ["Row 3: A node needs at least one GPU."]
    report = quotes_import(
        team=team_a, user=analyst_a, name="q.csv", raw=_csv(GOOD, zero_gpus), valid_rows=True
    )
    assert [q.label for q in report.created] == ["good one"] and report.bad_rows == 1
    assert list(Quote.objects.values_list("label", flat=True)) == ["good one"]


def test_unknown_vendors_data_centres_and_gpus_keep_their_messages(team_a, analyst_a, team_b):
    make_vendor(team_a, "Imp")
    foreign = make_vendor(team_b, "Foreign")
    rows = [
        ["Nope", "a", "A100-SXM4-80GB", "8", "8", "40000", "100", "roce"],
        [str(foreign.pk), "b", "A100-SXM4-80GB", "8", "8", "40000", "100", "roce"],
        ["Imp", "c", "H999", "8", "8", "40000", "100", "roce"],
    ]
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=_csv(*rows))
    assert report.errors == [
        "Row 2, vendor: Unknown vendor: choose one of your team's vendors.",
        "Row 3, vendor: Unknown vendor: choose one of your team's vendors.",
        "Row 4, gpu: Unknown GPU model: choose one of the GPU reference table.",
    ]
    header = [*HEADER, "data_centre"]
    raw = "\n".join([",".join(header), ",".join([*GOOD, "Foreign DC"])]).encode()
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=raw)
    assert len(report.errors) == 1 and report.errors[0].startswith("Row 2, data_centre: ")


def test_the_documented_limit_of_2000_rows_imports_in_one_go(team_a, analyst_a):
    from quotes.importing import MAX_ROWS

    make_vendor(team_a, "Imp")
    make_vendor(team_a, "Other")
    _small, few = _import_queries(team_a, analyst_a, _many(5))
    report, queries = _import_queries(team_a, analyst_a, _many(MAX_ROWS))
    assert len(report.created) == MAX_ROWS
    assert queries == few if _bulk_inserts_in_one_statement() else queries < few + 200
    assert Quote.objects.filter(team=team_a, current_version__number=1).count() == MAX_ROWS + 5


PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02"


@pytest.mark.parametrize(
    "raw",
    [
        PNG_HEAD + b"\x00" * 64,
        b"\x89PNG\r\n\x1a\n" + b"vendor,label\n" * 40,
        b"%PDF-1.7\n" + b"x" * 99,
    ],
    ids=["png", "png-header-then-text", "pdf"],
)
def test_a_binary_file_renamed_csv_is_refused_as_not_a_text_file(client_as, analyst_a, team_a, raw):  # type: ignore[no-untyped-def]
    """A PNG renamed .csv was read, its first bytes taken for a header (“塒NG”)."""
    report = quotes_import(team=team_a, user=analyst_a, name="offers.csv", raw=raw)
    assert not report.created and len(report.errors) == 1
    assert "not a text file" in str(report.errors[0])
    upload = SimpleUploadedFile("offers.csv", raw)
    page = client_as(analyst_a).post(
        reverse("quotes:import"), {"file": upload}, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    text = page.content.decode()
    assert "不是文本文件" in text and "塒" not in text
