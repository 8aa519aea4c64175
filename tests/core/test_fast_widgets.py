"""FastSelect renders what Django's Select renders: same options, selection, escaping."""

from __future__ import annotations

from html.parser import HTMLParser

from django import forms

from core.widgets import FastNumberInput, FastSelect, FastTextInput, fast_widgets


class _Options(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.select: dict[str, str | None] = {}
        self.options: list[tuple[str | None, bool, str, str | None]] = []
        self._group: str | None = None
        self._open: list | None = None  # type: ignore[type-arg]

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        a = dict(attrs)
        if tag in ("select", "input"):
            self.select = a  # the control's own attributes
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


def test_fast_widgets_swaps_plain_selects_and_keeps_the_form_working() -> None:
    class F(forms.Form):
        vendor = forms.ChoiceField(choices=CHOICES[:3])
        note = forms.CharField(required=False)
        many = forms.MultipleChoiceField(choices=CHOICES[:3], required=False)

    form = fast_widgets(F(data={"vendor": "2"}))
    assert type(form.fields["vendor"].widget) is FastSelect
    assert type(form.fields["many"].widget) is forms.SelectMultiple  # left alone
    assert form.is_valid() and form.cleaned_data["vendor"] == "2"
    options = parsed(str(form["vendor"])).options
    assert [o[0] for o in options if o[1]] == ["2"]
    assert fast_widgets(form) is form and type(form.fields["vendor"].widget) is FastSelect


def test_fast_inputs_render_like_djangos() -> None:
    cases = [
        (forms.TextInput, FastTextInput, {"placeholder": 'name "or" <code>', "maxlength": 40}),
        (forms.NumberInput, FastNumberInput, {"min": 0, "step": "any", "required": True}),
    ]
    for slow, fast, attrs in cases:
        for value in (None, "", "100", '"><script>', 25.5):
            a = slow(attrs=attrs).render("q", value, attrs={"id": "id_q"})
            b = fast(attrs=attrs).render("q", value, attrs={"id": "id_q"})
            # the same attributes and values (flatatt writes them sorted, the template in order)
            assert parsed(b).select == parsed(a).select and b.startswith("<input "), (slow, value)
    assert "<script>" not in FastTextInput().render("q", '"><script>')


def test_fast_widgets_swaps_inputs_and_leaves_other_widgets() -> None:
    class F(forms.Form):
        q = forms.CharField(required=False, max_length=20)
        n = forms.DecimalField(required=False, min_value=0)
        when = forms.DateField(required=False, widget=forms.DateInput)
        ok = forms.BooleanField(required=False)

    form = fast_widgets(F())
    assert type(form.fields["q"].widget) is FastTextInput
    assert type(form.fields["n"].widget) is FastNumberInput
    assert type(form.fields["when"].widget) is forms.DateInput
    assert type(form.fields["ok"].widget) is forms.CheckboxInput
    for name in ("n", "q"):
        assert parsed(str(form[name])).select == parsed(str(F()[name])).select
