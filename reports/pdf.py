"""The management report as an A4 PDF: a Django template rendered by WeasyPrint.

WeasyPrint finds Noto Sans CJK through fontconfig and embeds a subset of it, so Chinese vendor
names render in any reader. Page numbers, team, date and run id come from CSS page margins.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

from django.conf import settings
from django.template.loader import render_to_string
from django.utils.translation import get_language

from .charts import chart_images
from .selectors import ReportData
from .summary import findings, management_summary, offer_rows, workload_rows


def _data_uri(png: bytes | None) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode() if png else ""


def pdf_context(data: ReportData) -> dict:  # type: ignore[type-arg]
    images = chart_images(data.results, data.sensitivity)
    found = findings(data)
    by_rank = {o.rank: o for o in found}
    used = {str(o.get("gpu")) for o in data.offers.values() if isinstance(o, dict)}
    return {
        "d": data,
        "lang": get_language() or settings.LANGUAGE_CODE,
        "charts": {name: _data_uri(png) for name, png in images.items()},
        "chart_failed": any(png is None for png in images.values()),
        "summary": management_summary(data, found),
        "findings": found,
        "ranking_rows": [{"result": r, "findings": by_rank.get(r.rank)} for r in data.results],
        "flagged_vendors": [s for s in data.vendors if s.critical],
        "workload_rows": workload_rows(data),
        "gpus_used": [(k, g) for k, g in data.gpus.items() if k in used] or list(data.gpus.items()),
        "inputs": offer_rows(data),
        "vs_rent": data.savings(data.cheapest_rent),
        "vs_runner_up": data.savings(data.runner_up),
        "winner_job_cost_cny": data.to_cny(data.winner.job_cost, data.winner.currency)
        if data.winner
        else None,
    }


def build_pdf(data: ReportData, *, progress: Callable[[int], None] | None = None) -> bytes:
    from weasyprint import HTML

    ctx = pdf_context(data)
    if progress:
        progress(60)
    html = render_to_string("reports/pdf/report.html", ctx)
    return HTML(string=html, base_url=str(settings.BASE_DIR)).write_pdf()
