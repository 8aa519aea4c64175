"""Plotly figures of a ranking: functions from result rows to figures (page and PDF)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

COMPUTE = "#2f6db5"
EXPOSED = "#d9534f"


def _name(r: Any) -> str:
    return f"#{r.rank} {r.vendor_name} · {r.label}" if r.vendor_name else f"#{r.rank} {r.label}"


def cost_breakdown_figure(results: Sequence[Any], *, labels: dict[str, str]) -> go.Figure:
    """Cost per ETH split into the compute share and the exposed-communication share."""
    names = [_name(r) for r in results]
    compute = [r.cost_per_eth * r.compute_time_s / r.step_time_s for r in results]
    exposed = [r.cost_per_eth * r.exposed_comm_s / r.step_time_s for r in results]
    fig = go.Figure()
    fig.add_bar(y=names, x=compute, orientation="h", name=labels["compute"], marker_color=COMPUTE)
    fig.add_bar(y=names, x=exposed, orientation="h", name=labels["exposed"], marker_color=EXPOSED)
    fig.update_layout(
        barmode="stack",
        title=labels["title"],
        xaxis_title=labels["axis"],
        yaxis={"autorange": "reversed"},
        height=120 + 40 * len(results),
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
        legend={"orientation": "h"},
    )
    return fig


def cost_vs_bandwidth_figure(results: Sequence[Any], *, labels: dict[str, str]) -> go.Figure:
    """Cost per ETH against effective bandwidth, with the P5...P50 range as error bars."""
    fig = go.Figure()
    for basis, symbol in (("measured", "circle"), ("nominal", "circle-open")):
        rows = [r for r in results if r.bandwidth_basis == basis]
        if not rows:
            continue
        fig.add_scatter(
            x=[r.bandwidth_gbps for r in rows],
            y=[r.cost_per_eth for r in rows],
            mode="markers+text",
            text=[_name(r) for r in rows],
            textposition="top center",
            name=labels[basis],
            marker={"size": 12, "symbol": symbol},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [r.cost_per_eth_high - r.cost_per_eth for r in rows],
                "arrayminus": [r.cost_per_eth - r.cost_per_eth_low for r in rows],
            },
        )
    fig.update_layout(
        title=labels["title"],
        xaxis={"title": labels["x"], "type": "log"},
        yaxis_title=labels["y"],
        height=420,
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
    )
    return fig


def tornado_figure(rows: Sequence[dict[str, Any]], *, labels: dict[str, str]) -> go.Figure:
    """Change of the winner's cost per ETH (%) when each input moves to its low / high value."""
    names = [r["label"] for r in rows]
    fig = go.Figure()
    fig.add_bar(y=names, x=[r["low_pct"] for r in rows], orientation="h", name=labels["low"],
                text=[r["low_text"] for r in rows], marker_color="#5cb85c")  # fmt: skip
    fig.add_bar(y=names, x=[r["high_pct"] for r in rows], orientation="h", name=labels["high"],
                text=[r["high_text"] for r in rows], marker_color="#f0ad4e")  # fmt: skip
    fig.update_layout(
        barmode="overlay",
        title=labels["title"],
        xaxis_title=labels["axis"],
        height=320,
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
    )
    return fig


def to_div(fig: go.Figure) -> str:
    return fig.to_html(include_plotlyjs=False, full_html=False, config={"displaylogo": False})
