"""Every edit form shows what is stored: opened with each stored choice (tri-states included)
and submitted unchanged, as a browser would, nothing changes and nothing is refused."""

from __future__ import annotations

from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from quotes.models import GpuModel, Quote, QuoteVersion
from quotes.testing import make_quote, make_vendor, make_workload
from quotes.validation import quote_version_errors
from serving.models import ServingWorkload
from sourcing.services import rfq_create
from vendors.models import Certification, DataCentre, Licence, NetworkProfile, SlaTerms, Vendor

pytestmark = pytest.mark.django_db
# stamped by the services on every save, not entered: the time, the checker, the findings summary
SKIP_FIELDS = {
    "id", "updated_at", "created_at", "revision", "number", "verified_at", "verified_by_id",
    "findings_critical", "findings_warning", "findings_total", "finding_codes",
    "findings_checked_at",
}  # fmt: skip


class _FormReader(HTMLParser):
    """The fields of a page's forms as a browser submits them (checked boxes, selected options,
    the first option of a select with none selected, textarea contents)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[list[tuple[str, str]]] = []
        self._select: str | None = None
        self._select_multiple = False
        self._options: list[tuple[str, bool]] = []
        self._option_value: str | None = None
        self._option_selected = False
        self._option_text = ""
        self._textarea: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in attrs_list}
        if tag == "form":
            self.forms.append([])
        elif not self.forms:
            return
        elif tag == "input" and attrs.get("name") and "disabled" not in attrs:
            kind = attrs.get("type", "text").lower()
            if kind in ("submit", "button", "file", "image", "reset"):
                return
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            value = attrs.get("value", "on" if kind in ("checkbox", "radio") else "")
            self.forms[-1].append((attrs["name"], value))
        elif tag == "select" and attrs.get("name") and "disabled" not in attrs:
            self._select, self._select_multiple = attrs["name"], "multiple" in attrs
            self._options = []
        elif tag == "option" and self._select is not None:
            self._option_value = attrs.get("value")
            self._option_selected = "selected" in attrs
            self._option_text = ""
        elif tag == "textarea" and attrs.get("name"):
            self._textarea, self._text = attrs["name"], ""

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text += data
        if self._option_value is not None or self._select is not None:
            self._option_text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "option" and self._select is not None:
            value = self._option_value if self._option_value is not None else self._option_text
            self._options.append((value.strip() if self._option_value is None else value,
                                  self._option_selected))  # fmt: skip
            self._option_value = None
        elif tag == "select" and self._select is not None:
            chosen = [v for v, sel in self._options if sel]
            if not chosen and not self._select_multiple and self._options:
                chosen = [self._options[0][0]]
            self.forms[-1].extend((self._select, v) for v in chosen)
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            # a browser drops the one newline that follows <textarea>
            text = self._text[1:] if self._text.startswith("\n") else self._text
            self.forms[-1].append((self._textarea, text.replace("\r\n", "\n")))
            self._textarea = None


def _form_data(html: str) -> dict[str, Any]:
    reader = _FormReader()
    reader.feed(html)
    form = max(reader.forms, key=len)  # the page's edit form, not the language or log-out form
    data: dict[str, Any] = {}
    for name, value in form:
        data.setdefault(name, []).append(value)
    return data


def _stored(obj: models.Model) -> dict[str, Any]:
    obj.refresh_from_db()
    return {
        f.attname: _canonical(getattr(obj, f.attname))
        for f in obj._meta.concrete_fields
        if f.attname not in SKIP_FIELDS and not isinstance(f, models.FileField)
    }


def _canonical(value: Any) -> Any:
    """A multiple choice is a set: the form lists it in the catalogue's order."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return sorted(value)
    return value


def _choices(field: models.Field) -> list[Any]:
    if isinstance(field, models.BooleanField):
        return [True, False, None] if field.null else [True, False]
    if field.choices:
        values = [v for v, _label in field.flatchoices]
        if field.blank and "" not in values and None not in values:
            values.append(None if field.null else "")  # "not stated"
        return values
    return []


