"""Template helpers: pick the active language's text of a bilingual domain message."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext

from domain import labels

register = template.Library()


@register.filter
def shown_label(value) -> str:  # type: ignore[no-untyped-def]
    """A label the portal generated ("RFQ 2 · …", "… · serving · fixed") in the reader's
    language, whichever language it was stored in; any other text as stored."""
    return labels.shown(str(value or ""), get_language())


@register.filter
def msg(message) -> str:  # type: ignore[no-untyped-def]
    """Render a domain Message (or its dict form) in the active language."""
    if message is None:
        return ""
    lang = get_language() or "zh-hans"
    if isinstance(message, dict):
        return str(message.get("zh") if lang.startswith("zh") else message.get("en"))
    text = getattr(message, "text", None)
    return text(lang) if callable(text) else str(message)


@register.filter
def bilingual(obj, field: str) -> str:  # type: ignore[no-untyped-def]
    """`obj|bilingual:"name"` gives name_zh or name_en by language, falling back to the other."""
    return bilingual_text(getattr(obj, f"{field}_zh", ""), getattr(obj, f"{field}_en", ""))


def bilingual_text(zh: str | None, en: str | None) -> str:
    """The Chinese or the English text by the active language, falling back to the other."""
    zh, en = zh or "", en or ""
    return (zh or en) if (get_language() or "zh-hans").startswith("zh") else (en or zh)


@register.filter
def iso_time(value) -> str:  # type: ignore[no-untyped-def]
    """A stored ISO time ("2031-06-28T15:31:28+00:00") as "2031-06-28 15:31:28 UTC"; any other
    value as it is."""
    from datetime import UTC, datetime

    text = str(value or "")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return text
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


@register.filter
def web_url(value) -> str:  # type: ignore[no-untyped-def]
    """The value if it is an http(s) URL, else "": a stored `javascript:` or `data:` address is
    shown as text, never made a link (URLField validation is not the only way rows arrive)."""
    text = str(value or "").strip()
    return text if text.lower().startswith(("http://", "https://")) else ""


@register.simple_tag(takes_context=True)
def query_with(context, **kwargs) -> str:  # type: ignore[no-untyped-def]
    """The current query string with some parameters replaced (for pagination links)."""
    params = context["request"].GET.copy()
    for key, value in kwargs.items():
        params[key] = value
    return params.urlencode()


@register.simple_tag(takes_context=True)
def query_without(context, *names: str) -> str:
    """The current query string without some parameters (an export link drops ``page``)."""
    params = context["request"].GET.copy()
    for name in names:
        params.pop(name, None)
    return params.urlencode()


@register.simple_tag(takes_context=True)
def sort_th(context, key: str, label: str, css: str = "") -> SafeString:
    """A sortable column header: a link that sorts by `key` (ascending first, then descending
    on the next click), keeps the filters, goes back to page 1, and shows the current order
    with an arrow and ``aria-sort`` for screen readers."""
    params = context["request"].GET.copy()
    current = params.get("sort", "")
    if current == key:
        state, arrow, following = "ascending", "▲", f"-{key}"
        hint = gettext("sorted ascending; activate to sort descending")
    elif current == f"-{key}":
        state, arrow, following = "descending", "▼", key
        hint = gettext("sorted descending; activate to sort ascending")
    else:
        state, arrow, following = "", "", key
        hint = gettext("activate to sort ascending")
    params["sort"] = following
    params.pop("page", None)
    return format_html(
        '<th{}{}><a class="sort" href="?{}" title="{}">{}{}</a></th>',
        format_html(' class="{}"', css) if css else "",
        format_html(' aria-sort="{}"', state) if state else "",
        params.urlencode(),
        f"{label}: {hint}",
        label,
        format_html(' <span aria-hidden="true">{}</span>', arrow) if arrow else "",
    )


@register.filter
def grouped_problems(problems) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    """A run's problems with the offers that share the same messages merged: when no offer can
    run a preset, one line naming the offers instead of one red error per offer. Each group:
    `labels` (the offers, in order), `messages` (shown once)."""
    groups: dict[tuple, dict] = {}  # type: ignore[type-arg]
    for p in problems or []:
        if not isinstance(p, dict):
            continue
        messages = [m for m in p.get("messages") or [] if isinstance(m, dict)]
        key = tuple((m.get("code"), m.get("en"), m.get("zh")) for m in messages)
        group = groups.setdefault(key, {"labels": [], "messages": messages})
        if p.get("label"):
            group["labels"].append(str(p["label"]))
    return list(groups.values())
