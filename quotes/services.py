"""Write side of quotes: create, edit (a new version), measured bandwidth, workloads."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from .models import Quote, QuoteVersion, WorkloadProfile
from .validation import quote_version_clean

QUOTE_FIELDS = ("vendor", "data_centre", "label", "is_current")
VERSION_FIELDS = (
    "gpu", "gpus_per_node", "nodes", "price_per_node_month", "currency", "fx_to_cny",
    "monthly_fees", "nic_gbps", "nics_per_node", "fabric", "rack_uplink_gbps",
    "servers_per_rack", "availability", "whole_offer_only", "term_months", "trial_days",
    "valid_until", "setup_fee", "storage_tb", "storage_price_tb_month", "public_bandwidth_mbps",
    "bandwidth_billing", "bandwidth_price", "bandwidth_elastic", "notes",
)  # fmt: skip


def _check_team(team, quote: Quote) -> None:  # type: ignore[no-untyped-def]
    errors: dict[str, list[str]] = {}
    from django.utils.translation import gettext as _

    if quote.vendor_id and quote.vendor.team_id != team.pk:
        errors["vendor"] = [_("Choose one of your team's vendors.")]
    if quote.data_centre_id and quote.data_centre.vendor_id != quote.vendor_id:
        errors["data_centre"] = [_("The data centre must belong to the quote's vendor.")]
    if errors:
        raise ValidationError(errors)


def _new_version(*, quote: Quote, user, data: dict[str, Any]) -> QuoteVersion:  # type: ignore[no-untyped-def]
    last = quote.versions.aggregate(n=Max("number"))["n"] or 0
    version = QuoteVersion(quote=quote, number=last + 1, created_by=user)
    for name in VERSION_FIELDS:
        if name in data:
            setattr(version, name, data[name])
    quote_version_clean(version)
    version.full_clean(exclude=["quote"])
    version.save()
    quote.current_version = version
    quote.save(update_fields=["current_version", "updated_at"])
    return version


def quote_create(*, team, user, data: dict[str, Any]) -> Quote:  # type: ignore[no-untyped-def]
    """A quote with its version 1; `data` holds quote and version fields (form cleaned_data)."""
    quote = Quote(team=team, **{k: data[k] for k in QUOTE_FIELDS if k in data})
    _check_team(team, quote)
    quote.full_clean(exclude=["team", "current_version"])
    with transaction.atomic():
        quote.save()
        _new_version(quote=quote, user=user, data=data)
    return quote


def quote_update(*, quote: Quote, user, data: dict[str, Any]) -> QuoteVersion:  # type: ignore[no-untyped-def]
    """Change a quote: its own fields in place, its terms as a new version (old ones stay)."""
    for name in QUOTE_FIELDS:
        if name in data:
            setattr(quote, name, data[name])
    _check_team(quote.team, quote)
    quote.full_clean(exclude=["team", "current_version"])
    base = quote.current_version
    merged = {n: getattr(base, n) for n in VERSION_FIELDS} if base else {}
    merged.update({k: v for k, v in data.items() if k in VERSION_FIELDS})
    if base is not None:
        merged["gpu"] = data.get("gpu", base.gpu)
    with transaction.atomic():
        quote.save()
        if base is not None and all(getattr(base, n) == merged[n] for n in VERSION_FIELDS):
            return base  # nothing in the terms changed: no new version
        return _new_version(quote=quote, user=user, data=merged)


def quote_set_measured_bandwidth(
    *,
    quote: Quote,
    measured_gbps: float | None,
    measured_p50_gbps: float | None,
    measured_kind: str,
    test_run_id: Any,
) -> Quote:
    """Record accepted bandwidth evidence on a quote (called by the benchmarks app)."""
    quote.measured_gbps = None if measured_gbps is None else float(measured_gbps)
    quote.measured_p50_gbps = None if measured_p50_gbps is None else float(measured_p50_gbps)
    quote.measured_kind = measured_kind or "link"
    quote.measured_test_run_id = "" if test_run_id is None else str(test_run_id)
    quote.measured_at = timezone.now() if measured_gbps is not None else None
    quote.full_clean(exclude=["team", "current_version", "vendor", "data_centre"])
    with transaction.atomic():
        quote.save(
            update_fields=[
                "measured_gbps", "measured_p50_gbps", "measured_kind", "measured_test_run_id",
                "measured_at", "updated_at",
            ]
        )  # fmt: skip
    return quote


def workload_create(*, team, data: dict[str, Any]) -> WorkloadProfile:  # type: ignore[no-untyped-def]
    workload = WorkloadProfile(team=team, **data)
    workload.full_clean(exclude=["team"])
    with transaction.atomic():
        workload.save()
    return workload


def workload_update(*, workload: WorkloadProfile, data: dict[str, Any]) -> WorkloadProfile:
    for key, value in data.items():
        setattr(workload, key, value)
    workload.full_clean(exclude=["team"])
    with transaction.atomic():
        workload.save()
    return workload