def _round_trip(client, url: str, obj: models.Model, read=None, valid=None) -> list[str]:  # type: ignore[no-untyped-def]
    """Each stored choice of `obj` of each field its form shows (one field at a time, the others
    as they are): open the form, submit it unchanged, compare. `read` gives the compared record
    (the quote's version); `valid` says whether a combination could be stored at all."""
    read = read or (lambda: obj)
    wrong: list[str] = []
    record = read()
    shown = set(_form_data(client.get(url).content.decode()))
    for field in record._meta.concrete_fields:
        if field.name not in shown:
            continue
        for value in _choices(field):
            record = read()
            before_value = getattr(record, field.attname)
            setattr(record, field.attname, value)
            try:
                record.full_clean(validate_unique=False, validate_constraints=True)
            except ValidationError:  # a combination no door can store: not a case
                continue
            if valid is not None and not valid(record):
                continue
            type(record).objects.filter(pk=record.pk).update(**{field.attname: value})
            before = _stored(read())
            page = client.get(url)
            assert page.status_code == 200, (url, page.status_code)
            r = client.post(url, _form_data(page.content.decode()))
            after = _stored(read())
            if r.status_code not in (200, 302) or (
                r.status_code == 200 and b"errorlist" in r.content
            ):
                wrong.append(f"{url} {field.name}={value!r}: refused ({r.status_code})")
            elif after != before:
                diff = {k: (before[k], after[k]) for k in before if before[k] != after.get(k)}
                wrong.append(f"{url} {field.name}={value!r}: changed {diff}")
            type(record).objects.filter(pk=record.pk).update(**{field.attname: before_value})
    return wrong


@pytest.fixture
def world(team_a, analyst_a):  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Round Trip Cloud")
    Vendor.objects.filter(pk=vendor.pk).update(name_zh="往返云", services=["gpu_rental", "idc"])
    vendor.refresh_from_db()
    dc = DataCentre.objects.get(vendor=vendor)
    return {
        "vendor": vendor,
        "dc": dc,
        "network": NetworkProfile.objects.get(data_centre=dc),
        "licence": Licence.objects.create(
            vendor=vendor,
            number="粤B1-20190001",
            business_codes=["B11"],
            coverage_regions=["GD", "national"],
        ),  # fmt: skip
        "cert": Certification.objects.create(vendor=vendor, kind="iso27001", number="C-1"),
        "sla": SlaTerms.objects.create(vendor=vendor, availability="0.999"),
        "quote": make_quote(team_a, analyst_a, vendor, vat_rate=6, prices_include_vat=True),
        "workload": make_workload(team_a),
    }


def test_the_quote_edit_form_keeps_the_stored_tax_basis(client_as, analyst_a, world):  # type: ignore[no-untyped-def]
    quote: Quote = world["quote"]
    client = client_as(analyst_a)
    url = reverse("quotes:edit", kwargs={"pk": quote.pk})
    for include in (True, False):
        QuoteVersion.objects.filter(pk=quote.current_version.pk).update(prices_include_vat=include)
        data = _form_data(client.get(url).content.decode())
        assert data["prices_include_vat"] == ["true" if include else "false"]


def test_every_vendor_edit_form_round_trips_every_stored_choice(client_as, analyst_a, world):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    v, w = world["vendor"], world
    child = "vendors:child_edit"
    wrong = _round_trip(client, reverse("vendors:edit", kwargs={"pk": v.pk}), v)
    for kind, attr in (("licence", "licence"), ("certification", "cert"), ("datacentre", "dc")):
        url = reverse(child, kwargs={"vendor_pk": v.pk, "kind": kind, "pk": w[attr].pk})
        wrong += _round_trip(client, url, w[attr])
    wrong += _round_trip(client, reverse("vendors:sla", kwargs={"vendor_pk": v.pk}), w["sla"])
    wrong += _round_trip(
        client, reverse("vendors:network", kwargs={"dc_pk": w["dc"].pk}), w["network"]
    )
    assert not wrong, "\n".join(wrong)


