"""Write-side operations on vendors: every change is validated, atomic and re-checked."""

from __future__ import annotations

from django.db import models, transaction
from django.utils import timezone

from core.deletion import delete_with_files
from domain.credentials import Severity

from . import concurrency
from .models import Vendor
from .selectors import vendor_findings, vendor_prefetch


def vendor_refresh_findings(*, vendor: Vendor) -> Vendor:
    """Re-run the due-diligence checks and store the summary the list page shows."""
    fresh = vendor_prefetch(Vendor.objects.filter(pk=vendor.pk)).get()
    findings = vendor_findings(fresh)
    Vendor.objects.filter(pk=vendor.pk).update(
        findings_critical=sum(1 for f in findings if f.severity == Severity.CRITICAL),
        findings_warning=sum(1 for f in findings if f.severity == Severity.WARNING),
        findings_total=len(findings),
        finding_codes=sorted({f.code for f in findings}),
        findings_checked_at=timezone.now(),
    )
    vendor.refresh_from_db()
    return vendor


@transaction.atomic
def vendor_save(*, vendor: Vendor, team, based_on: list[str] | str | None = None) -> Vendor:  # type: ignore[no-untyped-def]
    """Create or update a vendor of `team` (the form or serializer has already bound it).

    `based_on`: the stamp(s) of the version the change was made from (the form's hidden field,
    the API's If-Match); when the stored row has another, VendorConflict (nothing saved). Checked
    on the locked row."""
    if vendor.pk and based_on is not None:
        locked = Vendor.objects.select_for_update().get(pk=vendor.pk)
        wanted = [based_on] if isinstance(based_on, str) else based_on
        if concurrency.stamp(locked) not in wanted:
            raise concurrency.conflict_for(locked, wanted[-1] if wanted else "")
    vendor.team = team
    vendor.full_clean()
    vendor.save()
    return vendor_refresh_findings(vendor=vendor)


@transaction.atomic
def vendor_child_save(*, instance: models.Model, vendor: Vendor, user) -> models.Model:  # type: ignore[no-untyped-def]
    """Save a credential, data centre, network profile or SLA of `vendor`.

    Setting the state to verified or rejected records who did it and when.
    """
    if hasattr(instance, "vendor_id"):
        instance.vendor = vendor  # type: ignore[attr-defined]
    state = getattr(instance, "state", None)
    if state in ("verified", "rejected") and getattr(instance, "verified_by_id", None) is None:
        instance.verified_by = user  # type: ignore[attr-defined]
        instance.verified_at = timezone.now()  # type: ignore[attr-defined]
    if state == "claimed":
        instance.verified_by = None  # type: ignore[attr-defined]
        instance.verified_at = None  # type: ignore[attr-defined]
    instance.full_clean()
    instance.save()
    vendor_refresh_findings(vendor=vendor)
    return instance


@transaction.atomic
def vendor_child_delete(*, instance: models.Model, vendor: Vendor) -> None:
    """Delete a credential, data centre (with its network) or SLA; evidence files after commit."""
    delete_with_files(instance)
    vendor_refresh_findings(vendor=vendor)


def vendor_delete(*, vendor: Vendor) -> None:
    """Delete a vendor and everything that cascades from it (credentials, data centres, quotes,
    test runs and their logs, sourcing invitations and answers); every uploaded file those rows
    held (evidence, raw logs) is removed after the transaction commits, none on a rollback."""
    delete_with_files(vendor)


def vendors_refresh_all() -> int:
    """Periodic re-check (licences and certificates expire with time)."""
    count = 0
    for vendor in Vendor.objects.only("pk").iterator():
        vendor_refresh_findings(vendor=vendor)
        count += 1
    return count
