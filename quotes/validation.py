"""The rules a quote version must satisfy, with field-level messages in the active language.

Forms, the API and the importer all call `quote_version_clean`, so one rule lives in one place; the
database holds the same rules as CheckConstraints.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from domain import money, plausibility


def _num(value: object) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


def quote_version_errors(v) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """Field -> messages for impossible values of a QuoteVersion (or any object with its fields)."""
    errors: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    positive_whole = {
        "gpus_per_node": _("A node needs at least one GPU."),
        "nodes": _("An offer needs at least one node."),
        "nics_per_node": _("A node needs at least one NIC."),
        "term_months": _("The term must be at least one month."),
    }
    for field, message in positive_whole.items():
        value = _num(getattr(v, field, None))
        if value is None or value < 1 or value != value.to_integral_value():
            add(field, message)
    not_negative = (
        "price_per_node_month", "monthly_fees", "setup_fee", "storage_tb",
        "storage_price_tb_month", "bandwidth_price",
    )  # fmt: skip
    for field in not_negative:
        value = _num(getattr(v, field, None))
        if value is not None and value < 0:
            add(field, _("A price or amount cannot be negative."))
    if _num(getattr(v, "price_per_node_month", None)) is None:
        add("price_per_node_month", _("Enter the monthly price per node."))
    nic = _num(getattr(v, "nic_gbps", None))
    if nic is None or nic <= 0:
        add("nic_gbps", _("The NIC port speed must be above 0 Gbit/s."))
    for field in ("rack_uplink_gbps", "servers_per_rack"):
        value = _num(getattr(v, field, None))
        if value is not None and value <= 0:
            add(field, _("Leave it empty or enter a number above 0."))
    availability = _num(getattr(v, "availability", None))
    if availability is None or not (0 < availability <= 1):
        add("availability", _("Availability is a share between 0 and 1, e.g. 0.99 (not 99)."))
    currency = getattr(v, "currency", "CNY") or "CNY"
    fx = _num(getattr(v, "fx_to_cny", None))
    if currency != "CNY" and fx is None:
        add(
            "fx_to_cny",
            _("A quote in %(cur)s needs its rate to CNY so it can be compared with the others.")
            % {"cur": currency},
        )
    if fx is not None and fx <= 0:
        add("fx_to_cny", _("The rate to CNY must be above 0."))
    tax_errors(v, add)
    return errors


# Fields whose lower bound quote_version_errors and the database's constraints already hold.
_BASIC_RULES = {
    "gpus_per_node", "nodes", "nics_per_node", "term_months", "price_per_node_month",
    "monthly_fees", "setup_fee", "storage_tb", "storage_price_tb_month", "bandwidth_price",
    "nic_gbps", "rack_uplink_gbps", "servers_per_rack", "fx_to_cny",
}  # fmt: skip


def plausibility_check(v, gpu_key: str | None) -> tuple[dict[str, list[str]], list[Any]]:
    """(errors, warnings) of domain/plausibility.py for a version's numbers: values beyond a hard
    bound as field -> messages in the active language; soft-bound findings to be confirmed.
    Forms, the API and the importer call it (data written by code is explained by the ranking's
    eligibility rules instead)."""
    hard, soft = plausibility.split(plausibility.quote_findings(v, gpu_key))
    lang = get_language()
    errors: dict[str, list[str]] = {}
    said = quote_version_errors(v)  # a NIC of 1e-9 Gbit/s or a fee of -0 passes those rules
    for f in hard:
        if f.low and f.field in _BASIC_RULES and f.field in said:
            continue  # `quote_version_errors` (and the database) say this one in their words
        errors.setdefault(f.field, []).append(f.message.text(lang))
    return errors, soft


def tax_errors(v, add) -> None:  # type: ignore[no-untyped-def]
    """The VAT terms' rules (domain/money.py), in the active language."""
    rate = _num(getattr(v, "vat_rate", None))
    terms = money.TaxTerms(
        getattr(v, "prices_include_vat", None), rate, getattr(v, "invoice_type", "") or ""
    )
    lang = get_language()
    for field, message in money.tax_problems(terms):
        add(field, message.text(lang))


def quote_version_clean(v) -> None:  # type: ignore[no-untyped-def]
    errors = quote_version_errors(v)
    if errors:
        raise ValidationError(errors)