def test_the_quote_and_workload_edit_forms_round_trip_every_stored_choice(
    client_as, analyst_a, world
):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    quote: Quote = world["quote"]

    def version() -> QuoteVersion:
        return Quote.objects.get(pk=quote.pk).current_version

    def storable(v: QuoteVersion) -> bool:  # the rules the form and the API apply to terms
        return not quote_version_errors(v)

    url = reverse("quotes:edit", kwargs={"pk": quote.pk})
    wrong = _round_trip(client, url, quote, version, storable)
    wl = world["workload"]
    wrong += _round_trip(client, reverse("quotes:workload_edit", kwargs={"pk": wl.pk}), wl)
    assert not wrong, "\n".join(wrong)


def test_the_serving_and_rfq_edit_forms_round_trip_every_stored_choice(
    client_as, analyst_a, team_a, world
):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    sw = ServingWorkload.objects.create(
        team=team_a, name="chat", params_b=7, mean_rps=5, peak_rps=20, tokens_in=500,
        tokens_out=300, response_kb=4, tokens_per_s_per_replica=2000,
    )  # fmt: skip
    wrong = _round_trip(client, reverse("serving:workload_edit", kwargs={"pk": sw.pk}), sw)
    rfq = rfq_create(
        team=team_a, user=analyst_a,
        data={
            "title": "round trip", "workload": world["workload"], "nodes": 8,
            "min_internode_gbps": 100, "fabric": "", "term_months": 12,
            # seconds and a fraction: the form's date-time input is to the second and keeps both
            "deadline": (timezone.now() + timedelta(days=3)).replace(second=17, microsecond=5),
            "sealed": True, "kit_pairs": 3,
            "gpu_models": [GpuModel.objects.get(key="A100-SXM4-80GB")],
            "mandatory": [], "required_evidence": ["iperf3"],
        },
    )  # fmt: skip
    wrong += _round_trip(client, reverse("sourcing:edit", kwargs={"pk": rfq.pk}), rfq)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_stored_dates_and_times_round_trip_in_either_language(
    client_as, analyst_a, team_a, world, lang
):  # type: ignore[no-untyped-def]
    """Date and date-time inputs carry the one value a browser reads (YYYY-MM-DD, to the
    second), whatever the page's language: a Chinese page formatted dates as 2025/12/31, which
    a date input shows as empty, and the form submitted unchanged lost them."""
    from datetime import date

    client = client_as(analyst_a)
    client.cookies.load({"django_language": lang})
    Licence.objects.filter(pk=world["licence"].pk).update(
        valid_from=date(2021, 3, 4), valid_until=date(2031, 12, 31)
    )
    quote: Quote = world["quote"]
    QuoteVersion.objects.filter(pk=quote.current_version_id).update(valid_until=date(2030, 6, 1))
    rfq = rfq_create(
        team=team_a, user=analyst_a,
        data={
            "title": "seconds", "workload": world["workload"], "nodes": 8,
            "min_internode_gbps": 100, "fabric": "", "term_months": 12,
            "deadline": (timezone.now() + timedelta(days=3)).replace(second=59, microsecond=1),
            "sealed": True, "kit_pairs": 3, "gpu_models": [], "mandatory": [],
            "required_evidence": ["iperf3"],
        },
    )  # fmt: skip
    v = world["vendor"]
    cases = [
        (reverse("vendors:child_edit", kwargs={"vendor_pk": v.pk, "kind": "licence",
                                                "pk": world["licence"].pk}), world["licence"]),
        (reverse("quotes:edit", kwargs={"pk": quote.pk}), None),
        (reverse("sourcing:edit", kwargs={"pk": rfq.pk}), rfq),
    ]  # fmt: skip
    wrong = []
    for url, obj in cases:

        def read(obj=obj):  # type: ignore[no-untyped-def]
            return obj if obj is not None else Quote.objects.get(pk=quote.pk).current_version

        before = _stored(read())
        page = client.get(url, HTTP_ACCEPT_LANGUAGE=lang)
        data = _form_data(page.content.decode())
        r = client.post(url, data, HTTP_ACCEPT_LANGUAGE=lang)
        after = _stored(read())
        if r.status_code != 302:
            wrong.append(f"{url}: refused ({r.status_code})")
        elif after != before:
            changed = [(k, before[k], after.get(k)) for k in before if before[k] != after.get(k)]
            wrong.append(f"{url}: {changed}")
    assert not wrong, "\n".join(wrong)
