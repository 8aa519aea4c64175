"""The ranking page's charts as images for the PDF (domain.svgcharts drawn by reports.chart_png).

Same data and the same words as the page's Plotly figures (`rankings.chart_labels`); drawn in a
few milliseconds instead of seconds of a headless Chromium, so a report needs no browser.
PORTAL_REPORT_CHARTS=off leaves them out (the PDF then says the figures are in the tables).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from domain import svgcharts as svg
from rankings.chart_labels import chart_labels
from rankings.figures import COMPUTE, EXPOSED
from rankings.inputs import short_label

from .chart_png import jpeg

SHOWN = 25  # beyond that the bars are unreadable on A4; the table has them all
CACHED_RUNS = 16  # a finished run's charts never change: the PDFs of a run share them
_cache: OrderedDict[Hashable, dict[str, bytes]] = OrderedDict()
_cache_lock = threading.Lock()


def charts_enabled() -> bool:
    return os.environ.get("PORTAL_REPORT_CHARTS", "on").lower() not in ("0", "off", "false", "no")


def _name(r: Any) -> str:
    """A bar's name: the decision's rank ("✕" for an excluded offer, which has none), as the
    page's chart prints it."""
    head = f"#{r.shown_rank}" if r.shown_rank else "✕"
    return f"{head} {r.vendor_name} · {r.label}" if r.vendor_name else f"{head} {r.label}"


def _share(r: Any, seconds: float) -> float:
    return float(r.cost_per_eth) * float(seconds) / float(r.step_time_s) if r.step_time_s else 0.0


def _pct_text(pct: float | None) -> str:
    return "—" if pct is None else ("±0%" if pct == 0 else f"{pct:+.1f}%")


def breakdown_chart(results: list[Any], labels: dict[str, str]) -> svg.Chart:
    return svg.stacked_bars(
        [_name(r) for r in results],
        [
            svg.Series(labels["compute"], COMPUTE, [_share(r, r.compute_time_s) for r in results]),
            svg.Series(labels["exposed"], EXPOSED, [_share(r, r.exposed_comm_s) for r in results]),
        ],
        title=labels["title"], axis=labels["axis"],
    )  # fmt: skip


def bandwidth_chart(results: list[Any], labels: dict[str, str]) -> svg.Chart:
    points = [
        svg.Point(x=float(r.bandwidth_gbps or 0), y=float(r.cost_per_eth),
                  low=float(r.cost_per_eth_low), high=float(r.cost_per_eth_high),
                  text=short_label(r.shown_rank, r.label), hollow=r.bandwidth_basis != "measured")
        for r in results
    ]  # fmt: skip
    return svg.log_scatter(
        points, title=labels["title"], x_axis=labels["x"], y_axis=labels["y"],
        legend=[(labels["measured"], COMPUTE), (labels["nominal"], COMPUTE)],
    )  # fmt: skip


def tornado_chart(sensitivity: list[dict[str, Any]], labels: dict[str, str]) -> svg.Chart:
    rows = []
    for row in sensitivity:
        for o in row.get("offers") or []:
            texts = []
            for side in ("low", "high"):
                new_rank = o.get(f"{side}_rank")
                moved = f" → #{new_rank}" if new_rank and new_rank != o.get("rank") else ""
                texts.append(_pct_text(o.get(f"{side}_pct")) + moved)
            rows.append(svg.TornadoRow(
                group=str(row["label"]), name=("★ " if o.get("is_winner") else "") + str(o["name"]),
                low=o.get("low_pct"), high=o.get("high_pct"), low_text=texts[0], high_text=texts[1],
            ))  # fmt: skip
    return svg.tornado(
        rows, title=labels["title"], axis=labels["axis"],
        legend=[(labels["low"], "#5cb85c"), (labels["high"], "#f0ad4e")],
    )  # fmt: skip


def chart_images(
    results: list[Any], sensitivity: list[dict[str, Any]], *, key: Hashable | None = None
) -> dict[str, bytes]:
    """A JPEG of each chart of the ranking page, in the active language ({} when charts are off).

    `key` names a finished run's charts in one language (run id, finish time, language): the
    images are kept in this process for the next report of the same run."""
    if not results or not charts_enabled():
        return {}
    if key is not None:
        with _cache_lock:
            if key in _cache:
                _cache.move_to_end(key)
                return _cache[key]
    out = _draw(results, sensitivity)
    if key is not None:
        with _cache_lock:
            _cache[key] = out
            while len(_cache) > CACHED_RUNS:
                _cache.popitem(last=False)
    return out


def _draw(results: list[Any], sensitivity: list[dict[str, Any]]) -> dict[str, bytes]:
    labels = chart_labels()  # the page's labels: the same figure, same words
    shown = results[:SHOWN]
    out = {
        "breakdown": jpeg(breakdown_chart(shown, labels["breakdown"])),
        "bandwidth": jpeg(bandwidth_chart(shown, labels["bandwidth"])),
    }
    if sensitivity:
        out["tornado"] = jpeg(tornado_chart(sensitivity, labels["tornado"]))
    return out
