"""The rules a quote version must satisfy, with field-level messages in the active language.

Forms, the API and the importer all call `quote_version_clean`, so one rule lives in one place; the
database holds the same rules as CheckConstraints.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


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
    return errors


def quote_version_clean(v) -> None:  # type: ignore[no-untyped-def]
    errors = quote_version_errors(v)
    if errors:
        raise ValidationError(errors)
