"""Ranking charts keep their labels on phones: axes make room for tick labels (automargin) and
the figure follows its box (responsive); ranking.js does the narrow-screen part."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from rankings.figures import cost_breakdown_figure, to_div

LABELS = {"title": "t", "compute": "c", "exposed": "e", "axis": "a"}


def test_the_chart_html_asks_for_automargin_and_a_responsive_figure() -> None:
    row = SimpleNamespace(rank=1, vendor_name="A very long vendor name Ltd.", label="offer",
                          cost_per_eth=10.0, compute_time_s=1.0, exposed_comm_s=0.5,
                          step_time_s=1.5)  # fmt: skip
    html = to_div(cost_breakdown_figure([row], labels=LABELS))
    assert html.count('"automargin":true') >= 2
    assert '"responsive": true' in html and '"displaylogo": false' in html


def test_ranking_js_adapts_charts_on_narrow_screens_and_after_a_what_if() -> None:
    js = (Path(__file__).resolve().parents[2] / "static/rankings/ranking.js").read_text()
    assert "fitCharts(root)" in js and "fitCharts(section)" in js
    assert "displayModeBar: !narrow" in js and "ticktext" in js
