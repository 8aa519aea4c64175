"""Read-side queries for vendors: lists, details, findings and the audit trail."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from itertools import chain

from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext as _

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


def vendor_prefetch_checks(vendors: list[Vendor]) -> None:
    """Load what `vendor_findings` reads (licences, ICP filings, certifications, data centres
    with their networks, the SLA) for `vendors` in one query per relation, whatever their
    number; relations already loaded (vendor_prefetch, select_related) are not loaded again."""
    if not vendors:
        return
    prefetch_related_objects(
        vendors,
        "licences",
        "icp_filings",
        "certifications",
        Prefetch("data_centres", queryset=DataCentre.objects.select_related("network")),
    )
    missing_sla = [v for v in vendors if not Vendor.sla.is_cached(v)]
    if missing_sla:
        slas = {s.vendor_id: s for s in SlaTerms.objects.filter(vendor__in=missing_sla)}
        for v in missing_sla:
            sla = slas.get(v.pk)
            Vendor.sla.related.set_cached_value(v, sla)  # None: no SLA, no query later
            if sla is not None:
                sla.vendor = v


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


def _actions() -> dict[str, str]:
    return {"+": _("created"), "~": _("changed"), "-": _("deleted")}


def _shown(field, value) -> str:  # type: ignore[no-untyped-def]
    """A recorded value as a user reads it: a choice's label, "—" for nothing.

    History rows hold whatever was stored at the time, including values written before their
    field's shape was enforced (an object, a number, a 200 KB string): any value is shown,
    shortened, and never assumed to be a list of codes.
    """
    if value in (None, "", [], {}):
        return "—"
    from .choices import Service

    choices = dict(getattr(field, "flatchoices", None) or ())
    if field.name == "services":
        choices = dict(Service.choices)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list | tuple):
        return _short(", ".join(_label(choices, v) for v in value))
    return _short(_label(choices, value))


SHOWN_MAX_CHARS = 200


def _label(choices: dict, value: object) -> str:  # type: ignore[type-arg]
    """A choice's label when `value` is one of the choices, else the value as text."""
    if isinstance(value, str | int) and not isinstance(value, bool) and value in choices:
        return str(choices[value])
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)[: SHOWN_MAX_CHARS + 1]
    return str(value)[: SHOWN_MAX_CHARS + 1]


def _short(text: str) -> str:
    return text if len(text) <= SHOWN_MAX_CHARS else text[: SHOWN_MAX_CHARS - 1] + "…"


def _entries(history_qs, model) -> list[AuditEntry]:  # type: ignore[no-untyped-def]
    """Audit lines of one model's history, in the user's words (names of the model and of the
    fields, choice labels), never the developers' field names."""
    label = str(model._meta.verbose_name)
    actions = _actions()
    rows = list(history_qs.select_related("history_user").order_by("id", "history_id"))
    previous: dict[int, object] = {}
    out: list[AuditEntry] = []
    for row in rows:
        prev = previous.get(row.id)
        changes: tuple[tuple[str, str, str], ...] = ()
        if prev is not None and row.history_type == "~":
            delta = row.diff_against(prev)
            fields = [(model._meta.get_field(c.field), c) for c in delta.changes]
            changes = tuple(
                (str(f.verbose_name), _shown(f, c.old), _shown(f, c.new)) for f, c in fields
            )
        who = row.history_user.get_username() if row.history_user else _("system")
        out.append(
            AuditEntry(
                when=row.history_date,
                who=who,
                model=label,
                record=str(row.instance) if row.history_type != "-" else f"#{row.id}",
                action=actions.get(row.history_type, row.history_type),
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
        _entries(Vendor.history.filter(id=vendor.pk), Vendor),
        _entries(Licence.history.filter(vendor_id=vendor.pk), Licence),
        _entries(IcpFiling.history.filter(vendor_id=vendor.pk), IcpFiling),
        _entries(Certification.history.filter(vendor_id=vendor.pk), Certification),
        _entries(DataCentre.history.filter(vendor_id=vendor.pk), DataCentre),
        _entries(NetworkProfile.history.filter(data_centre_id__in=list(set(dcs))), NetworkProfile),
        _entries(SlaTerms.history.filter(vendor_id=vendor.pk), SlaTerms),
    ]
    entries = sorted(chain.from_iterable(parts), key=lambda e: e.when, reverse=True)
    return entries[:limit]
