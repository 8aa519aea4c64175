"""The ranking page's Plotly figures as PNG images for the PDF (kaleido over Chromium).

The figures come from `rankings.figures` with the page's labels, so page and PDF show the same
chart. Kaleido needs a Chrome: Debian's /usr/bin/chromium is used when BROWSER_PATH is not set.
When no browser works the builder gets None and the PDF prints the chart's data as a table.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import threading
from typing import Any

from rankings import figures
from rankings.chart_labels import chart_labels

log = logging.getLogger(__name__)
_lock = threading.Lock()
_server_started = False


def _ensure_server() -> None:
    """Start kaleido's browser once per process: the first image costs seconds, later ones 0.2s."""
    global _server_started
    if _server_started:
        return
    if not os.environ.get("BROWSER_PATH"):
        found = shutil.which("chromium") or shutil.which("chromium-browser")
        if found:
            os.environ["BROWSER_PATH"] = found
    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    atexit.register(lambda: kaleido.stop_sync_server(silence_warnings=True))
    _server_started = True


def charts_enabled() -> bool:
    return os.environ.get("PORTAL_REPORT_CHARTS", "on").lower() not in ("0", "off", "false", "no")


def warm() -> bool:
    """Start the renderer now (a worker process calls this at start); False if it cannot."""
    if not charts_enabled():
        return False
    try:
        import plotly.graph_objects as go

        with _lock:
            _ensure_server()
            # the browser really starts at the first image: draw a tiny one
            go.Figure(go.Bar(y=[1])).to_image(format="png", width=50, height=50)
    except Exception:  # noqa: BLE001 - without a browser the reports print tables instead
        log.warning("chart renderer could not be started", exc_info=True)
        return False
    return True


def figure_png(fig: Any, *, width: int = 1000, height: int | None = None) -> bytes | None:
    if not charts_enabled():
        return None
    try:
        with _lock:
            _ensure_server()
            return fig.to_image(format="png", width=width, height=height or 450, scale=2)
    except Exception:  # noqa: BLE001 - a missing browser must not break the report
        log.warning("chart image could not be rendered", exc_info=True)
        return None


def chart_images(results: list[Any], sensitivity: list[dict[str, Any]]) -> dict[str, bytes | None]:
    """PNG of each chart of the ranking page (None where it could not be rendered)."""
    if not results:
        return {}
    labels = chart_labels()  # the page's labels: the same figure, same words
    shown = results[:25]  # beyond that the bars are unreadable on A4; the table has them all
    breakdown = figures.cost_breakdown_figure(shown, labels=labels["breakdown"])
    out = {
        "breakdown": figure_png(breakdown, height=120 + 40 * len(shown)),
        "bandwidth": figure_png(
            figures.cost_vs_bandwidth_figure(shown, labels=labels["bandwidth"]), height=500
        ),
    }
    if sensitivity:
        tornado = figures.tornado_figure(sensitivity, labels=labels["tornado"])
        out["tornado"] = figure_png(tornado, height=320)
    return out
