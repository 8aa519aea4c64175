"""Small static charts for printed reports: stacked bars, a log-x scatter with error bars and
a grouped tornado, as drawing primitives (SVG text, or pixels through a
renderer such as reports.chart_png) built in plain Python (no browser, no plotting library).

The PDF used to render the page's Plotly figures as PNG through a headless Chromium (seconds per
report, a browser on every worker); these draw the same data in a few milliseconds. Text widths
are estimated (CJK characters one em, others about 0.56 em), enough to place labels and margins.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

FONT = "Noto Sans CJK SC, Noto Sans CJK, DejaVu Sans, sans-serif"
GRID = "#e3e6ec"
INK = "#1d2330"
MUTED = "#555"


def text_width(text: str, size: float) -> float:
    """Estimated width in px of `text` at font size `size`."""
    return sum(size if ord(ch) >= 0x2E80 else size * 0.56 for ch in text)


def clip(text: str, width: float, size: float) -> str:
    """`text` cut with an ellipsis so that it fits `width` px."""
    if text_width(text, size) <= width:
        return text
    out = ""
    for ch in text:
        if text_width(out + ch + "…", size) > width:
            break
        out += ch
    return out + "…"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1, 2, 5 × 10^n steps) covering low..high."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(count, 1)
    exponent = math.floor(math.log10(raw))
    step = min(m * 10.0**exponent for m in (1, 2, 5, 10) if m * 10.0**exponent >= raw)
    start = math.floor(low / step) * step
    ticks = [round(start, 10)]
    while ticks[-1] < high - step * 1e-9:  # the last tick at or beyond high
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def tick_text(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 or value == int(value) else f"{value:,.2g}"


@dataclass
class Chart:
    """A drawing as a list of primitives, turned into SVG here or into pixels by a renderer:
    ("text", x, y, text, size, anchor, fill, weight, rotate), ("rect", x, y, w, h, fill),
    ("line", x1, y1, x2, y2, stroke, width), ("circle", cx, cy, r, fill, stroke, width)."""

    width: float
    height: float
    items: list[tuple[Any, ...]]

    def svg(self) -> str:
        out = []
        for item in self.items:
            kind, *a = item
            if kind == "text":
                x, y, text, size, anchor, fill, weight, rotate = a
                turn = f' transform="rotate({rotate:g} {x:.1f} {y:.1f})"' if rotate else ""
                out.append(
                    f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}" '
                    f'fill="{fill}" font-weight="{weight}"{turn}>{escape(text)}</text>'
                )
            elif kind == "rect":
                x, y, w, h, fill = a
                out.append(
                    f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                    f'fill="{fill}"/>'
                )
            elif kind == "line":
                x1, y1, x2, y2, stroke, width = a
                out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                           f'stroke="{stroke}" stroke-width="{width:g}"/>')  # fmt: skip
            elif kind == "circle":
                cx, cy, r, fill, stroke, width = a
                out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:g}" fill="{fill}" '
                           f'stroke="{stroke}" stroke-width="{width:g}"/>')  # fmt: skip
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" '
            f'height="{self.height:.0f}" viewBox="0 0 {self.width:.0f} {self.height:.0f}" '
            f'font-family="{FONT}" fill="{INK}">' + "".join(out) + "</svg>"
        )


def _text(x: float, y: float, text: str, *, size: float = 11, anchor: str = "start",
          fill: str = INK, weight: str = "normal",
          rotate: float = 0) -> tuple[Any, ...]:  # fmt: skip
    return ("text", x, y, text, size, anchor, fill, weight, rotate)


def _rect(x: float, y: float, w: float, h: float, fill: str) -> tuple[Any, ...]:
    if w < 0:
        x, w = x + w, -w
    return ("rect", x, y, max(w, 0.0), h, fill)


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str = GRID,
          width: float = 1) -> tuple[Any, ...]:  # fmt: skip
    return ("line", x1, y1, x2, y2, stroke, width)


def _circle(
    cx: float, cy: float, r: float, fill: str, stroke: str, width: float = 2
) -> tuple[Any, ...]:
    return ("circle", cx, cy, r, fill, stroke, width)


def _legend(items: Sequence[tuple[str, str]], x: float, y: float, *,
            hollow: bool = False) -> list[tuple[Any, ...]]:  # fmt: skip
    out = []
    for i, (label, colour) in enumerate(items):
        if hollow and i == 1:
            out.append(_circle(x + 5, y - 4, 5, "white", colour))
        else:
            out.append(_rect(x, y - 9, 10, 10, colour))
        out.append(_text(x + 14, y, label, size=11))
        x += 14 + text_width(label, 11) + 18
    return out


@dataclass(frozen=True)
class Series:
    name: str
    colour: str
    values: Sequence[float]


def stacked_bars(names: Sequence[str], series: Sequence[Series], *, title: str, axis: str,
                 width: float = 900) -> Chart:  # fmt: skip
    """Horizontal stacked bars, one row per name (first at the top)."""
    row, top, bottom = 22.0, 58.0, 46.0
    height = top + row * len(names) + bottom
    label_w = min(max((text_width(n, 11) for n in names), default=0) + 12, width * 0.42)
    x0, x1 = label_w, width - 20
    totals = [sum(max(s.values[i], 0.0) for s in series) for i in range(len(names))]
    ticks = nice_ticks(0.0, max(totals, default=1.0) or 1.0)
    scale = (x1 - x0) / (ticks[-1] or 1.0)
    body = [_text(0, 18, title, size=14, weight="bold")]
    body += _legend([(s.name, s.colour) for s in series], 0, 40)
    for t in ticks:
        x = x0 + t * scale
        body.append(_line(x, top - 4, x, top + row * len(names)))
        body.append(
            _text(
                x, top + row * len(names) + 15, tick_text(t), size=10, anchor="middle", fill=MUTED
            )
        )
    for i, name in enumerate(names):
        y = top + i * row
        body.append(
            _text(x0 - 6, y + row * 0.68, clip(name, label_w - 10, 11), size=11, anchor="end")
        )
        x = x0
        for s in series:
            w = max(s.values[i], 0.0) * scale
            body.append(_rect(x, y + 3, w, row - 6, s.colour))
            x += w
    body.append(_text((x0 + x1) / 2, height - 8, axis, size=11, anchor="middle", fill=MUTED))
    return Chart(width, height, body)


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    low: float
    high: float
    text: str
    hollow: bool = False


def log_scatter(points: Sequence[Point], *, title: str, x_axis: str, y_axis: str,
                legend: Sequence[tuple[str, str]], width: float = 900,
                height: float = 460) -> Chart:  # fmt: skip
    """Points on a log x axis (1-2-5 ticks) and a linear y axis from 0, with vertical error bars;
    filled points first in the legend, hollow ones second."""
    left, right, top, bottom = 70.0, 30.0, 58.0, 52.0
    xs = [p.x for p in points if p.x > 0] or [1.0]
    lo_x, hi_x = math.log10(min(xs) / 1.6), math.log10(max(xs) * 1.6)
    if hi_x - lo_x < 0.5:
        lo_x, hi_x = lo_x - 0.25, hi_x + 0.25
    y_ticks = nice_ticks(0.0, max((p.high for p in points), default=1.0) * 1.08 or 1.0)
    pw, ph = width - left - right, height - top - bottom

    def px(v: float) -> float:
        return left + (math.log10(max(v, 1e-9)) - lo_x) / (hi_x - lo_x) * pw

    def py(v: float) -> float:
        return top + ph - v / (y_ticks[-1] or 1.0) * ph

    body = [_text(0, 18, title, size=14, weight="bold")]
    body += _legend(legend, 0, 40, hollow=True)
    for t in y_ticks:
        body.append(_line(left, py(t), left + pw, py(t)))
        body.append(_text(left - 6, py(t) + 4, tick_text(t), size=10, anchor="end", fill=MUTED))
    for exponent in range(math.floor(lo_x), math.ceil(hi_x) + 1):
        for m in (1, 2, 5):
            v = m * 10.0**exponent
            if lo_x <= math.log10(v) <= hi_x:
                body.append(_line(px(v), top, px(v), top + ph))
                body.append(
                    _text(px(v), top + ph + 15, f"{v:g}", size=10, anchor="middle", fill=MUTED)
                )
    body.append(_line(left, top + ph, left + pw, top + ph, MUTED))
    body.append(_text(left + pw / 2, height - 10, x_axis, size=11, anchor="middle", fill=MUTED))
    body.append(_text(14, top + ph / 2, y_axis, anchor="middle", fill=MUTED, rotate=-90))
    colour = legend[0][1] if legend else INK
    for p in points:
        x = px(p.x)
        body.append(_line(x, py(p.low), x, py(p.high), colour, 1.2))
        fill = "white" if p.hollow else colour
        body.append(_circle(x, py(p.y), 5, fill, colour))
        body.append(_text(x + 8, py(p.y) + 3, p.text, size=9))
    return Chart(width, height, body)


@dataclass(frozen=True)
class TornadoRow:
    group: str  # the parameter
    name: str  # the offer
    low: float | None  # change in %
    high: float | None
    low_text: str
    high_text: str


def tornado(rows: Sequence[TornadoRow], *, title: str, axis: str,
            legend: Sequence[tuple[str, str]], width: float = 900) -> Chart:  # fmt: skip
    """Two bars (low, high setting) per row around 0 %, rows grouped under their parameter."""
    row, top, bottom = 26.0, 58.0, 46.0
    groups = list(dict.fromkeys(r.group for r in rows))
    height = top + row * len(rows) + 18 * len(groups) + bottom
    label_w = min(max((text_width(r.name, 10) for r in rows), default=0) + 14, width * 0.38)
    x0, x1 = label_w + 40, width - 60
    extent = max((abs(v) for r in rows for v in (r.low, r.high) if v is not None), default=1.0)
    ticks = nice_ticks(-(extent or 1.0), extent or 1.0, 6)
    lo, hi = ticks[0], ticks[-1]

    def px(v: float) -> float:
        return x0 + (v - lo) / ((hi - lo) or 1.0) * (x1 - x0)

    body = [_text(0, 18, title, size=14, weight="bold")]
    body += _legend(legend, 0, 40)
    y = top
    plot_bottom = height - bottom
    for t in ticks:
        body.append(
            _line(px(t), top, px(t), plot_bottom, MUTED if t == 0 else GRID, 2 if t == 0 else 1)
        )
        body.append(
            _text(
                px(t),
                plot_bottom + 15,
                f"{t:+g}%" if t else "0%",
                size=10,
                anchor="middle",
                fill=MUTED,
            )
        )
    current = None
    for r in rows:
        if r.group != current:
            current = r.group
            body.append(_text(0, y + 13, clip(r.group, width * 0.5, 11), size=11, weight="bold"))
            y += 18
        body.append(
            _text(x0 - 46, y + row * 0.62, clip(r.name, label_w - 6, 10), size=10, anchor="end")
        )
        for i, (value, text) in enumerate(((r.low, r.low_text), (r.high, r.high_text))):
            colour = legend[i][1] if i < len(legend) else INK
            bar_y = y + 3 + i * (row - 6) / 2
            v = value or 0.0
            body.append(_rect(px(0), bar_y, px(v) - px(0), (row - 6) / 2 - 1, colour))
            tx = px(v) + (4 if v >= 0 else -4)
            body.append(_text(tx, bar_y + 9, text, size=9, anchor="start" if v >= 0 else "end"))
        y += row
    body.append(_text((x0 + x1) / 2, height - 8, axis, size=11, anchor="middle", fill=MUTED))
    return Chart(width, height, body)
