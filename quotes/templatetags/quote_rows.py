"""The quote list's table rows, written in Python, and the key of their cached fragment.

The list is the portal's busiest page, and Django's template engine spent more time on its
rows (25–100 of them, eight cells each) than the database spent finding them. This tag writes
the same cells with `fast_html` (format_html's output, every value escaped) and Django's
own number filters, so the rows read as the template did; the template keeps the written rows
in the cache (``{% cache %}`` keyed by `quote_rows_key`: the rows' own values and the
language). Keep in step with quotes.selectors.LIST_ROW_FIELDS, the columns quote_list_rows
loads for it.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext

from core import cache
from core.templatetags.portal import bilingual_text
from domain import formatting, labels
from quotes.models import Quote, QuoteVersion
from vendors.templatetags.vendor_rows import fast_html

register = template.Library()

_ROW = (
    '<tr{}>\n  <td><input type="checkbox" name="q" value="{}" aria-label="{} {}"></td>\n'
    '  <td>{}</td>\n  <td><a href="{}">{}</a>{}</td>\n  <td class="num rent">{}</td>\n'
    "  <td>{}</td>\n  <td>{}</td>\n  <td>{}</td>\n  <td>{}</td>\n</tr>\n"
)


def _labels(model: Any, field: str) -> dict[Any, str]:
    return {k: str(label) for k, label in model._meta.get_field(field).flatchoices}


_MUTED = SafeString(' class="muted"')  # a constant: nothing of the row's data


# The rows' markup: bump when it changes (a shared cache must not serve an older release's rows).
# 2: the rent follows the quote (deciding columns first); 3: generated labels in the language
ROWS_VERSION = 3


def _address(name: str) -> tuple[str, str]:
    """The parts of a detail address around its id: one reverse() for a page of rows."""
    head, tail = reverse(name, args=[0]).rsplit("/0/", 1)
    return head, tail


@register.simple_tag
def quote_rows_key(quotes: Any) -> str:
    """What the rows of `quotes` are written from: every value of every row (a bulk update
    that leaves `updated_at` alone changes them too), the language and the detail address."""
    return cache.digest(ROWS_VERSION, get_language(), _address("quotes:detail"), list(quotes))


@register.simple_tag
def quote_rows(quotes: Any) -> SafeString:
    """`quotes`: named tuples of quotes.selectors.LIST_ROW_FIELDS, in the page's order."""
    head, tail = _address("quotes:detail")
    lang = get_language()
    texts = _Texts()
    return SafeString("".join(_quote_row(q, texts, lang, head, tail) for q in quotes))


class _Texts:
    """The words and choice labels a page of rows shares, in the request's language."""

    def __init__(self) -> None:
        self.compare = gettext("Compare")
        self.not_current = fast_html(
            ' <span class="muted small">({})</span>', gettext("not current")
        )
        self.unverified = fast_html('<span class="muted">{}</span>', gettext("unverified"))
        # choice labels once per page, not through get_FOO_display() per cell
        self.fabrics = _labels(QuoteVersion, "fabric")
        self.kinds = _labels(Quote, "measured_kind")


def _quote_row(q: Any, t: _Texts, lang: str, head: str, tail: str) -> str:
    if q.current_version_id is not None:
        gpu = q.current_version__gpu__key or ""
        gpus = fast_html(
            "{} × {} × {}", q.current_version__nodes, q.current_version__gpus_per_node, gpu
        )
        nic = floatformat(q.current_version__nic_gbps, "-1")
        fabric = t.fabrics.get(q.current_version__fabric, q.current_version__fabric)
        network = fast_html("{} × {}G {}", q.current_version__nics_per_node, nic, fabric)
        rent = formatting.money(q.rent, "CNY", lang, decimals=0)  # on the team's basis
        version = f"v{q.current_version__number}"
    else:
        gpus = network = rent = version = ""
    if q.measured_typical_gbps:
        kind = t.kinds.get(q.measured_kind, q.measured_kind)
        measured = fast_html("{} Gbit/s ({})", floatformat(q.measured_typical_gbps, 1), kind)
    else:
        measured = t.unverified
    vendor = bilingual_text(q.vendor__name_zh, q.vendor__name_en)
    label = labels.shown(q.label, lang)  # a generated label in the reader's language
    return fast_html(_ROW, *(
        "" if q.is_current else _MUTED, q.pk, t.compare, label, vendor,
        f"{head}/{q.pk}/{tail}", label, "" if q.is_current else t.not_current, rent, gpus,
        network, measured, version,
    ))  # fmt: skip


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


@register.simple_tag
def compare_head(quotes: Any) -> SafeString:
    """The compare page's column heads (vendor in the reader's language, quote, version)."""
    vendor_head, vendor_tail = _address("vendors:detail")
    quote_head, quote_tail = _address("quotes:detail")
    return SafeString("".join(
        fast_html(
            '<th scope="col" data-quote="{}"><a href="{}">{}</a><br>'
            '<a class="small" href="{}">{}</a> <span class="muted small">v{}</span></th>',
            q.pk, f"{vendor_head}/{q.vendor_id}/{vendor_tail}",
            bilingual_text(q.vendor.name_zh, q.vendor.name_en),  # as the quote list names it
            f"{quote_head}/{q.pk}/{quote_tail}", q.label, q.current_version.number,
        )
        for q in quotes
    ))  # fmt: skip


@register.simple_tag
def workload_options(workloads: Any, chosen: Any) -> SafeString:
    """The <option>s of the compare page's workload select, the chosen one selected."""
    chosen_pk = getattr(chosen, "pk", None)
    return SafeString("".join(
        fast_html('<option value="{}"{}>{}</option>', w.pk,
                  SafeString(" selected") if w.pk == chosen_pk else "", w.name)
        for w in workloads
    ))  # fmt: skip
