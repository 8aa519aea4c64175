"""The management report as an A4 PDF: a Django template rendered by WeasyPrint.

WeasyPrint finds Noto Sans CJK through fontconfig and embeds a subset of it, so Chinese vendor
names render in any reader. Page numbers, team, date and run id come from CSS page margins.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string
from django.utils.translation import get_language

from .charts import chart_images
from .selectors import ReportData


def _data_uri(png: bytes | None) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode() if png else ""


# Identify an offer rather than describe it: shown in each row's heading, not among its inputs.
_OFFER_IDENTITY = ("id", "vendor", "label", "version")


def _shown(value: Any) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return ", ".join(_shown(v) for v in value) or "—"
    return str(value)


def offer_inputs(offers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Every offer's inputs, compactly: values all offers share once, then each one's own.

    The recomputation needs every input of every offer, but fifty tables of forty rows are a
    hundred pages nobody audits (and most of the PDF's build time); the shared values are
    printed once and each offer lists only where it differs from them.
    """
    rows = [o for o in offers.values() if isinstance(o, dict)]
    keys: list[str] = []
    for o in rows:
        keys += [k for k in o if k not in keys and k not in _OFFER_IDENTITY and k != "vendor_flags"]
    shared = []
    for k in keys:
        values = {_shown(o.get(k)) for o in rows}
        if len(rows) > 1 and len(values) == 1:
            shared.append((k, values.pop()))
    shared_keys = {k for k, _v in shared}
    own = [
        {
            "title": f"{o.get('vendor', '')} · {o.get('label', '')}",
            "version": o.get("version"),
            "values": "; ".join(
                f"{k} = {_shown(o.get(k))}" for k in keys if k not in shared_keys and k in o
            ),
        }
        for o in rows
    ]
    return {"shared": shared, "offers": own}


def pdf_context(data: ReportData) -> dict:  # type: ignore[type-arg]
    images = chart_images(data.results, data.sensitivity)
    return {
        "d": data,
        "lang": get_language() or settings.LANGUAGE_CODE,
        "charts": {name: _data_uri(png) for name, png in images.items()},
        "chart_failed": any(png is None for png in images.values()),
        "inputs": offer_inputs(data.offers),
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
