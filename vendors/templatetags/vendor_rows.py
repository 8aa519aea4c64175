"""The vendor list's table rows, written in Python (as quotes.templatetags.quote_rows does for
the quote list): the template engine's nested loops over every vendor's data centres cost more
than the queries. Same cells as before, every value escaped (`fast_html`, format_html's
output). Each vendor
brings `list_data_centres` (vendors.views._with_list_data_centres): plain tuples of the four
columns used here. The template keeps the written rows in the cache (``{% cache %}`` keyed by
`vendor_rows_key`: every value the rows print, and the language)."""

from __future__ import annotations

from html import escape
from typing import Any

from django import template
from django.urls import reverse
from django.utils.safestring import SafeData, SafeString
from django.utils.translation import get_language, gettext

from core import cache
from core.templatetags.portal import bilingual
from vendors.models import DataCentre, NetworkProfile

register = template.Library()

_ROW = (
    '<tr>\n  <td class="key"><a href="{}">{}</a>{}<br><span class="muted small">{}</span></td>\n'
    "  <td>{}</td>\n  <td>{}</td>\n"
    '  <td class="badges" data-critical="{}">{}</td>\n</tr>\n'
)
_BR = SafeString("<br>")


def _e(value: Any) -> str:
    """django.utils.html.conditional_escape without its lazy-string wrapper (the rows escape
    thousands of values): safe text as it is, anything else through html.escape."""
    return value if isinstance(value, SafeData) else escape(str(value))


def fast_html(fmt: str, *args: Any) -> SafeString:
    """format_html: the same output, every argument escaped unless already safe."""
    return SafeString(fmt.format(*map(_e, args)))


def fast_html_rows(sep: str, fmt: str, rows: Any) -> SafeString:
    """format_html_join: `fmt` filled from each tuple of `rows` (escaped), joined by `sep`."""
    return SafeString(_e(sep).join(fmt.format(*map(_e, row)) for row in rows))


def _labels(model: Any, field: str) -> dict[Any, str]:
    return {k: str(label) for k, label in model._meta.get_field(field).flatchoices}


def network_of(dc: DataCentre) -> NetworkProfile | None:
    """The data centre's network profile, or None (a reverse one-to-one raises when absent)."""
    try:
        return dc.network
    except NetworkProfile.DoesNotExist:
        return None


# The rows' markup: bump when it changes (a shared cache must not serve an older release's rows).
ROWS_VERSION = 1
# What a row prints of its vendor (vendors.views.LIST_COLUMNS loads these).
_ROW_COLUMNS = ("pk", "name_zh", "name_en", "is_demo", "findings_critical", "findings_warning",
                "findings_total", "list_data_centres")  # fmt: skip


@register.simple_tag
def vendor_rows_key(vendors: Any) -> str:
    """What the rows of `vendors` are written from: every value they print (a bulk update
    that leaves `updated_at` alone changes them too), the language and the detail address."""
    values = [tuple(getattr(v, c) for c in _ROW_COLUMNS) for v in vendors]
    return cache.digest(ROWS_VERSION, get_language(), reverse("vendors:detail", args=[0]), values)


@register.simple_tag
def vendor_rows(vendors: Any) -> SafeString:
    english = (get_language() or "").startswith("en")
    demo = fast_html(' <span class="muted small">[{}]</span>', gettext("demo"))
    none = fast_html('<span class="muted">{}</span>', "—")
    critical_title, warning_title = gettext("critical"), gettext("warnings")
    ok = SafeString('<span class="badge ok">✓</span>')
    ownership = _labels(DataCentre, "ownership")
    fabrics = _labels(NetworkProfile, "fabric")
    detail = reverse("vendors:detail", args=[0])
    head, tail = detail.rsplit("/0/", 1)
    rows = []
    for v in vendors:
        dcs = v.list_data_centres  # (name, city, ownership, fabric or None)
        places = fast_html_rows(
            _BR, "{} ({})",
            ((city or name, ownership.get(own, own)) for name, city, own, _f in dcs),
        ) if dcs else none  # fmt: skip
        nets = fast_html_rows(
            _BR, "{}", ((fabrics.get(f, f) if f else "",) for _n, _c, _o, f in dcs)
        )  # fmt: skip
        badges = []
        if v.findings_critical:
            badges.append(fast_html('<span class="badge critical" title="{}">{}</span>',
                                      critical_title, v.findings_critical))  # fmt: skip
        if v.findings_warning:
            badges.append(fast_html(' <span class="badge warning" title="{}">{}</span>',
                                      warning_title, v.findings_warning))  # fmt: skip
        if not v.findings_total:
            badges.append(ok)
        rows.append((
            f"{head}/{v.pk}/{tail}", bilingual(v, "name"),
            demo if v.is_demo and "[demo]" not in v.name_en else "",
            v.name_zh if english else v.name_en, places, nets, v.findings_critical,
            SafeString("".join(badges)),
        ))  # fmt: skip
    return fast_html_rows("", _ROW, rows)
