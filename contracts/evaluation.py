"""The evaluate job's body: the contract's rows → ``domain.delivery`` → the stored report, and
the vendor's track record refreshed from its contracts' latest reports."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime, time
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, IntegerField, Max, Model, OuterRef, Subquery
from django.utils import timezone

from core.jobs import Progress
from core.models import JobStatus
from domain.delivery import engine
from domain.delivery import terms as dt
from domain.delivery.report import downsample_timeline, track_record_to_dict
from vendors.models import Vendor

from .evidence import stored_windows
from .figures import MAX_CHART_POINTS
from .models import (
    Contract,
    ContractServer,
    DeliveryEvaluation,
    DeliveryWindow,
    Incident,
    MaintenanceWindow,
    VendorTrackRecord,
)


def _tz() -> str:
    return getattr(settings, "TIME_ZONE", dt.DEFAULT_TZ) or dt.DEFAULT_TZ


def contract_terms(contract: Contract) -> dt.ContractTerms:
    """The contract's rows as the engine's terms (term from midnight to midnight, local time)."""
    zone = ZoneInfo(_tz())
    schedule = dt.schedule_from_dict(contract.schedule) if contract.schedule else dt.Schedule()
    commitment = dt.Commitment(
        bandwidth_gbps_per_server=contract.committed_gbps,
        availability_pct=float(contract.availability_pct),
        p99_latency_us=contract.p99_latency_us,
        response_minutes=contract.response_minutes,
        repair_hours=contract.repair_hours,
    )
    maintenance = tuple(
        dt.MaintenanceWindow(m.starts_at, m.ends_at) for m in contract.maintenance_windows.all()
    )
    return dt.ContractTerms(
        commitment=commitment, schedule=schedule, monthly_fee=Decimal(contract.monthly_fee),
        currency=contract.currency,
        hosts=tuple(contract.servers.order_by("hostname").values_list("hostname", flat=True)),
        term_start=datetime.combine(contract.starts_on, time(), zone),
        term_end=datetime.combine(contract.ends_on, time(), zone),
        maintenance=maintenance, tz=_tz(),
    )  # fmt: skip


def contract_incidents(contract: Contract) -> list[engine.Incident]:
    return [
        engine.Incident(
            start=i.started_at,
            end=i.ended_at,
            hosts=tuple(i.hosts or ()),
            opened_at=i.opened_at,
            responded_at=i.responded_at,
            repaired_at=i.repaired_at,
            reference=i.vendor_ticket,
        )  # fmt: skip
        for i in contract.incidents.order_by("started_at")
    ]


def _count_last(model: type[Model]) -> dict[str, Subquery]:
    rows = model.objects.filter(contract=OuterRef("pk")).order_by().values("contract")
    return {
        "n": Subquery(rows.annotate(v=Count("pk")).values("v")[:1], output_field=IntegerField()),
        "last": Subquery(rows.annotate(v=Max("pk")).values("v")[:1], output_field=IntegerField()),
    }


def inputs_stamp(contract: Contract) -> str:
    """Changes whenever anything the engine reads changes (terms, windows, incidents,
    maintenance windows, servers): one query (the page reads it to say an evaluation is
    outdated)."""
    parts: dict[str, Subquery] = {}
    for name, model in (("w", DeliveryWindow), ("i", Incident), ("m", MaintenanceWindow),
                        ("s", ContractServer)):  # fmt: skip
        parts.update({f"{name}_{k}": v for k, v in _count_last(model).items()})
    row = Contract.objects.filter(pk=contract.pk).values("updated_at", **parts).get()
    counts = {k: row[k] or 0 for k in parts}
    text = (f"{row['updated_at'].isoformat()}|{counts['w_n']},{counts['w_last']}|"
            f"{counts['i_n']},{counts['i_last']}|{counts['m_n']},{counts['m_last']}|"
            f"{counts['s_n']},{counts['s_last']}")  # fmt: skip
    return hashlib.sha256(text.encode()).hexdigest()


def evaluation_compute(
    *, evaluation_id: int, progress: Progress, now: datetime | None = None
) -> str:
    row = DeliveryEvaluation.objects.select_related("contract").get(pk=evaluation_id)
    contract = row.contract
    terms = contract_terms(contract)
    problems = dt.terms_problems(terms)
    if problems:
        raise ValidationError([f"{m.en} / {m.zh}" for m in problems])
    stamp = inputs_stamp(contract)
    windows = stored_windows(contract.pk)
    progress(30)
    report = engine.evaluate(terms, windows, contract_incidents(contract),
                             now=now or timezone.now())  # fmt: skip
    progress(80)
    data = engine.report_to_dict(report)
    shown = replace(report, timeline=tuple(downsample_timeline(report.timeline, MAX_CHART_POINTS)))
    with transaction.atomic():
        DeliveryEvaluation.objects.filter(pk=row.pk).update(
            report=data, page_report=engine.report_to_dict(shown),
            inputs_stamp=stamp, computed_at=report.computed_at,
            delivered_ratio=report.delivered_ratio, breach_count=report.breaches,
            credit_total=report.claimable_amount,
            no_data_hours=sum(m.no_data_h for m in report.months),
            measured_hours=report.measured_h,
        )  # fmt: skip
        row.job_mark(status=JobStatus.DONE, progress=100)
        vendor_track_record_refresh(team=contract.team, vendor_id=contract.vendor_id)
    return "done"


def vendor_track_record_refresh(*, team, vendor_id: int) -> VendorTrackRecord:  # type: ignore[no-untyped-def]
    """Recompute the vendor's standing from its contracts' latest stored reports."""
    reports = []
    basis: list[dict[str, object]] = []
    for contract in Contract.objects.for_team(team).filter(vendor_id=vendor_id).order_by("pk"):
        latest = (contract.evaluations.filter(status=JobStatus.DONE).exclude(report={})
                  .order_by("-computed_at", "-pk").first())  # fmt: skip
        if latest is None:
            continue
        try:
            reports.append(engine.report_from_dict(latest.report))
        except ValueError:
            continue  # a report of an older format: the next evaluation replaces it
        if latest.delivered_ratio is not None:
            basis.append({"id": contract.pk, "title": contract.title,
                          "ratio": latest.delivered_ratio})  # fmt: skip
    record = engine.track_record(reports)

    row, _ = VendorTrackRecord.objects.update_or_create(
        team=team, vendor_id=vendor_id,
        defaults={"contracts": record.contracts, "measured_hours": record.measured_h,
                  "delivered_ratio": record.delivered_ratio, "breaches": record.breaches,
                  "record": track_record_to_dict(record)},
    )  # fmt: skip
    # the ranking reads the standing from the vendor row (vendors sit below contracts)
    Vendor.objects.filter(pk=vendor_id, team=team).update(
        delivered_ratio=record.delivered_ratio,
        delivered_basis=basis if record.delivered_ratio is not None else [],
    )
    return row
