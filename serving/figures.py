"""Plotly figures of serving: functions from domain results to figures (page and PDF)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import plotly.graph_objects as go

from core.figures import figure_block
from domain import serving as sv

COMPUTE = "#2f6db5"
BANDWIDTH = "#f0ad4e"
PLAN_COLOURS = {"fixed": "#2f6db5", "per_gb": "#5cb85c", "p95": "#d9534f"}
# The legend sits below the x-axis title (Plotly's default horizontal legend covers it).
_LAYOUT = {
    "margin": {"l": 10, "r": 10, "t": 50, "b": 40},
    "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": -0.2, "yanchor": "top"},
}


# A bar's label: its rank and the offer without the vendor, cut to this many characters (the
# whole name is in the hover text). Whole names ("示例…有限公司【演示】 · 6×8 L40S …") squeezed
# the plot at 390 px and cut to the same vendor prefix, so two bars read the same.
SHORT_LABEL = 22


def short_name(rank: int, full: str) -> str:
    offer = full.split(" · ", 1)[-1].strip() or full
    if len(offer) > SHORT_LABEL:
        offer = offer[: SHORT_LABEL - 1] + "…"
    return f"#{rank} {offer}" if rank else f"✕ {offer}"  # an excluded offer has no rank


def cost_per_million_figure(
    results: Sequence[sv.ServingResult], *, name: Callable[[str], str], labels: dict[str, str]
) -> go.Figure:
    """Cost per million served tokens per offer, split into compute and public bandwidth."""
    names = [short_name(r.rank, name(r.offer_id)) for r in results]
    full = [name(r.offer_id) for r in results]
    per_m = [r.sizing.monthly_tokens / 1e6 for r in results]
    fig = go.Figure()
    fig.add_bar(
        y=names,
        x=[r.compute_cny_month / m for r, m in zip(results, per_m, strict=True)],
        orientation="h",
        name=labels["compute"],
        marker_color=COMPUTE,
        hovertext=full,
    )
    fig.add_bar(
        y=names,
        x=[r.bandwidth_cny_month / m for r, m in zip(results, per_m, strict=True)],
        orientation="h",
        name=labels["bandwidth"],
        marker_color=BANDWIDTH,
        hovertext=full,
    )
    fig.update_layout(
        barmode="stack",
        title=labels["title"],
        xaxis_title=labels["axis"],
        yaxis={"autorange": "reversed"},
        height=140 + 40 * len(results),
        **_LAYOUT,
    )
    return fig


def bandwidth_bill_figure(
    results: Sequence[sv.ServingResult],
    *,
    name: Callable[[str], str],
    labels: dict[str, str],
) -> go.Figure:
    """The month's public-bandwidth bill of each offer under each billing model it has."""
    fig = go.Figure()
    for kind, colour in PLAN_COLOURS.items():
        rows = [(r, b) for r in results for b in r.bills if b.kind == kind]
        if rows:
            fig.add_bar(
                x=[short_name(r.rank, name(r.offer_id)) for r, _ in rows],
                hovertext=[name(r.offer_id) for r, _ in rows],
                y=[b.bill_cny for _, b in rows],
                name=labels[kind],
                marker_color=colour,
            )
    fig.update_layout(
        barmode="group", title=labels["title"], yaxis_title=labels["axis"], height=380, **_LAYOUT
    )
    return fig


def month_line_figure(outcome: sv.MixedPlanOutcome, *, labels: dict[str, str]) -> go.Figure:
    """Month-by-month cost of a mixed plan: elastic against fixed bandwidth, and the need."""
    months = [m.month for m in outcome.months]
    fig = go.Figure()
    fig.add_scatter(
        x=months,
        y=[m.total_fixed_cny for m in outcome.months],
        mode="lines+markers",
        name=labels["fixed"],
        line={"color": "#d9534f", "shape": "hv"},
    )
    fig.add_scatter(
        x=months,
        y=[m.total_elastic_cny for m in outcome.months],
        mode="lines+markers",
        name=labels["elastic"],
        line={"color": "#5cb85c", "shape": "hv"},
    )
    fig.add_bar(
        x=months,
        y=[m.need_mbps for m in outcome.months],
        name=labels["need"],
        yaxis="y2",
        marker_color="rgba(47,109,181,0.25)",
    )
    fig.update_layout(
        title=labels["title"],
        xaxis={"title": labels["month"], "dtick": 1},
        yaxis={"title": labels["axis"], "rangemode": "tozero"},
        yaxis2={
            "title": labels["need_axis"],
            "overlaying": "y",
            "side": "right",
            "rangemode": "tozero",
            "showgrid": False,
        },
        height=420,
        **_LAYOUT,
    )
    return fig


def to_div(fig: go.Figure) -> str:
    return figure_block(fig, {"displaylogo": False})
