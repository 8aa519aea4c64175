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
