"""Plotly figures of benchmark results: functions from stored results to figures.

The same figure serves the page (``to_html`` with the locally served plotly.js) and reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
from django.utils.translation import gettext as _

LAYOUT: dict[str, Any] = {"height": 360, "margin": {"l": 50, "r": 20, "t": 40, "b": 45}}


def _times(data: dict[str, Any], count: int) -> list[float]:
    ends = [t for t in data.get("interval_end_s") or [] if t is not None]
    return ends if len(ends) == count else [float(i + 1) for i in range(count)]


def throughput_over_time(
    items: Sequence[tuple[str, dict[str, Any]]], *, line_rate_gbps: float | None
) -> go.Figure | None:
    """Per-interval throughput of each stream (one log) or each pair (several), with line rate."""
    fig = go.Figure()
    single = len(items) == 1
    for label, data in items:
        series = data.get("series") or []
        if single and len(series) > 1:
            for s in series:
                fig.add_scatter(x=_times(data, len(s["gbps"])), y=s["gbps"], name=s["label"])
        gbps = data.get("interval_gbps") or []
        if gbps:
            fig.add_scatter(x=_times(data, len(gbps)), y=gbps, name=_("total") if single else label)
    if not fig.data:
        return None
    if line_rate_gbps:
        fig.add_hline(y=line_rate_gbps, line_dash="dash", annotation_text=_("line rate"))
    fig.update_layout(
        title=_("Throughput over time"),
        xaxis_title=_("time (s)"),
        yaxis_title="Gbit/s",
        **LAYOUT,
    )
    return fig


def message_size_curve(items: Sequence[tuple[str, dict[str, Any]]]) -> go.Figure | None:
    """Average (and peak) bandwidth against message size, log-scaled sizes."""
    fig = go.Figure()
    for label, data in items:
        rows = [r for r in data.get("sizes") or [] if r.get("bw_avg_gbps") is not None]
        if len(rows) < 2:
            continue
        fig.add_scatter(
            x=[r["bytes"] for r in rows],
            y=[r["bw_avg_gbps"] for r in rows],
            name=label,
            mode="lines+markers",
        )
    if not fig.data:
        return None
    fig.update_layout(
        title=_("Bandwidth by message size"),
        xaxis={"type": "log", "title": _("message size (bytes)")},
        yaxis_title="Gbit/s",
        **LAYOUT,
    )
    return fig


def latency_percentiles(items: Sequence[tuple[str, dict[str, Any]]]) -> go.Figure | None:
    """Min, average, P99 and P99.9 latency of each latency log."""
    keys = [("min", _("min")), ("avg", _("average")), ("p99", "P99"), ("p999", "P99.9")]
    fig = go.Figure()
    for label, data in items:
        lat = data.get("latency_us") or {}
        if not any(lat.get(k) is not None for k, _name in keys):
            continue
        fig.add_bar(x=[name for _k, name in keys], y=[lat.get(k) for k, _name in keys], name=label)
    if not fig.data:
        return None
    fig.update_layout(title=_("Latency percentiles"), yaxis_title="µs", barmode="group", **LAYOUT)
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
        text=[f"{v:.1f}" for v in rates],
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


def to_html(fig: go.Figure | None) -> str:
    if fig is None:
        return ""
    return fig.to_html(include_plotlyjs=False, full_html=False, config={"responsive": True})


def run_figures(
    items: Sequence[tuple[str, dict[str, Any]]], *, line_rate_gbps: float | None
) -> list[str]:
    figs = [
        throughput_over_time(items, line_rate_gbps=line_rate_gbps),
        pairs_side_by_side(items, line_rate_gbps=line_rate_gbps),
        message_size_curve(items),
        latency_percentiles(items),
    ]
    return [to_html(f) for f in figs if f is not None]
