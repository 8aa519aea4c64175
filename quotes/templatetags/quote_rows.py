"""The quote list's table rows, written in Python.

The list is the portal's busiest page, and Django's template engine spent more time on its
rows (25–100 of them, eight cells each) than the database spent finding them. This tag writes
the same cells with `fast_html` (format_html's output, every value escaped) and Django's
own number filters, so
the rows read as the template did. Keep in step with quotes.selectors.quote_list_rows, which
loads only the columns used here.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext

from core.templatetags.portal import bilingual
from domain import formatting
from quotes.models import Quote, QuoteVersion
from vendors.templatetags.vendor_rows import fast_html, fast_html_rows

register = template.Library()

_ROW = (
    '<tr{}>\n  <td><input type="checkbox" name="q" value="{}" aria-label="{} {}"></td>\n'
    '  <td>{}</td>\n  <td><a href="{}">{}</a>{}</td>\n  <td>{}</td>\n  <td>{}</td>\n'
    '  <td class="num">{}</td>\n  <td>{}</td>\n  <td>{}</td>\n</tr>\n'
)


def _labels(model: Any, field: str) -> dict[Any, str]:
    return {k: str(label) for k, label in model._meta.get_field(field).flatchoices}


_MUTED = SafeString(' class="muted"')  # a constant: nothing of the row's data


@register.simple_tag
def quote_rows(quotes: Any) -> SafeString:
    compare = gettext("Compare")
    not_current = fast_html(' <span class="muted small">({})</span>', gettext("not current"))
    unverified = fast_html('<span class="muted">{}</span>', gettext("unverified"))
    # choice labels once per page, not through get_FOO_display() per cell
    fabrics = _labels(QuoteVersion, "fabric")
    kinds = _labels(Quote, "measured_kind")
    # one reverse() for the page: every detail address differs only by the id
    detail = reverse("quotes:detail", args=[0])
    head, tail = detail.rsplit("/0/", 1)
    lang = get_language()
    rows = []
    for q in quotes:
        v = q.current_version
        if v is not None:
            gpus = fast_html("{} × {} × {}", v.nodes, v.gpus_per_node, v.gpu.key if v.gpu else "")
            nic = floatformat(v.nic_gbps, "-1")
            fabric = fabrics.get(v.fabric, v.fabric)
            network = fast_html("{} × {}G {}", v.nics_per_node, nic, fabric)
            rent = formatting.money(q.rent, "CNY", lang, decimals=0)  # on the team's basis
            version = f"v{v.number}"
        else:
            gpus = network = rent = version = ""
        if q.measured_gbps:
            kind = kinds.get(q.measured_kind, q.measured_kind)
            measured = fast_html("{} Gbit/s ({})", floatformat(q.measured_gbps, 1), kind)
        else:
            measured = unverified
        rows.append((
            "" if q.is_current else _MUTED, q.pk, compare, q.label,
            bilingual(q.vendor, "name"), f"{head}/{q.pk}/{tail}", q.label,
            "" if q.is_current else not_current, gpus, network, rent, measured, version,
        ))  # fmt: skip
    return fast_html_rows("", _ROW, rows)


def _compare_cell(kind: str, c: dict[str, Any]) -> str:
    if kind == "top":
        css = ("best" if c.get("best") else "") + (" warning" if c.get("problem") else "")
        note = c.get("note")
        if note:
            return fast_html('<td class="{}" title="{}">{}<div class="small muted">{}</div></td>',
                             css, note, c["text"], note)  # fmt: skip
        return fast_html('<td class="{}">{}</td>', css, c["text"])
    if kind == "risk":
        css = ("best " if c.get("best") else "") + str(c.get("severity", ""))
        return fast_html('<td class="{}">{}</td>', css, c["text"])
    if c.get("best"):
        return fast_html('<td class="best">{}</td>', c["text"])
    return fast_html("<td>{}</td>", c["text"])


@register.simple_tag
def compare_rows(rows: Any, kind: str) -> SafeString:
    """The compare page's rows of one kind ("top": costs, "risk": red flags and evidence,
    "terms"), written in Python as quote_rows does (the template's loops over every row and
    offer cost more than the costs themselves). Same markup as the template wrote."""
    head = '<tr class="top" data-row="{}"><th scope="row">{}</th>' if kind == "top" else (
        '<tr data-row="{}"><th scope="row">{}</th>'
    )  # fmt: skip
    parts = []
    for row in rows:
        parts.append(fast_html(head, row["key"], row["label"]))
        parts.extend(_compare_cell(kind, c) for c in row["cells"])
        parts.append("</tr>")
    return SafeString("".join(parts))
