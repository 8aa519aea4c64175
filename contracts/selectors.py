"""Read side of contracts: lists, a contract's stored evaluation, and vendors' track records."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from django.db import connection
from django.db.models import CharField, F, Model, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.utils import timezone

from core.models import JobStatus
from domain.delivery.report import report_from_dict

from .models import (
    ClaimPack,
    Contract,
    ContractServer,
    DeliveryEvaluation,
    DeliveryUpload,
    Incident,
    MaintenanceWindow,
    PrometheusSource,
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
        rows = rows.defer("report", "page_report")
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
        .defer("report", "page_report")
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
        .defer("report", "page_report")
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
    """The page's view of an evaluation: its ``page_report`` (the timeline already downsampled
    to the chart's points), or the whole report for an evaluation stored before there was one."""
    if evaluation is None:
        return None
    data = evaluation.page_report or evaluation.report
    if not data:
        return None
    try:
        report = report_from_dict(data)
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


# ---------------------------------------------------------------------------------------------
# Page states: what a page shows, read in one SQL statement without the ORM, as the key of the
# page kept rendered (contracts.views). A changed row changes a value read here, so the key, and
# the page is rendered again at once; nothing is invalidated. The statements are plain SQL (the
# same text in PostgreSQL and SQLite), built once per process from the models' columns: compiling
# the same reads as querysets cost more Python per request than the rest of the page.

UPLOAD_SHOWN = ("pk", "original_name", "kind", "origin", "uploaded_at", "status", "progress",
                "window_count", "error_message", "notes")  # fmt: skip
INCIDENT_SHOWN = ("pk", "kind", "started_at", "ended_at", "hosts", "vendor_ticket",
                  "responded_at", "repaired_at")  # fmt: skip
_NOT_SHOWN = {DeliveryEvaluation: {"report", "page_report"}}  # large, read only on a miss


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _cols(model: type[Model], alias: str, names: tuple[str, ...] | None = None) -> list[str]:
    fields = model._meta.concrete_fields
    if names is not None:
        wanted = {model._meta.pk.name if n == "pk" else n for n in names}
        fields = [f for f in fields if f.name in wanted]
    skip = _NOT_SHOWN.get(model, set())
    return [f"{alias}.{_q(f.column)}" for f in fields if f.name not in skip]


def _table(model: type[Model]) -> str:
    return _q(model._meta.db_table)


_STATE_SQL: dict[str, str] = {}


def _page_state_sql() -> str:
    """Every part is a subquery of the values a section of the page shows, cast to text and
    padded to one width, tagged with the part's name; the parts are joined by UNION ALL."""
    if connection.vendor in _STATE_SQL:
        return _STATE_SQL[connection.vendor]
    from quotes.models import Quote
    from sourcing.models import Award, Rfq
    from vendors.models import Vendor

    c, cid = "c", "%s"
    parts: list[tuple[str, list[str], str]] = [
        ("contract", [*_cols(Contract, c), "v." + _q("name_zh"), "v." + _q("name_en"),
                      "q." + _q("label"), "a." + _q("rfq_id"), "r." + _q("title")],
         f"FROM {_table(Contract)} c JOIN {_table(Vendor)} v ON v.{_q('id')} = c.{_q('vendor_id')}"
         f" LEFT JOIN {_table(Quote)} q ON q.{_q('id')} = c.{_q('quote_id')}"
         f" LEFT JOIN {_table(Award)} a ON a.{_q('id')} = c.{_q('award_id')}"
         f" LEFT JOIN {_table(Rfq)} r ON r.{_q('id')} = a.{_q('rfq_id')}"
         f" WHERE c.{_q('id')} = {cid} AND c.{_q('team_id')} = %s"),
        ("prometheus", _cols(PrometheusSource, "x"),
         f"FROM {_table(PrometheusSource)} x WHERE x.{_q('contract_id')} = {cid}"),
        ("evaluation", _cols(DeliveryEvaluation, "x"),
         f"FROM {_table(DeliveryEvaluation)} x WHERE x.{_q('contract_id')} = {cid}"
         f" AND x.{_q('status')} = %s ORDER BY x.{_q('computed_at')} DESC, x.{_q('id')} DESC"
         " LIMIT 1"),
        ("pending", _cols(DeliveryEvaluation, "x"),
         f"FROM {_table(DeliveryEvaluation)} x WHERE x.{_q('contract_id')} = {cid}"
         f" AND x.{_q('status')} IN (%s, %s) ORDER BY x.{_q('id')} DESC LIMIT 1"),
        ("claim_pack", _cols(ClaimPack, "x"),
         f"FROM {_table(ClaimPack)} x WHERE x.{_q('contract_id')} = {cid}"
         f" ORDER BY x.{_q('id')} DESC LIMIT 5"),
        ("upload", _cols(DeliveryUpload, "x", UPLOAD_SHOWN),
         f"FROM {_table(DeliveryUpload)} x WHERE x.{_q('contract_id')} = {cid}"
         f" ORDER BY x.{_q('uploaded_at')} DESC, x.{_q('id')} DESC LIMIT 20"),
        ("incident", _cols(Incident, "x", INCIDENT_SHOWN),
         f"FROM {_table(Incident)} x WHERE x.{_q('contract_id')} = {cid}"
         f" ORDER BY x.{_q('started_at')} DESC, x.{_q('id')} DESC LIMIT 50"),
        ("server", _cols(ContractServer, "x", ("hostname",)),
         f"FROM {_table(ContractServer)} x WHERE x.{_q('contract_id')} = {cid}"),
        ("maintenance", _cols(MaintenanceWindow, "x"),
         f"FROM {_table(MaintenanceWindow)} x WHERE x.{_q('contract_id')} = {cid}"),
    ]  # fmt: skip
    width = max(len(cols) for _tag, cols, _rest in parts)
    selects = []
    for tag, cols, rest in parts:
        # the rows are chosen first, then only they are cast to text
        inner = f"SELECT {', '.join(f'{col} AS v{i}' for i, col in enumerate(cols))} {rest}"
        texts = [f"CAST({tag}.v{i} AS TEXT)" for i in range(len(cols))]
        texts += ["CAST(NULL AS TEXT)"] * (width - len(cols))
        selects.append(f"SELECT '{tag}', {', '.join(texts)} FROM ({inner}) AS {tag}")  # noqa: S608 (no input: columns)
    _STATE_SQL[connection.vendor] = " UNION ALL ".join(selects)
    return _STATE_SQL[connection.vendor]


