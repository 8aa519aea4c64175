"""Form widgets that render in Python: the same HTML as Django's, without a template per option.

Django renders every <option> of a <select> through a template; a filter form with a
100-vendor select spends more time on that than the page spends on its data. FastSelect writes
the same markup (name, attributes, selected option, optgroups) directly, escaped.
"""

from __future__ import annotations

import html
from typing import Any

from django import forms
from django.forms.utils import flatatt
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString


def _escape(text: str) -> str:
    """django.utils.html.escape's text without its SafeString wrapper (a select escapes every
    option's value and label)."""
    return html.escape(text)


def _conditional_escape(value: Any) -> str:
    """django.utils.html.conditional_escape's text, likewise."""
    html_method = getattr(value, "__html__", None)
    return str(html_method()) if html_method is not None else html.escape(str(value))


class FastSelect(forms.Select):
    def render(
        self, name: str, value: Any, attrs: dict | None = None, renderer: Any = None
    ) -> SafeString:  # type: ignore[type-arg]
        final = self.build_attrs(self.attrs, attrs)
        final["name"] = name
        if self.allow_multiple_selected:
            final["multiple"] = True
        chosen = set(self.format_value(value))
        taken = False  # a single select marks only its first matching option

        def option(option_value: Any, label: Any) -> str:
            nonlocal taken
            v = "" if option_value is None else str(option_value)
            selected = v in chosen and (self.allow_multiple_selected or not taken)
            taken = taken or selected
            mark = " selected" if selected else ""
            return f'<option value="{_escape(v)}"{mark}>{_conditional_escape(label)}</option>'

        parts: list[str] = []  # each escaped here, value and label alike
        for option_value, label in self.choices:
            if isinstance(label, (list, tuple)):  # an optgroup: (group name, [(value, label)…])
                inner = "".join(option(v, lab) for v, lab in label)
                parts.append(
                    f'<optgroup label="{conditional_escape(option_value)}">{inner}</optgroup>'
                )
            else:
                parts.append(option(option_value, label))
        options = SafeString("".join(parts))
        return format_html("<select{}>{}</select>", flatatt(final), options)


class _FastInputMixin:
    """An <input> as Django's input.html writes it: type, name, value (when there is one), then
    the attributes."""

    def render(
        self, name: str, value: Any, attrs: dict | None = None, renderer: Any = None
    ) -> SafeString:  # type: ignore[type-arg]
        final = self.build_attrs(self.attrs, attrs)  # type: ignore[attr-defined]
        shown = self.format_value(value)  # type: ignore[attr-defined]
        if shown is None:
            return format_html(
                '<input type="{}" name="{}"{}>', self.input_type, name, flatatt(final)
            )  # type: ignore[attr-defined]
        return format_html(
            '<input type="{}" name="{}" value="{}"{}>',
            self.input_type,
            name,
            shown,
            flatatt(final),  # type: ignore[attr-defined]
        )


class FastTextInput(_FastInputMixin, forms.TextInput):
    pass


class FastNumberInput(_FastInputMixin, forms.NumberInput):
    pass


_FAST = {
    forms.Select: FastSelect,
    forms.TextInput: FastTextInput,
    forms.NumberInput: FastNumberInput,
}


def fast_widgets(form: forms.BaseForm) -> forms.BaseForm:
    """Swap every plain Select, TextInput and NumberInput of `form` for its fast twin with the
    same attributes (and choices) (idempotent)."""
    for field in form.fields.values():
        old = field.widget
        fast = _FAST.get(type(old))
        if fast is not None:
            new = fast(attrs=old.attrs)
            if isinstance(old, forms.Select):
                new.choices = old.choices
            new.is_required = old.is_required
            field.widget = new
    return form


class IsoDateInput(forms.DateInput):
    """<input type="date">: its value is always YYYY-MM-DD, the only form a browser reads (the
    page's language formats dates otherwise: 2025/12/31 in Chinese left the field empty, and the
    form submitted unchanged lost the stored date)."""

    input_type = "date"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs, format="%Y-%m-%d")


class LocalDateTimeInput(forms.DateTimeInput):
    """<input type="datetime-local"> to the second (step 1), its value in the one form a browser
    reads (YYYY-MM-DDTHH:MM:SS, in the current time zone): without the step a browser drops the
    seconds of a stored time, and the page's language formats it otherwise. A fraction of a
    second, which no browser shows, is kept by `core.forms.KeepStoredInstants`."""

    input_type = "datetime-local"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__({"step": "1", **(attrs or {})}, format="%Y-%m-%dT%H:%M:%S")
