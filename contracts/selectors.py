"""Read side of contracts: lists, a contract's stored evaluation, and vendors' track records."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.db.models import CharField, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL

from core.models import JobStatus
from domain.delivery.report import report_from_dict

from .models import (
    ClaimPack,
    Contract,
    DeliveryEvaluation,
    DeliveryUpload,
    Incident,
    VendorTrackRecord,
)


def _latest_done() -> QuerySet[DeliveryEvaluation]:
    return DeliveryEvaluation.objects.filter(
        contract=OuterRef("pk"), status=JobStatus.DONE
    ).order_by("-computed_at", "-pk")


def contract_list(*, team) -> QuerySet[Contract]:  # type: ignore[no-untyped-def]
    """The team's contracts with their vendor and latest evaluation's figures, one query."""
    latest = _latest_done()
    return (
        Contract.objects.for_team(team)
        .select_related("vendor")
        .annotate(
            eval_ratio=Subquery(latest.values("delivered_ratio")[:1]),
            eval_breaches=Subquery(latest.values("breach_count")[:1]),
            eval_credits=Subquery(latest.values("credit_total")[:1]),
            eval_at=Subquery(latest.values("computed_at")[:1]),
        )
        .order_by("-starts_on", "-pk")
    )


def contract_get(*, team, pk: int) -> Contract | None:  # type: ignore[no-untyped-def]
    """The contract with its vendor and Prometheus source (one-to-one), and the names the terms
    card shows of its quote and RFQ (``quote_label``, ``rfq_id``, ``rfq_title``: two columns
    joined, not the rows: loading the quote, its version and the award as objects on every
    request cost more than the rest of the page's queries together). The names are part of
    the terms card's cache key, so a renamed quote or RFQ shows at once."""
    return (
        Contract.objects.for_team(team)
        .select_related("vendor", "prometheus")
        .annotate(
            quote_label=F("quote__label"),
            rfq_id=F("award__rfq_id"),
            rfq_title=F("award__rfq__title"),
        )
        .filter(pk=pk)
        .first()
    )


def latest_evaluation(contract: Contract, *, with_report: bool = True) -> DeliveryEvaluation | None:
    """The latest finished evaluation; ``with_report=False`` leaves the (large) report unread
    until it is used (the page reads it only when its cached view is missing)."""
    rows = contract.evaluations.filter(status=JobStatus.DONE)
    if not with_report:
        rows = rows.defer("report")
    return rows.order_by("-computed_at", "-pk").first()


def _claim_packs_stamp() -> RawSQL:
    """A text that changes whenever the contract's claim packs as listed change: their number,
    the newest, the latest start, finish and heartbeat of any (every status change of a job
    writes one of them) and how many are pending or done (a pack sent back to the queue). One
    SQL text (the same in PostgreSQL and SQLite): built as ORM expressions it cost more Python
    per request than the query it saves."""
    cols = ("COUNT(*)", "MAX(id)", "MAX(started_at)", "MAX(finished_at)", "MAX(heartbeat_at)",
            f"SUM(CASE WHEN status = '{JobStatus.PENDING.value}' THEN 1 ELSE 0 END)",
            f"SUM(CASE WHEN status = '{JobStatus.DONE.value}' THEN 1 ELSE 0 END)")  # fmt: skip
    text = " || '|' || ".join(f"COALESCE(CAST({c} AS TEXT), '-')" for c in cols)
    table, outer = ClaimPack._meta.db_table, DeliveryEvaluation._meta.db_table
    sql = f'SELECT {text} FROM "{table}" WHERE "{table}".contract_id = "{outer}".contract_id'  # noqa: S608 (no user input)
    return RawSQL(sql, (), output_field=CharField())  # noqa: S611 (constant text, no input)


def page_evaluations(
    contract: Contract,
) -> tuple[DeliveryEvaluation | None, DeliveryEvaluation | None]:
    """(the latest finished evaluation, the one pending or running) in one query, the report
    left unread; the finished one carries ``claim_packs_stamp`` (the claim-pack list's key)."""
    done = contract.evaluations.filter(status=JobStatus.DONE).order_by("-computed_at", "-pk")
    pending = contract.evaluations.filter(
        status__in=[JobStatus.PENDING, JobStatus.RUNNING]
    ).order_by("-pk")
    rows = (
        DeliveryEvaluation.objects.filter(
            Q(pk=Subquery(done.values("pk")[:1])) | Q(pk=Subquery(pending.values("pk")[:1]))
        )
        .defer("report")
        .annotate(claim_packs_stamp=_claim_packs_stamp())
    )
    latest = running = None
    for row in rows:
        if row.status == JobStatus.DONE:
            latest = row
        else:
            running = row
    return latest, running


def pending_evaluation(contract: Contract) -> DeliveryEvaluation | None:
    return (
        contract.evaluations.filter(status__in=[JobStatus.PENDING, JobStatus.RUNNING])
        .defer("report")
        .order_by("-pk")
        .first()
    )


def contract_uploads(contract: Contract) -> QuerySet[DeliveryUpload]:
    return contract.uploads.order_by("-uploaded_at", "-pk")


def contract_incidents(contract: Contract) -> QuerySet[Incident]:
    return contract.incidents.order_by("-started_at", "-pk")


def report_part(evaluation: DeliveryEvaluation | None, key: str) -> list[dict[str, Any]]:
    """One list of the stored report (``episodes``, ``credits``, ``months``); empty when none."""
    if evaluation is None:
        return []
    value = (evaluation.report or {}).get(key) or []
    return list(value) if isinstance(value, list) else []


def vendor_track_records(*, team, vendor_ids) -> dict[int, VendorTrackRecord]:  # type: ignore[no-untyped-def]
    """The stored standing of each vendor (written by the evaluate job), one query."""
    rows = VendorTrackRecord.objects.for_team(team).filter(vendor_id__in=list(vendor_ids))
    return {r.vendor_id: r for r in rows}


def vendor_delivery_ratio(team, vendor_ids) -> dict[int, float | None]:  # type: ignore[no-untyped-def]
    """delivered ÷ committed per vendor (None: no evaluated contract), for the ranking."""
    ids = [int(v) for v in vendor_ids]
    records = vendor_track_records(team=team, vendor_ids=ids)
    return {v: (records[v].delivered_ratio if v in records else None) for v in ids}


@dataclass(frozen=True)
class EvaluationView:
    """A stored report made ready for a page: deadlines with the days left at ``now``."""

    report: Any
    episodes: list[dict[str, Any]]
    credits: list[dict[str, Any]]
    months: list[Any]
    no_data_hours: float


def _days_left(deadline, now) -> int:  # type: ignore[no-untyped-def]
    return math.floor((deadline - now).total_seconds() / 86400)


def evaluation_view(evaluation: DeliveryEvaluation | None, *, now) -> EvaluationView | None:  # type: ignore[no-untyped-def]
    if evaluation is None or not evaluation.report:
        return None
    try:
        report = report_from_dict(evaluation.report)
    except ValueError:
        return None
    episodes = [{"index": i, "e": e, "days_left": _days_left(e.claim_deadline, now)}
                for i, e in enumerate(report.episodes)]  # fmt: skip
    n = len(report.episodes)
    credits = [
        {"c": c, "episode": report.episodes[c.episode_index] if 0 <= c.episode_index < n else None,
         "days_left": _days_left(c.claim_deadline, now)}
        for c in report.credits
    ]  # fmt: skip
    return EvaluationView(report=report, episodes=episodes, credits=credits,
                          months=list(report.months),
                          no_data_hours=sum(m.no_data_h for m in report.months))  # fmt: skip
