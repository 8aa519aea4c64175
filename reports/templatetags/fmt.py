"""Template filters over `domain.formatting`: `{% load fmt %}` then `{{ x|money:r.currency }}`.

The filters only pick the active language; every rule of how a number looks lives in the domain
module, shared with the PDF and the workbook.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import get_language

from domain import formatting as f
from domain import money as money_rule
from domain.regions import province_names
from reports.summary import province as _province

register = template.Library()


@register.filter
def num(value: Any, decimals: int = 0) -> str:
    """Grouped by thousands: `{{ 2131036|num }}` -> 2,131,036; `{{ x|num:2 }}` -> 12.50."""
    return f.number(value, int(decimals))


@register.filter
def measure(value: Any, max_decimals: int = 2) -> str:
    """A measured value with at most `max_decimals` places, trailing zeros dropped."""
    return f.significant(value, max_decimals=int(max_decimals))


@register.filter
def money(value: Any, currency: str | None = "CNY") -> str:
    """`{{ r.monthly_rent|money:r.currency }}` -> 52,000.00 CNY (元 in Chinese)."""
    return f.money(value, currency or "CNY", get_language())


@register.filter
def currency(code: str | None) -> str:
    """The currency's label in the active language (CNY -> 元 in Chinese)."""
    return f.currency_label(code, get_language())


@register.filter
def gbps(value: Any) -> str:
    return f.bandwidth(value, get_language())


@register.filter
def mbps(value: Any) -> str:
    return f.mbps(value, get_language())


@register.filter
def seconds(value: Any) -> str:
    return f.seconds(value, get_language())


@register.filter
def hours(value: Any) -> str:
    return f.hours(value, get_language())


@register.filter
def pct(value: Any, decimals: int = 1) -> str:
    """A fraction as a percentage: `{{ 0.853|pct }}` -> 85.3%."""
    return f.percent(value, int(decimals))


@register.filter
def tax_basis(basis: str | None) -> str:
    """What a comparison says about its money: `{{ team.tax_basis|tax_basis }}` -> "Prices
    compared excluding VAT …" / "价格按不含税口径…" (domain/money.py)."""
    if not basis:  # a ranking run stored before quotes had VAT terms
        return money_rule.TAX_ASSUMED.text(get_language())
    return money_rule.basis_label(basis).text(get_language())


@register.filter
def availability(value: Any) -> str:
    return f.availability(value)


@register.filter
def tokens(value: Any) -> str:
    """A token count: 万 / 亿 in Chinese, K / M / B in English."""
    return f.tokens(value, get_language())


@register.filter
def absval(value: Any) -> Any:
    return abs(value) if isinstance(value, int | float) else value


@register.filter
def pct_points(value: Any, decimals: int = 1) -> str:
    """A change already in percent, signed: `{{ 12.34|pct_points }}` -> +12.3%."""
    x = f.to_float(value)
    return f.DASH if x is None else f.percent(x / 100, int(decimals), signed=True)


@register.filter
def province(code: str | None) -> str:
    """A province in the reader's language only (广东 in Chinese, Guangdong in English)."""
    return _province(code)


@register.filter
def language_name(code: str | None) -> str:
    """A report's language named in the reader's language ("英文" on a Chinese page; the
    language switcher's own "English" stays as it is)."""
    names = {"en": ("English", "英文"), "zh-hans": ("Chinese", "中文")}
    pair = names.get((code or "").lower())
    if pair is None:
        return code or ""
    return pair[1] if (get_language() or "").lower().startswith("zh") else pair[0]


@register.filter
def regions(codes: Any) -> str:
    """A licence's coverage (["national"] or province codes) in the reader's language only."""
    from django.utils.translation import gettext

    names = province_names(get_language())
    words = [gettext("Nationwide") if c == "national" else names.get(c, c) for c in codes or []]
    return "、".join(words) if (get_language() or "").startswith("zh") else ", ".join(words)
