"""An answer's offer terms: the quote-version fields a supplier fills in, stored as JSON.

The same rules as for the team's own quotes apply (``quotes.validation`` and the model's
constraints), checked on an unsaved ``QuoteVersion`` so nothing reaches the quotes tables before
the RFQ closes.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from domain import rfq_rules
from quotes.models import GpuModel, QuoteVersion
from quotes.validation import quote_version_clean

TERM_FIELDS = (
    "gpu", "gpus_per_node", "nodes", "price_per_node_month", "currency", "fx_to_cny",
    "monthly_fees", "nic_gbps", "nics_per_node", "fabric", "rack_uplink_gbps", "servers_per_rack",
    "availability", "term_months", "trial_days", "setup_fee",
    "prices_include_vat", "vat_rate", "invoice_type", "notes",
)  # fmt: skip
# The VAT terms, as on a quote (domain/money.py): the bid is compared on the team's tax basis.
TAX_FIELDS = ("prices_include_vat", "vat_rate", "invoice_type")
PRICE_FIELDS = ("price_per_node_month", "monthly_fees", "setup_fee", "fx_to_cny", "currency")


def _json_value(value: Any) -> Any:
    if isinstance(value, GpuModel):
        return value.key
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def terms_to_json(data: dict[str, Any]) -> dict[str, Any]:
    return {name: _json_value(data[name]) for name in TERM_FIELDS if name in data}


def terms_from_json(terms: dict[str, Any]) -> dict[str, Any]:
    """Model values (GpuModel, Decimal) from stored terms, for ``quotes.services``."""
    out: dict[str, Any] = {}
    for name, value in terms.items():
        if name not in TERM_FIELDS:
            continue
        field = QuoteVersion._meta.get_field(name)
        if name == "gpu":
            out[name] = GpuModel.objects.filter(key=value).first()
        elif isinstance(field, models.DecimalField) and value not in (None, ""):
            out[name] = Decimal(str(value))
        else:
            out[name] = value
    return out


def terms_labelled(terms: dict[str, Any]) -> list[tuple[str, Any]]:
    """Stored terms as (translated field label, value) rows, in the quote form's order."""
    return [
        (str(QuoteVersion._meta.get_field(name).verbose_name), terms[name])
        for name in TERM_FIELDS
        if terms.get(name) not in (None, "")
    ]


def _finite_number(name: str, value: Any, *, as_float: bool) -> Decimal | float:
    """A number field's value (Decimal, or float for a float field); "NaN", "Infinity", numbers
    too large for a float and non-numbers are refused (they would fail the comparisons of the
    quote rules, or be stored as JSON no client can read)."""
    refused = ValidationError({name: _("Enter a number.")})
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise refused
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation as exc:
        raise refused from exc
    if not number.is_finite():
        raise refused
    if as_float:
        result = float(number)
        if not math.isfinite(result):
            raise refused
        return result
    return number


def terms_clean(data: dict[str, Any]) -> dict[str, Any]:
    """Validate terms like a quote version; returns their JSON form or raises ValidationError."""
    if isinstance(data.get("gpu"), str):
        key = data["gpu"]
        data = dict(data, gpu=GpuModel.objects.filter(key=key).first())
        if data["gpu"] is None:
            raise ValidationError({"gpu": _("Unknown GPU model “%(key)s”.") % {"key": key}})
    elif data.get("gpu") is not None and not isinstance(data["gpu"], GpuModel):
        raise ValidationError({"gpu": _("Name the GPU model by its key, e.g. “H100-SXM”.")})
    version = QuoteVersion(number=1)
    for name in TERM_FIELDS:
        if name in data:
            value = data[name]
            field = QuoteVersion._meta.get_field(name)
            numeric = isinstance(field, (models.DecimalField, models.FloatField))
            if numeric and value not in (None, ""):
                value = _finite_number(name, value, as_float=isinstance(field, models.FloatField))
            setattr(version, name, value)
    quote_version_clean(version)
    version.full_clean(exclude=["quote", "number", "created_by"])
    return terms_to_json({n: getattr(version, n) for n in TERM_FIELDS})


def rfq_requirements(rfq) -> rfq_rules.Requirements:  # type: ignore[no-untyped-def]
    """The RFQ's requirements as the domain rule reads them."""
    return rfq_rules.Requirements(
        gpu_models=tuple(g.key for g in rfq.gpu_models.all()),
        nodes=rfq.nodes,
        min_internode_gbps=rfq.min_internode_gbps,
        fabric=rfq.fabric or "",
        min_availability=Decimal(str(rfq.min_availability)),
        term_months=rfq.term_months,
        min_trial_days=rfq.min_trial_days,
        mandatory=frozenset(rfq.mandatory or ()),
        nonconforming=rfq.nonconforming,
    )


def terms_standing(rfq, terms: dict[str, Any]) -> rfq_rules.Standing:  # type: ignore[no-untyped-def]
    """Where a bid stands: conforming, knocked out or ranked last (domain/rfq_rules.py)."""
    return rfq_rules.bid_standing(rfq_requirements(rfq), terms)


def terms_compliance(rfq, terms: dict[str, Any]) -> list[str]:  # type: ignore[no-untyped-def]
    """Where an answer falls short of the RFQ's requirements, in the page's language; a
    mandatory one says so (shown to both sides)."""
    lang = get_language()
    return [
        (_("Mandatory: %(gap)s") % {"gap": g.message.text(lang)}) if g.mandatory
        else g.message.text(lang)
        for g in terms_standing(rfq, terms).gaps
    ]  # fmt: skip
