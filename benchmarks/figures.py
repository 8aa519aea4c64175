"""Plotly figures of benchmark results: functions from stored results to figures.

The same figure serves the page (``to_html`` with the locally served plotly.js) and reports.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from django.utils.translation import gettext as _

from core.figures import figure_block
from domain import formatting
from domain.trainmodel.steptime import BUCKET_BYTES

from .evidence import series_name, size_label, total_name

# The legend sits under the plot, left-aligned, wrapping into rows: beside it, it took half
# the width of a 390 px phone screen from the plot. The bottom margin holds the axis title and
# up to three legend rows.
LAYOUT: dict[str, Any] = {
    "height": 440,
    "margin": {"l": 50, "r": 20, "t": 40, "b": 150},
    "legend": {"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0},
}


# A day-long `iperf3 -P 8` log has 86,400 intervals per stream: drawn whole, its chart alone
# was megabytes of page. Each series is cut to at most this many points (fewer when a chart has
# many series), keeping every bucket's lowest and highest interval.
MAX_POINTS_PER_SERIES = 2000
MAX_POINTS_PER_CHART = 24_000
MIN_POINTS_PER_SERIES = 200


def _times(data: dict[str, Any], count: int) -> list[float]:
    ends = [t for t in data.get("interval_end_s") or [] if t is not None]
    return ends if len(ends) == count else [float(i + 1) for i in range(count)]


def _floats(values: Sequence[float | None]) -> np.ndarray:
    return np.array(values, dtype=float)  # None becomes NaN


def downsample_minmax(
    x: Sequence[float], y: Sequence[float | None], max_points: int
) -> tuple[np.ndarray, np.ndarray]:
    """At most `max_points` (x, y) points: the series cut into ``max_points // 2`` buckets of
    consecutive points, each drawn by its lowest and its highest point in time order, so every
    dip and spike (and the series' minimum and maximum) stays visible. A bucket with no value
    is one gap (NaN); a series that fits is returned whole. None values come back as NaN."""
    xs, ys = _floats(x), _floats(y)
    n = len(ys)
    if n <= max_points:
        return xs, ys
    size = math.ceil(n / max(1, max_points // 2))
    buckets = math.ceil(n / size)
    grid = np.full(buckets * size, np.nan)
    grid[:n] = ys
    grid = grid.reshape(buckets, size)
    empty = np.isnan(grid).all(axis=1)
    lo = np.where(np.isnan(grid), np.inf, grid).argmin(axis=1)
    hi = np.where(np.isnan(grid), -np.inf, grid).argmax(axis=1)
    offsets = np.arange(buckets) * size
    first, second = offsets + np.minimum(lo, hi), offsets + np.maximum(lo, hi)
    pairs = np.stack([first, second], axis=1)
    keep = np.stack([np.ones(buckets, dtype=bool), (second != first) & ~empty], axis=1)
    idx = pairs[keep]  # row by row: each bucket's points in time order
    return xs[idx], ys[idx]


def _as_array(values: np.ndarray) -> np.ndarray:
    """Float32 with NaN gaps: plotly writes it as a compact binary array, not decimal text."""
    return np.asarray(values, dtype=np.float32)


def throughput_over_time(
    items: Sequence[tuple[str, dict[str, Any]]], *, line_rate_gbps: float | None
) -> go.Figure | None:
    """Per-interval throughput of each stream (one log) or each pair (several), with line rate.

    Long series are downsampled (``downsample_minmax``); the chart says so under its title."""
    single = len(items) == 1
    lines: list[tuple[str, list[float], list[float | None], int]] = []
    for label, data in items:
        # A bidirectional test's headline series is the direction the quote uses: drawn once,
        # under that name, beside the other direction (never called a "total").
        used = data.get("direction_used") if data.get("direction") == "bidir" else None
        total = total_name(data) if single else label

        def drawn(name: str, used: object = used) -> bool:
            # Under --bidir each stream runs one way and its line would only repeat a
            # direction's: the two directions are drawn, the streams stay in the table.
            return name != used and not (used and name.startswith("stream "))

        stored = data.get("chart_series")
        if stored is not None:  # a page summary: already downsampled (benchmarks/summary.py)
            streams = [s for s in stored if s.get("label") is not None]
            if single and len(streams) > 1:
                lines += [
                    (series_name(s["label"]), s["x"], s["y"], s["count"])
                    for s in streams
                    if drawn(s["label"])
                ]
            lines += [(total, s["x"], s["y"], s["count"]) for s in stored if s.get("label") is None]
            continue
        series = data.get("series") or []
        if single and len(series) > 1:
            lines += [
                (series_name(s["label"]), _times(data, len(s["gbps"])), s["gbps"], len(s["gbps"]))
                for s in series
                if drawn(s["label"])
            ]
        gbps = data.get("interval_gbps") or []
        if gbps:
            lines.append((total, _times(data, len(gbps)), gbps, len(gbps)))
    if not lines:
        return None
    budget = max(
        MIN_POINTS_PER_SERIES, min(MAX_POINTS_PER_SERIES, MAX_POINTS_PER_CHART // len(lines))
    )
    fig = go.Figure()
    longest = max(count for _label, _x, _y, count in lines)
    for label, x, y, _count in lines:
        dx, dy = downsample_minmax(x, y, budget)
        fig.add_scatter(x=_as_array(dx), y=_as_array(dy), name=label, connectgaps=False)
    if line_rate_gbps:
        fig.add_hline(y=line_rate_gbps, line_dash="dash", annotation_text=_("line rate"))
    title = _("Throughput over time")
    if longest > budget:
        note = _(
            "%(total)s intervals per series, drawn as %(shown)s points: the lowest and highest "
            "of each group of consecutive intervals"
        ) % {"total": f"{longest:,}", "shown": f"{budget:,}"}
        title = f"{title}<br><sup>{note}</sup>"
    fig.update_layout(title=title, xaxis_title=_("time (s)"), yaxis_title="Gbit/s", **LAYOUT)
    return fig


def message_size_curve(items: Sequence[tuple[str, dict[str, Any]]]) -> go.Figure | None:
    """Average bandwidth against message size, log-scaled sizes.

    For nccl-tests this is the bus bandwidth curve; a dotted line marks the message size the
    training model reads it at (one DDP gradient bucket)."""
    fig = go.Figure()
    nccl = False
    for label, data in items:
        rows = [r for r in data.get("sizes") or [] if r.get("bw_avg_gbps") is not None]
        if len(rows) < 2:
            continue
        nccl = nccl or data.get("test") == "nccl"
        fig.add_scatter(
            x=[r["bytes"] for r in rows],
            y=[r["bw_avg_gbps"] for r in rows],
            name=label,
            mode="lines+markers",
        )
    if not fig.data:
        return None
    if nccl:
        fig.add_vline(x=BUCKET_BYTES, line_dash="dot")
        # Not add_vline's annotation_text: on a log axis plotly places that label at x = 25e6
        # decades, off the chart; an annotation's x on a log axis is the log of the size.
        fig.add_annotation(
            x=math.log10(BUCKET_BYTES),
            y=1,
            xref="x",
            yref="paper",
            text=_("training model's message size (%(size)s)") % {"size": size_label(BUCKET_BYTES)},
            showarrow=False,
            xanchor="right",
            yanchor="top",
            bgcolor="rgba(255,255,255,0.8)",
        )
    fig.update_layout(
        title=_("Bus bandwidth by message size") if nccl else _("Bandwidth by message size"),
        xaxis={"type": "log", "title": _("message size (bytes)")},
        yaxis_title="Gbit/s",
        **LAYOUT,
    )
    return fig


LATENCY_STATS = (("min", "min"), ("typical", "typical"), ("avg", "average"), ("p99", "P99"),
                 ("p999", "P99.9"))  # fmt: skip


def latency_by_size(items: Sequence[tuple[str, dict[str, Any]]]) -> go.Figure | None:
    """Latency against message size of ``ib_*_lat -a`` sweeps, both axes log-scaled (sizes
    double, latency spans microseconds to milliseconds).

    One log: a line per statistic (min, typical, average, P99, P99.9); several logs: typical
    and P99.9 of each, named by the log."""
    names = {"min": _("min"), "typical": _("typical"), "avg": _("average")}
    fig = go.Figure()
    sweeps = [(label, data.get("latency_sizes") or []) for label, data in items]
    sweeps = [(label, rows) for label, rows in sweeps if len(rows) >= 2]
    for label, rows in sweeps:
        keys = LATENCY_STATS if len(sweeps) == 1 else (("typical", ""), ("p999", "P99.9"))
        for key, fallback in keys:
            ys = [r.get(key) for r in rows]
            if all(y is None for y in ys):
                continue
            stat = names.get(key, fallback)
            fig.add_scatter(
                x=[r["bytes"] for r in rows],
                y=ys,
                name=stat if len(sweeps) == 1 else f"{label} · {stat}",
                mode="lines+markers",
            )
    if not fig.data:
        return None
    fig.update_layout(
        title=_("Latency by message size"),
        xaxis={"type": "log", "title": _("message size (bytes)")},
        yaxis={"type": "log", "title": "µs"},
        **LAYOUT,
    )
    return fig


def latency_percentiles(items: Sequence[tuple[str, dict[str, Any]]]) -> go.Figure | None:
    """Min, average, P99 and P99.9 latency of each latency log."""
    keys = [("min", _("min")), ("avg", _("average")), ("p99", "P99"), ("p999", "P99.9")]
    fig = go.Figure()
    swept: list[str] = []  # an -a sweep's headline is its smallest message size: say which
    for label, data in items:
        lat = data.get("latency_us") or {}
        if not any(lat.get(k) is not None for k, _name in keys):
            continue
        fig.add_bar(x=[name for _k, name in keys], y=[lat.get(k) for k, _name in keys], name=label)
        sizes = data.get("latency_sizes") or []
        if len(sizes) >= 2 and isinstance(sizes[0].get("bytes"), int):
            size = size_label(sizes[0]["bytes"])
            swept += [] if size in swept else [size]
    if not fig.data:
        return None
    title = _("Latency percentiles")
    if swept:
        note = _("message size %(sizes)s, the smallest of the sweep") % {"sizes": ", ".join(swept)}
        title = f"{title}<br><sup>{note}</sup>"
    fig.update_layout(title=title, yaxis_title="µs", barmode="group", **LAYOUT)
    return fig


def pairs_side_by_side(
    items: Sequence[tuple[str, dict[str, Any]]], *, line_rate_gbps: float | None
) -> go.Figure | None:
    """Each pair's throughput as a bar, with its P5 interval as a marker, against line rate."""
    rows = [(label, d) for label, d in items if d.get("throughput_gbps") is not None]
    if len(rows) < 2:
        return None
    fig = go.Figure()
    rates = [r[1]["throughput_gbps"] for r in rows]
    fig.add_bar(
        x=[r[0] for r in rows],
        y=rates,
        name=_("mean"),
        text=[bar_text(v) for v in rates],
        textposition="inside",
    )
    # perftest and nccl-tests print one figure per run: no intervals, so no P5 marker.
    timed = [(r[0], r[1]["p5_gbps"]) for r in rows if r[1].get("p5_gbps") is not None]
    if timed:
        fig.add_scatter(
            x=[t[0] for t in timed],
            y=[t[1] for t in timed],
            mode="markers",
            marker={"size": 10, "symbol": "line-ew-open", "line": {"width": 3}},
            name="P5",
        )
    if line_rate_gbps:
        fig.add_hline(y=line_rate_gbps, line_dash="dash", annotation_text=_("line rate"))
    fig.update_layout(title=_("Pairs side by side"), yaxis_title="Gbit/s", **LAYOUT)
    return fig


def bar_text(gbps: float) -> str:
    """A bar's label with the places the tables use (``formatting.bandwidth``): 0.951 -> "0.95",
    never "1.0" on a 1 Gbit/s line rate it does not reach."""
    return formatting.bandwidth(gbps).removesuffix(" Gbit/s")


def to_html(fig: go.Figure | None) -> str:
    if fig is None:
        return ""
    return figure_block(fig, {"responsive": True})


def run_figures(
    items: Sequence[tuple[str, dict[str, Any]]], *, line_rate_gbps: float | None
) -> list[str]:
    figs = [
        throughput_over_time(items, line_rate_gbps=line_rate_gbps),
        pairs_side_by_side(items, line_rate_gbps=line_rate_gbps),
        message_size_curve(items),
        latency_by_size(items),
        latency_percentiles(items),
    ]
    return [to_html(f) for f in figs if f is not None]
