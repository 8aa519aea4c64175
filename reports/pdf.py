"""The management report as an A4 PDF: a Django template rendered by WeasyPrint.

WeasyPrint finds Noto Sans CJK through fontconfig and embeds a subset of it, so Chinese vendor
names render in any reader. Page numbers, team, date and run id come from CSS page margins.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.template.loader import render_to_string
from django.utils.translation import get_language

from core.templatetags.portal import msg

from .charts import chart_images
from .collector import fewer_collections
from .selectors import ReportData, VendorSection
from .summary import (
    finding_groups,
    findings,
    input_tables,
    management_summary,
    offer_rows,
    workload_rows,
)

# The charts reach WeasyPrint through its URL fetcher under this scheme, not as base64 data URIs
# in the HTML: its HTML parser read the megabyte of base64 one chunk at a time (about 0.08 s).
CHART_SCHEME = "report-chart:"


def _mime(image: bytes) -> str:
    return "image/png" if image.startswith(b"\x89PNG") else "image/jpeg"


# Vendors of this many best-ranked offers get their details; every vendor is named in a line.
DETAIL_TOP = 3
# The model-detail table shows this many best-ranked offers; the workbook has every offer's.
# (Each row is some twenty lines of text: ten rows were a page and a tenth of the build time.)
MODEL_TOP = 5
# The ranking table shows this many offers (one page); the others are one line each in
# appendix D, so the body does not grow with the number of offers.
RANKING_TOP = 20
# The risks page names the red-flagged vendors of the best-ranked offers and counts each kind of
# red flag; appendix B gives every vendor's count, so the page does not grow with the vendors.
FLAGGED_TOP = 6


def _vendor_appendix(data: ReportData) -> dict[str, Any]:
    """Appendix B: one line per vendor (best-ranked first), pages for the leading vendors.

    Fifty vendor pages were most of a fifty-offer report's pages and of its build time, and a
    reader decides among the leaders; the workbook keeps every vendor's evidence."""
    # the decision's rank (excluded offers have none), and for the order the excluded ones
    # after every ranked one, by cost
    order_of = {str(r.offer_id): (0, r.shown_rank) if r.shown_rank else (1, r.rank)
                for r in data.results}  # fmt: skip

    def order(s: VendorSection) -> tuple[int, int] | None:
        keys = [order_of[str(o.get("id"))] for o in s.offers if str(o.get("id")) in order_of]
        return min(keys) if keys else None

    rows = []
    for s in data.vendors:
        v = s.vendor
        licences = list(v.licences.all()) if v else []
        key = order(s)
        rows.append({
            "section": s, "order": key, "best": key[1] if key and key[0] == 0 else None,
            "licences": len(licences),
            "verified_licences": sum(1 for lic in licences if lic.state == "verified"),
            "data_centres": len(v.data_centres.all()) if v else 0,
        })  # fmt: skip
    rows.sort(key=lambda r: (r["order"] is None, r["order"] or (0, 0), r["section"].name))
    details = [r["section"] for r in rows if r["best"] is not None and r["best"] <= DETAIL_TOP]
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:  # vendors with the same evidence profile share one entry, best-ranked first
        s, v = r["section"], r["section"].vendor
        key = (v is not None, len(s.critical), r["licences"], r["verified_licences"],
               r["data_centres"], _availability(v), len(s.test_runs))  # fmt: skip
        groups.setdefault(key, []).append(r)
    return {
        "vendor_groups": [{"first": members[0], "members": members} for members in groups.values()],
        "vendor_rows": rows,
        "vendor_details": details,
        "detail_top": DETAIL_TOP,
        **_red_flags(rows),
    }


def _availability(vendor: Any) -> Any:
    try:
        return vendor.sla.availability if vendor is not None else None
    except ObjectDoesNotExist:  # no SLA terms recorded
        return None


