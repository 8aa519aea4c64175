"""Number formatting of the reports: grouped thousands, a dash for what is unknown."""

from __future__ import annotations

import math

from django import template

register = template.Library()


@register.filter
def num(value, digits: int = 0) -> str:  # type: ignore[no-untyped-def]
    try:
        x = float(value)
    except (TypeError, ValueError):
        return "—"
    if not math.isfinite(x):
        return "—"
    return f"{x:,.{int(digits)}f}"


@register.filter
def absval(value):  # type: ignore[no-untyped-def]
    return abs(value) if isinstance(value, int | float) else value