def page_state(*, team, pk: int) -> tuple[tuple[str | None, ...], ...] | None:  # type: ignore[no-untyped-def]
    """Every value the contract's page shows, as text (the page's cache key), in one query; None
    when the team has no such contract. Rows come sorted (their order is a function of their
    values: each part's rows are chosen and ordered by shown columns)."""
    if team is None:
        return None
    sql = _page_state_sql()
    done, pending, running = JobStatus.DONE.value, JobStatus.PENDING.value, JobStatus.RUNNING.value
    params = [pk, team.pk, pk, pk, done, pk, pending, running, pk, pk, pk, pk, pk]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if not any(row[0] == "contract" for row in rows):
        return None
    return tuple(sorted((tuple(row) for row in rows), key=repr))


def state_kit_token_valid(state: tuple[tuple[str | None, ...], ...]) -> bool:
    """Whether the kit token in a page state is still valid now (the page says "expired on"
    once it is not: the state itself does not change when the time passes)."""
    from django.utils.dateparse import parse_datetime

    names = [f.name for f in Contract._meta.concrete_fields]
    at = 1 + names.index("kit_token_expires_at")
    for row in state:
        if row[0] == "contract" and row[at]:
            moment = parse_datetime(str(row[at]).strip().replace("T", " "))
            if moment is None:
                return True
            if timezone.is_naive(moment):
                moment = timezone.make_aware(moment, UTC)
            return moment > timezone.now()
    return True


_LIST_SQL: dict[str, str] = {}


def list_state(*, team) -> tuple[tuple[Any, ...], ...]:  # type: ignore[no-untyped-def]
    """The values the contract list shows (the same rows, order and figures as
    ``contract_list``), in one query without the ORM: the list's cache key."""
    if team is None:
        return ()
    sql = _LIST_SQL.get(connection.vendor)
    if sql is None:
        from vendors.models import Vendor

        ev = _table(DeliveryEvaluation)

        def latest(col: str) -> str:
            return (f"(SELECT e.{_q(col)} FROM {ev} e WHERE e.{_q('contract_id')} = c.{_q('id')}"  # noqa: S608 (no input: columns)
                    f" AND e.{_q('status')} = %s ORDER BY e.{_q('computed_at')} DESC,"
                    f" e.{_q('id')} DESC LIMIT 1)")  # fmt: skip

        shown = ("pk", "title", "status", "starts_on", "ends_on", "committed_gbps", "currency")
        figures = ("delivered_ratio", "breach_count", "credit_total")
        cols = [*_cols(Contract, "c", shown), "v." + _q("name_zh"), "v." + _q("name_en"),
                *(latest(c) for c in figures)]  # fmt: skip
        sql = _LIST_SQL[connection.vendor] = (
            f"SELECT {', '.join(cols)} FROM {_table(Contract)} c"  # noqa: S608 (no input)
            f" JOIN {_table(Vendor)} v"
            f" ON v.{_q('id')} = c.{_q('vendor_id')} WHERE c.{_q('team_id')} = %s"
            f" ORDER BY c.{_q('starts_on')} DESC, c.{_q('id')} DESC LIMIT 200"
        )
    done = JobStatus.DONE.value
    with connection.cursor() as cursor:
        cursor.execute(sql, [done, done, done, team.pk])
        return tuple(tuple(row) for row in cursor.fetchall())
