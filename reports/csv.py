"""The ranking table as CSV (UTF-8 with a BOM so spreadsheet programs detect the encoding)."""

from __future__ import annotations

import csv
import io

from django.utils.translation import get_language

from core.export import at_precision, csv_safe

from .selectors import ReportData
from .xlsx import RANKING_COLUMNS, ranking_row, term_fits


def build_csv(data: ReportData) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([str(title) for title, _fmt in RANKING_COLUMNS])
    lang = get_language()
    fits = term_fits(data)
    formats = [fmt for _title, fmt in RANKING_COLUMNS]
    for r in data.results:  # numbers as the workbook holds them (money to the cent)
        values = ranking_row(r, lang, fits, data.stale_version_ids)
        row = [at_precision(v, f) for v, f in zip(values, formats, strict=False)]
        writer.writerow(["" if v is None else csv_safe(v) for v in row])
    return ("\ufeff" + buf.getvalue()).encode("utf-8")
