"""The ranking table as CSV (UTF-8 with a BOM so spreadsheet programs detect the encoding)."""

from __future__ import annotations

import csv
import io

from django.utils.translation import get_language

from core.export import csv_safe

from .selectors import ReportData
from .xlsx import RANKING_COLUMNS, ranking_row, term_fits


def build_csv(data: ReportData) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([str(title) for title, _fmt in RANKING_COLUMNS])
    lang = get_language()
    fits = term_fits(data)
    for r in data.results:
        writer.writerow(["" if v is None else csv_safe(v) for v in ranking_row(r, lang, fits)])
    return ("\ufeff" + buf.getvalue()).encode("utf-8")
