"""What a finished run's page shows besides its result rows, computed by the ranking job and
stored on the run (`RankingRun.page_data`): the sensitivity sweep, the chart figures in every
language, and the few snapshot values the page needs. The page renders this and never runs the
model (docs ARCHITECTURE.md, "Jobs compute, pages read").

A run stored before this existed has no page data (or an older `PAGE_DATA_VERSION`): its page
shows its table and offers to compute the run again, it never sweeps in the request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.utils import translation

from domain import ranking

from . import figures
from .chart_labels import chart_labels
from .inputs import InputFileError
from .whatif import sensitivity_data, stored_sensitivity

PAGE_DATA_VERSION = 1
# Offers drawn in the breakdown and bandwidth charts: the cheapest by rank. A chart of 2,000
# bars is unreadable and megabytes heavy; the table pages through every offer.
CHART_OFFERS = 40


def page_inputs(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot values the page shows: each offer's confirmed outliers and unstated VAT
    terms (only offers that have either), the tax basis, the overlap, and what the what-if
    controls start from. Small, so the page never loads the snapshot of every offer."""
    marked = []
    for o in snapshot.get("offers") or ():
        outliers = o.get("confirmed_outliers") or []
        assumed = bool((o.get("tax") or {}).get("assumed"))
        if outliers or assumed:
            marked.append({"id": str(o.get("id")), "confirmed_outliers": outliers,
                           "tax": {"assumed": assumed}})  # fmt: skip
    workload = snapshot.get("workload") or {}
    return {
        "marks": {"offers": marked},
        "tax_basis": snapshot.get("tax_basis"),  # None: a run from before VAT
        "overlap": workload.get("overlap", 0.5),
        "whatif": {
            "workload": {"overlap": workload.get("overlap", 0.5)},
            "scenario": dict(snapshot.get("scenario") or {}),
        },  # fmt: skip
    }


def chart_figures(
    results: Sequence[Any], sensitivity: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The breakdown, bandwidth and (with a stored sweep) tornado figures as plain JSON, in the
    active language; the first `CHART_OFFERS` results by rank are drawn."""
    labels = chart_labels()
    shown = list(results)[:CHART_OFFERS]
    rows = stored_sensitivity(sensitivity)
    out: dict[str, Any] = {"breakdown": None, "bandwidth": None, "tornado": None}
    if shown:
        out["breakdown"] = figures.to_data(
            figures.cost_breakdown_figure(shown, labels=labels["breakdown"])
        )
        out["bandwidth"] = figures.to_data(
            figures.cost_vs_bandwidth_figure(shown, labels=labels["bandwidth"])
        )
    if rows:
        out["tornado"] = figures.to_data(figures.tornado_figure(rows, labels=labels["tornado"]))
    return out


def page_data_build(
    snapshot: Mapping[str, Any],
    results: Sequence[Any],
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """Everything the run page shows besides the result rows (the job's last step): runs the
    sensitivity sweep (`progress` gets its share done, 0..1) and draws the charts in every
    language of the portal."""
    sweep: dict[str, Any] = {"rows": []}
    if results:
        try:
            sweep = sensitivity_data(snapshot, progress)
        except (ranking.ModelInputError, InputFileError):
            sweep = {"rows": []}
    charts = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            charts[code] = chart_figures(results, sweep)
    return {
        "version": PAGE_DATA_VERSION,
        **page_inputs(snapshot),
        "sensitivity": sweep,
        "charts": charts,
        "offers": len(results),
        "chart_offers": min(len(results), CHART_OFFERS),
    }


def is_current(page_data: Mapping[str, Any] | None) -> bool:
    """Whether a run's stored page data is there and of this version (else: recompute)."""
    return bool(page_data) and (page_data or {}).get("version") == PAGE_DATA_VERSION


def language_charts(page_data: Mapping[str, Any], language: str | None) -> dict[str, Any]:
    """The stored figures in `language` (the default language's when it has none)."""
    charts = page_data.get("charts") or {}
    found = charts.get(language or "") or charts.get(settings.LANGUAGE_CODE)
    return dict(found or next(iter(charts.values()), {}))
