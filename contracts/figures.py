"""Plotly figures of a contract's stored report: delivered against committed over time.

The same figure serves the page (``figure_block``, the locally served plotly.js) and the claim
pack's PDF (a static image, ``reports.chart_png``)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from django.utils import timezone
from django.utils.translation import gettext as _

from core.figures import figure_block
from domain.delivery.report import DeliveryReport, downsample_timeline
from domain.svgcharts import Chart, nice_ticks, text_width, tick_text

DELIVERED = "#2f6db5"
LOWEST = "#d9534f"
COMMITTED = "#333333"
NO_DATA = "#b0b7c3"
MAX_CHART_POINTS = 1000
"""Points per series on the page: a 90-day term of hourly windows (2,160) is merged pairwise
(``domain.delivery.report.downsample_timeline`` keeps the lowest figure of each pair)."""


def _x(moment: Any) -> str:
    """A window's start as the page's other times show it (local time, minutes): plotly.js
    ignores a written offset, so an ISO time in UTC would be drawn eight hours early, and the
    short form keeps the payload small."""
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}"


def _y(value: float | None) -> float | None:
    return None if value is None else round(value, 3)  # Mbit/s: finer is noise on a chart


def delivery_figure(report: DeliveryReport, *, threshold_fraction: float | None) -> go.Figure:
    """Per window: the mean and the lowest server's delivered Gbit/s, the committed figure and
    the breach threshold; windows without any data marked apart along the bottom."""
    points = downsample_timeline(report.timeline, MAX_CHART_POINTS)
    x = [_x(p.start) for p in points]
    committed = report.commitment.bandwidth_gbps_per_server
    fig = go.Figure()
    # an idle window (only traffic below the threshold, no test) is not drawn as delivered
    # bandwidth: its low figure says the job was quiet, not that the link fell short
    fig.add_scatter(x=x, y=[None if p.idle_only else _y(p.delivered_gbps_mean) for p in points],
                    mode="lines", name=_("delivered, mean per server"),
                    line={"color": DELIVERED}, connectgaps=False)  # fmt: skip
    fig.add_scatter(x=x, y=[None if p.idle_only else _y(p.delivered_gbps_min) for p in points],
                    mode="lines", name=_("delivered, lowest server"),
                    line={"color": LOWEST, "width": 1}, connectgaps=False)  # fmt: skip
    idle = [p for p in points if p.idle_only]
    if idle:
        fig.add_scatter(x=[_x(p.start) for p in idle], y=[_y(p.delivered_gbps_mean) for p in idle],
                        mode="markers", name=_("traffic only, below the threshold (idle, no test)"),
                        marker={"color": NO_DATA, "size": 4})  # fmt: skip
    no_data = [_x(p.start) for p in points if p.hosts_measured == 0]
    if no_data:
        fig.add_scatter(x=no_data, y=[0] * len(no_data), mode="markers",
                        name=_("no data"), marker={"color": NO_DATA, "symbol": "line-ns-open",
                                                   "size": 8})  # fmt: skip
    if committed and x:
        fig.add_scatter(x=[x[0], _x(points[-1].end)], y=[committed, committed], mode="lines",
                        name=_("committed"), line={"color": COMMITTED, "dash": "dash"})  # fmt: skip
        if threshold_fraction:
            level = committed * threshold_fraction
            fig.add_scatter(x=[x[0], _x(points[-1].end)], y=[level, level], mode="lines",
                            name=_("breach threshold"),
                            line={"color": LOWEST, "dash": "dot", "width": 1})  # fmt: skip
    # the title is the page's own heading: a figure title is cut on a phone
    fig.update_layout(
        yaxis_title="Gbit/s", height=380,
        margin={"l": 10, "r": 10, "t": 20, "b": 40},
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": -0.15, "yanchor": "top"},
    )  # fmt: skip
    fig.update_yaxes(rangemode="tozero")
    return fig


def _threshold(contract: Any) -> float | None:
    bw = (contract.schedule or {}).get("bandwidth") or {}
    return bw.get("threshold_fraction")


def delivery_chart(report: DeliveryReport, contract: Any) -> str:
    """The page's chart block from the stored report ("" when there is nothing to draw)."""
    if not report.timeline:
        return ""
    fig = delivery_figure(report, threshold_fraction=_threshold(contract))
    return figure_block(fig, {"displaylogo": False, "responsive": True})


