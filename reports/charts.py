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
import time
from typing import Any

from rankings import figures
from rankings.chart_labels import chart_labels

log = logging.getLogger(__name__)
_lock = threading.Lock()
_server_started = False
_broken_until = 0.0  # after a failure, print tables for a while rather than wait again
RETRY_AFTER_S = 300.0
RENDER_TIMEOUT_S = 60.0


def _browser() -> str | None:
    """The Chrome kaleido should drive: BROWSER_PATH, else Debian's chromium, else None."""
    path = os.environ.get("BROWSER_PATH") or shutil.which("chromium")
    path = path or shutil.which("chromium-browser")
    if path:
        os.environ["BROWSER_PATH"] = path
    return path


def _server_alive() -> bool:
    from kaleido import _global_server

    thread = getattr(_global_server, "_thread", None)
    return bool(_global_server.is_running() and thread is not None and thread.is_alive())


def _ensure_server() -> None:
    """Start kaleido's browser once per process: the first image costs seconds, later ones 0.2s.

    Kaleido's sync server runs the browser in a thread; when the browser cannot start that
    thread ends and every later request would wait for it forever, so a dead server is an
    error here, never a wait.
    """
    global _server_started
    if _server_started and _server_alive():
        return
    if _browser() is None:
        raise RuntimeError("no Chromium for the chart renderer (install chromium)")
    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    if not _server_started:
        atexit.register(_stop_quietly)  # runs before kaleido's own exit handler (LIFO)
    _server_started = True


def _stop_quietly() -> None:
    """Stop the browser at process exit without a traceback on the console.

    While Chromium exits, choreographer can read a last message cut short and logs a
    "JSONError decoding message" traceback at ERROR level although nothing is wrong; at exit
    there is nothing left to render, so its logger is quietened first."""
    import kaleido

    logging.getLogger("choreographer").setLevel(logging.CRITICAL)
    kaleido.stop_sync_server(silence_warnings=True)


def charts_enabled() -> bool:
    return os.environ.get("PORTAL_REPORT_CHARTS", "on").lower() not in ("0", "off", "false", "no")


def _render(fig: Any, width: int, height: int, scale: float) -> bytes:
    """One PNG through kaleido's running server, given up after RENDER_TIMEOUT_S."""
    import kaleido

    _ensure_server()
    out: dict[str, Any] = {}

    def call() -> None:
        try:
            # kaleido directly (not fig.to_image): plotly would pass constructor options the
            # running server ignores, with a UserWarning on every image.
            opts = {"format": "png", "width": width, "height": height, "scale": scale}
            out["png"] = kaleido.calc_fig_sync(fig.to_dict(), opts=opts)
        except Exception as exc:  # noqa: BLE001 - reported to the caller below
            out["error"] = exc

    worker = threading.Thread(target=call, name="chart-render", daemon=True)
    worker.start()
    worker.join(RENDER_TIMEOUT_S)
    if worker.is_alive() or not _server_alive():
        raise TimeoutError("the chart renderer stopped answering")
    if "error" in out:
        raise out["error"]
    return out["png"]  # type: ignore[no-any-return]


def warm() -> bool:
    """Start the renderer now (a worker process calls this at start); False if it cannot."""
    if not charts_enabled():
        return False
    import plotly.graph_objects as go

    return figure_png(go.Figure(go.Bar(y=[1])), width=50, height=50) is not None


def figure_png(fig: Any, *, width: int = 1000, height: int | None = None) -> bytes | None:
    global _broken_until
    if not charts_enabled() or time.monotonic() < _broken_until:
        return None
    try:
        with _lock:
            return _render(fig, width, height or 450, 2)
    except Exception:  # noqa: BLE001 - a missing browser must not break the report
        _broken_until = time.monotonic() + RETRY_AFTER_S
        log.warning("chart images are off in this process: the renderer failed", exc_info=True)
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