def _red_flags(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The red-flagged vendors of the best-ranked offers (rows come best-ranked first) and each
    distinct red flag with the number of vendors that have it, most frequent first."""
    flagged = [r for r in rows if r["section"].critical]
    vendors_of: dict[str, set[int]] = {}
    for i, r in enumerate(flagged):
        for f in r["section"].critical:
            vendors_of.setdefault(msg(f.message), set()).add(i)
    kinds = sorted(((text, len(names)) for text, names in vendors_of.items()),
                   key=lambda kv: (-kv[1], kv[0]))  # fmt: skip
    return {"flagged_vendors": flagged[:FLAGGED_TOP], "flagged_more": len(flagged) - FLAGGED_TOP,
            "flagged_total": len(flagged), "red_flag_kinds": kinds}  # fmt: skip


# The PDF is a summary and an appendix of the best-ranked offers: its per-offer parts (ranking,
# findings, offer inputs, appendix D, charts, vendor lines) stop at this many offers, so its size
# and build memory stay bounded however many offers a run has; the workbook (written in
# write-only mode) keeps every offer, and the PDF says how many it left there.
PDF_OFFERS = 200


def _bounded(data: ReportData) -> ReportData:
    """The report data of the best-ranked PDF_OFFERS offers (the run's own figures unchanged)."""
    if len(data.results) <= PDF_OFFERS:
        return data
    results = data.results[:PDF_OFFERS]
    kept = {str(r.offer_id) for r in results}
    offers = {k: o for k, o in data.offers.items() if k in kept}
    vendors = [s for s in data.vendors if any(str(o.get("id")) in kept for o in s.offers)]
    return dataclasses.replace(data, results=results, offers=offers, vendors=vendors)


def pdf_context(data: ReportData) -> dict:  # type: ignore[type-arg]
    left_out = max(0, len(data.results) - PDF_OFFERS)
    data = _bounded(data)
    run = data.run
    key = (run.pk, run.finished_at, get_language()) if run.finished_at else None
    images = chart_images(data.results, data.sensitivity, key=key)
    found = findings(data)
    by_rank = {o.rank: o for o in found}
    used = {str(o.get("gpu")) for o in data.offers.values() if isinstance(o, dict)}
    detailed = [r for r in data.results if r.model_detail]
    rows = [{"result": r, "findings": by_rank.get(r.rank)} for r in data.results]
    inputs = offer_rows(data)
    return {
        "d": data,
        "lang": get_language() or settings.LANGUAGE_CODE,
        "charts": {name: CHART_SCHEME + name for name in images},
        "chart_images": images,
        "summary": management_summary(data, found),
        "findings": found,
        "finding_groups": finding_groups(found),
        "ranking_rows": rows[:RANKING_TOP],
        "ranking_rest": rows[RANKING_TOP:],
        "pdf_offers": PDF_OFFERS,
        "pdf_left_out": left_out,
        "model_rows": detailed[:MODEL_TOP],
        "model_more": max(0, len(detailed) - MODEL_TOP),
        **_vendor_appendix(data),
        "workload_rows": workload_rows(data),
        "gpus_used": [(k, g) for k, g in data.gpus.items() if k in used] or list(data.gpus.items()),
        "inputs": inputs,
        "input_tables": input_tables(inputs),
        "savings": data.savings_rows,
        "winner_job_cost_cny": data.to_cny(data.winner.job_cost, data.winner.currency)
        if data.winner
        else None,
    }


# The same HTML gives the same PDF: a second request for a report nothing has changed in (same
# run, language, team, author and day) reuses the bytes instead of a WeasyPrint build.
CACHED_PDFS = 8
_pdf_cache: OrderedDict[str, bytes] = OrderedDict()
_pdf_cache_lock = threading.Lock()


def clear_pdf_cache() -> None:
    with _pdf_cache_lock:
        _pdf_cache.clear()


def build_pdf(data: ReportData, *, progress: Callable[[int], None] | None = None) -> bytes:
    ctx = pdf_context(data)
    if progress:
        progress(60)
    html = render_to_string("reports/pdf/report.html", ctx)
    images: dict[str, bytes] = ctx["chart_images"]
    digest = hashlib.sha256(html.encode())
    for name in sorted(images):
        digest.update(name.encode() + hashlib.sha256(images[name]).digest())
    key = digest.hexdigest()
    with _pdf_cache_lock:
        if key in _pdf_cache:
            _pdf_cache.move_to_end(key)
            return _pdf_cache[key]
    pdf = write_pdf(html, images)
    with _pdf_cache_lock:
        _pdf_cache[key] = pdf
        while len(_pdf_cache) > CACHED_PDFS:
            _pdf_cache.popitem(last=False)
    return pdf


def write_pdf(html: str, images: dict[str, bytes]) -> bytes:
    """WeasyPrint's PDF of the report HTML; `images` answers its report-chart: addresses, any
    other address goes to WeasyPrint's own fetcher."""
    from weasyprint import HTML
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class ChartFetcher(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith(CHART_SCHEME):
                image = images[url[len(CHART_SCHEME) :]]
                return URLFetcherResponse(url, image, {"Content-Type": _mime(image)})
            return super().fetch(url, headers)

    with fewer_collections():
        document = HTML(string=html, base_url=str(settings.BASE_DIR), url_fetcher=ChartFetcher())
        return document.write_pdf()  # type: ignore[no-any-return]