def threshold(contract: Any) -> float | None:
    return _threshold(contract)


def delivery_drawing(report: DeliveryReport, *, threshold_fraction: float | None) -> Any:
    """The same figure for the PDF, as ``domain.svgcharts`` primitives (painted by
    ``reports.chart_png``): mean and lowest delivered per window, committed and threshold."""

    points = list(report.timeline)
    if not points:
        return None
    width, height, left, right, top, bottom = 760.0, 300.0, 56.0, 12.0, 44.0, 46.0
    committed = report.commitment.bandwidth_gbps_per_server or 0.0
    values = [v for p in points for v in (p.delivered_gbps_mean, p.delivered_gbps_min) if v]
    top_value = max([committed * 1.1, *values, 1.0])
    ticks = nice_ticks(0, top_value)
    y_max = max(ticks[-1], top_value)
    t0, t1 = points[0].start.timestamp(), points[-1].end.timestamp()
    span = max(t1 - t0, 1.0)

    def px(t: float) -> float:
        return left + (t - t0) / span * (width - left - right)

    def py(v: float) -> float:
        return top + (1 - v / y_max) * (height - top - bottom)

    title = _("Delivered against committed bandwidth per server")
    items: list[tuple[Any, ...]] = [("text", left, 20.0, title, 13, "start", "#1d2330", "bold", 0)]
    for t in ticks:
        items.append(("line", left, py(t), width - right, py(t), "#e3e6ec", 1))
        items.append(("text", left - 6, py(t) + 4, tick_text(t), 10, "end", "#555", "normal", 0))
    items.append(("text", left, top - 6, "Gbit/s", 10, "end", "#555", "normal", 0))
    for key, colour, w in (("delivered_gbps_mean", DELIVERED, 1.6),
                           ("delivered_gbps_min", LOWEST, 1.0)):  # fmt: skip
        prev = None
        for p in points:
            v = None if p.idle_only else getattr(p, key)  # idle traffic is not a shortfall
            here = None if v is None else (px(p.start.timestamp()), py(v))
            if prev and here:
                items.append(("line", prev[0], prev[1], here[0], here[1], colour, w))
            prev = here
    for p in points:
        if p.hosts_measured == 0:
            x = px(p.start.timestamp())
            items.append(("rect", x, height - bottom - 6, max(px(p.end.timestamp()) - x, 1), 6,
                          NO_DATA))  # fmt: skip
    if committed:
        items.append(("line", left, py(committed), width - right, py(committed), COMMITTED, 1.2))
        if threshold_fraction:
            level = committed * threshold_fraction
            items.append(("line", left, py(level), width - right, py(level), LOWEST, 0.8))
    first, last = points[0].start, points[-1].end
    items.append(("text", left, height - bottom + 16, f"{first:%Y-%m-%d}", 10, "start", "#555",
                  "normal", 0))  # fmt: skip
    items.append(("text", width - right, height - bottom + 16, f"{last:%Y-%m-%d}", 10, "end",
                  "#555", "normal", 0))  # fmt: skip
    legend = [(_("delivered, mean per server"), DELIVERED), (_("delivered, lowest server"), LOWEST),
              (_("committed"), COMMITTED), (_("no data"), NO_DATA)]  # fmt: skip
    x = left
    for label, colour in legend:
        items.append(("rect", x, height - 14, 10, 10, colour))
        items.append(("text", x + 14, height - 5, label, 10, "start", "#1d2330", "normal", 0))
        x += 14 + text_width(label, 10) + 18
    return Chart(width, height, items)
