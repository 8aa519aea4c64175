"""How numbers are shown to people: one place for money, bandwidth, time, shares and token counts.

Pages, the PDF and the workbook's text cells all print through these functions (the template
filters in `reports.templatetags.fmt` are thin wrappers), so "52000.00 CNY" never stands next to
"323,000 CNY" and no float prints with fifteen digits. Every function takes the language code
("zh-hans", "en", …) and returns text; None, NaN and infinities print as a dash.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

DASH = "—"

Number = int | float | Decimal | str | None

# Currency symbols are ambiguous (¥ is also the yen): print the ISO code, except the yuan in
# Chinese text, which is written 元.
_ZH_CURRENCY = {"CNY": "元"}


def _is_zh(lang: str | None) -> bool:
    return bool(lang) and str(lang).lower().startswith("zh")


def to_float(value: Number | object) -> float | None:
    """The value as a finite float, or None (None, blank, text that is no number, NaN, ±inf)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, InvalidOperation):
        return None
    return x if math.isfinite(x) else None


def _trim(text: str) -> str:
    """Drop trailing zeros of a decimal fraction ("12.50" -> "12.5", "3.00" -> "3")."""
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def number(value: Number, decimals: int = 0, *, trim: bool = False) -> str:
    """Grouped by thousands with `decimals` places: 2131036 -> "2,131,036"."""
    x = to_float(value)
    if x is None:
        return DASH
    text = f"{x:,.{max(0, int(decimals))}f}"
    if text.startswith("-") and not text.strip("-0.,"):
        text = text[1:]  # "-0.00" is zero
    return _trim(text) if trim else text


def significant(value: Number, *, max_decimals: int = 2) -> str:
    """A measurement: grouped, at most `max_decimals` places, no trailing zeros: 91.071 -> 91.07."""
    x = to_float(value)
    if x is None:
        return DASH
    return number(x, max_decimals, trim=True)


def currency_label(currency: str | None, lang: str | None) -> str:
    code = (currency or "CNY").upper()
    return _ZH_CURRENCY.get(code, code) if _is_zh(lang) else code


def money(value: Number, currency: str | None = "CNY", lang: str | None = None, *,
          decimals: int = 2) -> str:  # fmt: skip
    """An amount with its currency: "52,000.00 CNY", in Chinese "52,000.00 元".

    Whole amounts (`decimals=0`) below one unit keep their cents: 0.125 CNY reads "0.13 CNY",
    never "0 CNY" (rounded to the cent, as money is everywhere else)."""
    x = to_float(value)
    if decimals == 0 and x is not None and 0 < abs(x) < 1:
        decimals = 2
    if x is not None and math.isfinite(x):
        # half a cent rounds up (四舍五入), as on an invoice: 0.125 -> 0.13, not the float's 0.12
        x = float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP))
    text = number(x if x is not None else value, decimals)
    if text == DASH:
        return DASH
    return f"{text} {currency_label(currency, lang)}"


def bandwidth(gbps: Number, lang: str | None = None) -> str:
    """A bandwidth in Gbit/s: 100 -> "100 Gbit/s", 12.5 -> "12.5 Gbit/s", 0.25 -> "0.25 Gbit/s"."""
    x = to_float(gbps)
    if x is None:
        return DASH
    places = 0 if abs(x) >= 100 else 1 if abs(x) >= 1 else 2
    return f"{number(x, places, trim=True)} Gbit/s"


def mbps(value: Number, lang: str | None = None) -> str:
    """A (public) bandwidth in Mbit/s, whole numbers: 1234.6 -> "1,235 Mbit/s"."""
    x = to_float(value)
    return DASH if x is None else f"{number(x, 0)} Mbit/s"


def seconds(value: Number, lang: str | None = None) -> str:
    """A short duration: 0.8421 -> "0.84 s" (in Chinese "0.84 秒")."""
    x = to_float(value)
    if x is None:
        return DASH
    places = 0 if abs(x) >= 100 else 2
    return f"{number(x, places, trim=places == 0)} {'秒' if _is_zh(lang) else 's'}"


def hours(value: Number, lang: str | None = None) -> str:
    """A long duration in hours, whole: 2131.2 -> "2,131 h" (in Chinese "2,131 小时")."""
    x = to_float(value)
    if x is None:
        return DASH
    places = 0 if abs(x) >= 10 else 1
    return f"{number(x, places, trim=True)} {'小时' if _is_zh(lang) else 'h'}"


def percent(fraction: Number, decimals: int = 1, *, signed: bool = False) -> str:
    """A share given as a fraction: 0.853 -> "85.3%", 0.5 -> "50%"."""
    x = to_float(fraction)
    if x is None:
        return DASH
    text = number(x * 100, decimals, trim=True)
    if signed and x > 0:
        text = "+" + text
    return f"{text}%"


def availability(value: Number) -> str:
    """An availability as a percentage with the digits that matter: 0.999 -> "99.9%",
    0.9995 -> "99.95%", 1 -> "100%". Values above 1 are taken as percentages already (99.9)."""
    x = to_float(value)
    if x is None:
        return DASH
    pct = x if x > 1 else x * 100
    return f"{number(pct, 3, trim=True)}%"


_ZH_UNITS = ((1e12, "万亿"), (1e8, "亿"), (1e4, "万"))
_EN_UNITS = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))


def tokens(value: Number, lang: str | None = None) -> str:
    """A token count, short: 57,024,000,000 -> "57.02B" (English), "570.24亿" (Chinese).

    Chinese counts in 万 (10^4) and 亿 (10^8), English in K, M, B (10^3, 10^6, 10^9)."""
    x = to_float(value)
    if x is None:
        return DASH
    units = _ZH_UNITS if _is_zh(lang) else _EN_UNITS
    for size, unit in units:
        if abs(x) >= size:
            return f"{number(x / size, 2, trim=True)}{unit}"
    return number(x, 0)


def compact(value: Number, lang: str | None = None) -> str:
    """Any large count written short the same way as `tokens` (12,500 -> "1.25万" / "12.5K")."""
    return tokens(value, lang)
