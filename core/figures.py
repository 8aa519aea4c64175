"""Plotly figures in a page without inline script (the Content-Security-Policy allows scripts
from the portal's own files only): a box and the figure's JSON in a data block, which
``static/core/figures.js`` (every page) draws with the locally served plotly.js.

The JSON escapes ``<``, ``>`` and ``&`` like Django's ``json_script``, so no text in a figure
(a vendor's name in a label) can close the block or open a tag.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


def figure_data(fig: go.Figure, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The figure as plain JSON: {"data", "layout", "config"}."""
    plain: dict[str, Any] = json.loads(pio.to_json(fig, validate=False))
    return {"data": plain.get("data", []), "layout": plain.get("layout", {}),
            "config": config or {}}  # fmt: skip


def figure_block(fig: go.Figure, config: dict[str, Any] | None = None) -> str:
    """HTML of one figure: its box (class ``plotly-graph-div chart-figure``) and data block."""
    key = f"figure-{uuid.uuid4().hex}"
    plain = json.dumps(figure_data(fig, config), separators=(",", ":"), ensure_ascii=False)
    text = plain.translate(_ESCAPES)
    return (
        f'<div class="plotly-graph-div chart-figure" data-figure="{key}"></div>'
        f'<script id="{key}" type="application/json">{text}</script>'
    )
