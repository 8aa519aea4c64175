"""Lists as CSV or XLSX downloads: a header row, then one row per record, every text cell kept
as text (a cell starting like a formula never runs as one in a spreadsheet). The cell escaping
here is the one of every export, the reports' workbook and CSV included."""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from django.utils.text import get_valid_filename
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

FORMATS = ("csv", "xlsx")
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


MAX_CELL = 32000  # Excel's limit is 32,767 characters per cell

# Number formats of every workbook, and the decimal places each shows: a cell holds its value
# rounded to them (a money cell to the cent), so a workbook never holds 418999.9999999999 for a
# rent of 419,000.00.
MONEY = "#,##0.00"  # an amount of money: Decimal to the cent, grouped, as the pages print it
MONEY0 = "#,##0"  # a large count (hours, tokens, seconds): grouped, whole
PCT = "0.0%"
NUM3 = "0.000"
NUM2 = "0.00"
NUM1 = "0.0"
INT = "0"
FREE_NUMBER = "#,##0.00##"  # grouped, 2 to 4 places
PLACES = {MONEY: 2, MONEY0: 0, NUM3: 3, NUM2: 2, NUM1: 1, INT: 0, PCT: 3, FREE_NUMBER: 4}


def at_precision(value: Any, fmt: str | None) -> Any:
    """A number as the cell stores it: a Decimal rounded (half up) to the places its format
    shows; a number without a column format gets FREE_NUMBER's 4 places (whole numbers stay
    whole). Text, booleans and empty cells pass unchanged; a non-finite number is left empty."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return None
    exact = value if isinstance(value, Decimal) else Decimal(repr(value))
    places = PLACES.get(fmt or FREE_NUMBER, 4)
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def number_cell(ws: Any, value: Decimal | None, fmt: str) -> Any:
    """A numeric cell holding exactly `value`'s digits: openpyxl would print any number with
    16 significant digits ("%.16g": 69.51 becomes 69.51000000000001), so the cell gets the
    Decimal's own text and the numeric type."""
    cell = WriteOnlyCell(ws, value=None if value is None else format(value, "f"))
    if value is not None:
        cell.data_type = "n"
    cell.number_format = fmt
    return cell


def clean(value: Any) -> Any:
    """Strings without control characters and within the cell limit; numbers untouched."""
    if isinstance(value, str):
        return ILLEGAL_CHARACTERS_RE.sub("", value)[:MAX_CELL]
    return value


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_only(ws: Any, row: int) -> None:
    """Text cells a spreadsheet would run as a formula (a label "=HYPERLINK(...)") stay text."""
    for cell in ws[row]:
        if isinstance(cell.value, str) and cell.value.startswith("="):
            cell.data_type = "s"


def formula_like(value: str) -> bool:
    """Text a spreadsheet could run as a formula: starting with = + - @ (or a tab or CR), also
    in a compatibility form that NFKC folds to one of them (full-width ＝ ＋ － ＠, small ﹦ ﹢
    ﹣ ﹫, super- and subscript ⁼ ⁺ ₌ ₊), or the minus sign −, which spreadsheet apps read as -."""
    head = unicodedata.normalize("NFKC", value[:4])
    return head.startswith(FORMULA_STARTS) or value.startswith(MINUS_SIGN)


MINUS_SIGN = "\u2212"


def csv_safe(value: Any) -> Any:
    """CSV has no cell types: text starting like a formula gets a leading apostrophe."""
    if isinstance(value, str) and formula_like(value):
        return "'" + value
    return value


def csv_bytes(header: Sequence[Any], rows: Iterable[Sequence[Any]]) -> bytes:
    """UTF-8 with a byte-order mark (so Excel reads Chinese names right)."""
    out = io.StringIO()
    writer = csv.writer(out)
    for row in (header, *rows):
        writer.writerow(["" if v is None else csv_safe(clean(v) if isinstance(v, str) else v)
                         for v in row])  # fmt: skip
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def _xlsx_cell(ws: Any, value: Any) -> Any:
    """Text stays text; a Decimal (the lists' money: a quote's rent) is written to the cent with
    the pages' grouping and two places; a float to at most four places (never the 16 digits
    openpyxl would print)."""
    if isinstance(value, Decimal):
        return number_cell(ws, at_precision(value, MONEY), MONEY)
    if isinstance(value, float):
        return number_cell(ws, at_precision(value, FREE_NUMBER), FREE_NUMBER)
    cell = WriteOnlyCell(ws, value=clean(value))
    if isinstance(cell.value, str) and cell.value.startswith("="):
        cell.data_type = "s"  # as text_only: a label "=HYPERLINK(...)" stays text
    return cell


def xlsx_bytes(
    sheets: Sequence[tuple[str, Sequence[Any], Iterable[Sequence[Any]]]],
) -> bytes:
    """One worksheet per (title, header, rows); the header bold and frozen. Written in
    openpyxl's write-only mode: 5,000 rows take a second, not minutes."""
    wb = Workbook(write_only=True)
    bold = Font(bold=True)
    for title, header, rows in sheets:
        ws = wb.create_sheet(clean(str(title))[:31])
        ws.freeze_panes = "A2"
        for i, h in enumerate(header, 1):
            ws.column_dimensions[get_column_letter(i)].width = max(10, len(str(h)) + 4)
        head = []
        for h in header:
            cell = _xlsx_cell(ws, str(h))
            cell.font = bold
            head.append(cell)
        ws.append(head)
        for row in rows:
            ws.append([_xlsx_cell(ws, v) for v in row])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


Sheet = tuple[str, Sequence[Any], Iterable[Sequence[Any]]]  # (title, header, rows)


def table_response(
    fmt: str, filename: str, header: Sequence[Any], rows: Iterable[Sequence[Any]],
    *, title: str = "", extra_sheets: Sequence[Sheet] = (),
) -> HttpResponse:  # fmt: skip
    """A download of the table as `fmt` ("csv" or "xlsx"; anything else: ValueError)."""
    name = get_valid_filename(filename)
    if fmt == "csv":
        body, content_type = csv_bytes(header, rows), "text/csv; charset=utf-8"
    elif fmt == "xlsx":
        body = xlsx_bytes([(title or filename, header, rows), *extra_sheets])
        content_type = XLSX_TYPE
    else:
        raise ValueError(fmt)
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(True, f"{name}.{fmt}")
    response["X-Content-Type-Options"] = "nosniff"
    return response
