"""Plotly figures of a ranking: functions from result rows to figures (page and PDF)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from django.utils.translation import get_language

from domain.labels import shown as shown_label

from .inputs import short_label

COMPUTE = "#2f6db5"
EXPOSED = "#d9534f"


def _vendor(r: Any) -> str:
    """The vendor's name in the active language (RankingResult.vendor_shown)."""
    return str(getattr(r, "vendor_shown", None) or r.vendor_name or "")


def _rank(r: Any) -> int | None:
    """The rank a chart prints: the decision's, none for an excluded offer (dicts and stored
    rows alike)."""
    if isinstance(r, dict):
        return r.get("decision_rank") if r.get("eligible", True) else None
    return getattr(r, "shown_rank", getattr(r, "rank", None))


def _name(r: Any) -> str:
    vendor = _vendor(r)
    head = f"#{_rank(r)} " if _rank(r) else "✕ "
    label = _label(r)
    return f"{head}{vendor} · {label}" if vendor else f"{head}{label}"


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
        legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1.0, "xanchor": "right"},
    )
    return fig


def _label(r: Any) -> str:
    """The offer's label in the figure's language (the job draws one per language)."""
    return shown_label(r.label, get_language())


def _full_name(r: Any) -> str:
    vendor = _vendor(r)
    return f"{vendor} · {_label(r)}" if vendor else _label(r)


def _log_ticks(values: Sequence[float]) -> list[float]:
    """1-2-5 ticks covering the values (a log axis with readable plain numbers)."""
    positive = [v for v in values if v and v > 0]
    if not positive:
        return []
    low, high = min(positive), max(positive)
    ticks = []
    for exponent in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 2):
        ticks += [m * 10.0**exponent for m in (1, 2, 5)]
    return [t for t in ticks if low / 2.5 <= t <= high * 2.5]


def cost_vs_bandwidth_figure(results: Sequence[Any], *, labels: dict[str, str]) -> go.Figure:
    """Cost per ETH against effective bandwidth, with the P5...P50 range as error bars.

    Points carry a short label ("#rank fabric"); the full vendor and quote name is the hover text.
    """
    fig = go.Figure()
    for basis, symbol in (("measured", "circle"), ("nominal", "circle-open")):
        rows = [r for r in results if r.bandwidth_basis == basis]
        if not rows:
            continue
        fig.add_scatter(
            x=[r.bandwidth_gbps for r in rows],
            y=[r.cost_per_eth for r in rows],
            mode="markers+text",
            text=[short_label(_rank(r), r.label) for r in rows],
            textposition="top center",
            textfont={"size": 11},
            hovertext=[
                f"{_full_name(r)}<br>{r.bandwidth_gbps:.1f} Gbit/s"
                f" · {r.cost_per_eth:.2f} {r.currency}"
                for r in rows
            ],
            hoverinfo="text",
            name=labels[basis],
            marker={"size": 12, "symbol": symbol, "line": {"width": 2}},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [r.cost_per_eth_high - r.cost_per_eth for r in rows],
                "arrayminus": [r.cost_per_eth - r.cost_per_eth_low for r in rows],
            },
            cliponaxis=False,
        )
    ticks = _log_ticks([r.bandwidth_gbps for r in results])
    fig.update_layout(
        title=labels["title"],
        xaxis={
            "title": labels["x"],
            "type": "log",
            "tickvals": ticks,
            "ticktext": [f"{t:g}" for t in ticks],
            "showgrid": True,
        },
        yaxis={"title": labels["y"], "rangemode": "tozero"},
        height=420,
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        legend={"orientation": "h", "y": -0.22},
    )
    return fig


def _pct_text(pct: float | None) -> str:
    return "—" if pct is None else ("±0%" if pct == 0 else f"{pct:+.1f}%")


def tornado_figure(rows: Sequence[dict[str, Any]], *, labels: dict[str, str]) -> go.Figure:
    """Per parameter, every shown offer's cost per ETH change (%) at the low and the high setting
    (the winner first, marked ★); a grouped tornado on a two-level axis (parameter, offer)."""
    params: list[str] = []
    offers: list[str] = []
    sides: dict[str, dict[str, list[Any]]] = {
        side: {"x": [], "text": [], "hover": []} for side in ("low", "high")
    }
    for row in rows:
        for o in row.get("offers") or []:
            params.append(row["label"])
            offers.append(("★ " if o["is_winner"] else "") + o["name"])
            for side in ("low", "high"):
                pct = o[f"{side}_pct"]
                new_rank = o[f"{side}_rank"]
                moved = f" → #{new_rank}" if new_rank and new_rank != o["rank"] else ""
                sides[side]["x"].append(pct or 0.0)
                sides[side]["text"].append(_pct_text(pct) + moved)
                sides[side]["hover"].append(
                    f"{o['full_name']}<br>{row['label']}: {row[f'{side}_value']:g}<br>"
                    f"{o['base']:.2f} → {'—' if o[side] is None else format(o[side], '.2f')}"
                    f" ({_pct_text(pct)}), #{o['rank']}{moved}"
                )
    fig = go.Figure()
    for side, colour in (("low", "#5cb85c"), ("high", "#f0ad4e")):
        fig.add_bar(
            y=[params, offers],
            x=sides[side]["x"],
            orientation="h",
            name=labels[side],
            text=sides[side]["text"],
            textposition="outside",
            cliponaxis=False,
            hovertext=sides[side]["hover"],
            hoverinfo="text",
            marker_color=colour,
        )
    fig.update_layout(
        barmode="group",
        title=labels["title"],
        xaxis={"title": labels["axis"], "zeroline": True, "zerolinewidth": 2, "ticksuffix": "%"},
        yaxis={"autorange": "reversed"},
        height=max(320, 110 + 34 * len(offers)),
        margin={"l": 10, "r": 60, "t": 60, "b": 50},
        legend={"orientation": "h", "y": -0.12},
        bargap=0.25,
        uniformtext={"minsize": 9, "mode": "show"},
    )
    return fig


def to_data(fig: go.Figure) -> dict[str, Any]:
    """The figure as plain JSON ({"data", "layout"}): what a run stores and ranking.js draws."""
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    data: dict[str, Any] = json.loads(pio.to_json(fig, validate=False))
    return {"data": data.get("data", []), "layout": data.get("layout", {})}


def to_div(fig: go.Figure) -> str:
    # axes make room for their labels (no clipped names at 390 px); ranking.js adapts to phones
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig.to_html(
        include_plotlyjs=False, full_html=False, config={"displaylogo": False, "responsive": True}
    )
