"""Read-side queries for vendors: lists, details, findings and the audit trail."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from itertools import chain

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from domain.credentials import Finding, check_vendor

from .facts import vendor_facts
from .models import Certification, DataCentre, IcpFiling, Licence, SlaTerms, Vendor


def vendor_prefetch(qs: QuerySet[Vendor]) -> QuerySet[Vendor]:
    """Everything the checks and the detail page need, in a fixed number of queries."""
    return qs.select_related("sla", "sla__verified_by").prefetch_related(
        Prefetch("licences", queryset=Licence.objects.select_related("verified_by")),
        Prefetch("icp_filings", queryset=IcpFiling.objects.select_related("verified_by")),
        Prefetch("certifications", queryset=Certification.objects.select_related("verified_by")),
        Prefetch(
            "data_centres",
            queryset=DataCentre.objects.select_related("network", "verified_by"),
        ),
    )


def vendor_filterset(*, team, data=None):  # type: ignore[no-untyped-def]
    """The list's one FilterSet (vendors.filters.VendorFilter, shared with the API) over the
    team's vendors, most red flags first unless ``sort=`` says otherwise."""
    from .filters import VendorFilter

    qs = Vendor.objects.for_team(team).order_by("-findings_critical", "name_zh", "name_en", "pk")
    return VendorFilter(data or None, queryset=qs, team=team)


def vendor_list(*, team, filters=None) -> QuerySet[Vendor]:  # type: ignore[no-untyped-def]
    """The team's vendors, filtered and sorted by the list page's / API's parameters."""
    return vendor_filterset(team=team, data=filters).qs


def vendor_findings(vendor: Vendor, *, today: date | None = None) -> tuple[Finding, ...]:
    return check_vendor(vendor_facts(vendor), today=today or timezone.localdate())


@dataclass(frozen=True)
class AuditEntry:
    when: datetime
    who: str
    model: str
    record: str
    action: str
    changes: tuple[tuple[str, str, str], ...]  # (field, before, after)


_ACTIONS = {"+": "created", "~": "changed", "-": "deleted"}


def _entries(history_qs, label: str) -> list[AuditEntry]:  # type: ignore[no-untyped-def]
    rows = list(history_qs.select_related("history_user").order_by("id", "history_id"))
    previous: dict[int, object] = {}
    out: list[AuditEntry] = []
    for row in rows:
        prev = previous.get(row.id)
        changes: tuple[tuple[str, str, str], ...] = ()
        if prev is not None and row.history_type == "~":
            delta = row.diff_against(prev)
            changes = tuple((c.field, str(c.old), str(c.new)) for c in delta.changes)
        who = row.history_user.get_username() if row.history_user else "system"
        out.append(
            AuditEntry(
                when=row.history_date,
                who=who,
                model=label,
                record=str(row.instance) if row.history_type != "-" else f"#{row.id}",
                action=_ACTIONS.get(row.history_type, row.history_type),
                changes=changes,
            )
        )
        previous[row.id] = row
    return out


def vendor_audit_trail(vendor: Vendor, *, limit: int = 200) -> list[AuditEntry]:
    """Every recorded change to the vendor and its credentials, newest first."""
    dcs = DataCentre.history.filter(vendor_id=vendor.pk).values_list("id", flat=True)
    from .models import NetworkProfile

    parts = [
        _entries(Vendor.history.filter(id=vendor.pk), "vendor"),
        _entries(Licence.history.filter(vendor_id=vendor.pk), "licence"),
        _entries(IcpFiling.history.filter(vendor_id=vendor.pk), "icp_filing"),
        _entries(Certification.history.filter(vendor_id=vendor.pk), "certification"),
        _entries(DataCentre.history.filter(vendor_id=vendor.pk), "data_centre"),
        _entries(NetworkProfile.history.filter(data_centre_id__in=list(set(dcs))), "network"),
        _entries(SlaTerms.history.filter(vendor_id=vendor.pk), "sla"),
    ]
    entries = sorted(chain.from_iterable(parts), key=lambda e: e.when, reverse=True)
    return entries[:limit]
