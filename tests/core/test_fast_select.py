"""FastSelect renders what Django's Select renders: same options, selection, escaping."""

from __future__ import annotations

from html.parser import HTMLParser

from django import forms

from core.widgets import FastSelect, fast_selects


class _Options(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.select: dict[str, str | None] = {}
        self.options: list[tuple[str | None, bool, str, str | None]] = []
        self._group: str | None = None
        self._open: list | None = None  # type: ignore[type-arg]

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        a = dict(attrs)
        if tag == "select":
            self.select = a
        elif tag == "optgroup":
            self._group = a.get("label")
        elif tag == "option":
            self._open = [a.get("value"), "selected" in a, "", self._group]

    def handle_data(self, data):  # type: ignore[no-untyped-def]
        if self._open is not None:
            self._open[2] += data

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        if tag == "option" and self._open is not None:
            self.options.append(tuple(self._open))  # type: ignore[arg-type]
            self._open = None
        elif tag == "optgroup":
            self._group = None


def parsed(html: str) -> _Options:
    p = _Options()
    p.feed(html)
    return p


CHOICES = [
    ("", "---------"),
    ("1", "<b>Vendor & Co</b>"),
    ("2", '"quoted" 供应商'),
    ("Fabrics", [("ib", "InfiniBand"), ("roce", "RoCE")]),
    ("2", "duplicate value"),
]


def _both(value, **attrs):  # type: ignore[no-untyped-def]
    django_html = forms.Select(attrs=attrs, choices=CHOICES).render("vendor", value)
    fast_html = FastSelect(attrs=attrs, choices=CHOICES).render("vendor", value)
    return parsed(django_html), parsed(fast_html), fast_html


def test_same_options_labels_groups_and_selection() -> None:
    for value in ("", "1", "2", "roce", "nope", None):
        django_p, fast_p, _ = _both(value, id="id_vendor")
        assert fast_p.options == django_p.options, value
        assert fast_p.select == django_p.select


def test_only_the_first_matching_option_is_selected() -> None:
    _, fast_p, _ = _both("2")
    assert [o[2] for o in fast_p.options if o[1]] == ['"quoted" 供应商']


def test_labels_are_escaped() -> None:
    _, _, html = _both("1")
    assert "<b>" not in html and "&lt;b&gt;Vendor &amp; Co&lt;/b&gt;" in html


def test_boolean_attributes_like_djangos() -> None:
    django_p, fast_p, html = _both("", required=True, disabled=False)
    assert fast_p.select == django_p.select and "required" in html and "disabled" not in html


def test_fast_selects_swaps_plain_selects_and_keeps_the_form_working() -> None:
    class F(forms.Form):
        vendor = forms.ChoiceField(choices=CHOICES[:3])
        note = forms.CharField(required=False)
        many = forms.MultipleChoiceField(choices=CHOICES[:3], required=False)

    form = fast_selects(F(data={"vendor": "2"}))
    assert type(form.fields["vendor"].widget) is FastSelect
    assert type(form.fields["many"].widget) is forms.SelectMultiple  # left alone
    assert form.is_valid() and form.cleaned_data["vendor"] == "2"
    options = parsed(str(form["vendor"])).options
    assert [o[0] for o in options if o[1]] == ["2"]
    assert fast_selects(form) is form and type(form.fields["vendor"].widget) is FastSelect
