"""Logs as evidence records, and each one's admission for its offer (rules: domain/evidence).

The one place stored logs become domain evidence records (``records_of``); the admission rule,
the figure and its sentence are ``domain.evidence.admission``'s. This module only reads the rows,
builds the offer's hardware from the quote's current terms and writes each log's admission back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import F

from core.models import JobStatus
from domain.evidence import envelopes
from domain.evidence.admission import Admission, OfferEvidence, admit_all, offer_evidence
from domain.evidence.offer import OfferPorts
from domain.evidence.record import EvidenceRecord

from .choices import StartedTogether
from .models import BenchmarkLog, TestRun

RECORD_FIELDS = (
    "pk", "original_name", "test_run_id", "result", "checks", "integrity", "provenance",
    "challenge", "fingerprint", "trust_level", "admission",
)  # fmt: skip


def _legacy_checks(log: BenchmarkLog) -> dict[str, Any]:
    """The checks of a log parsed before records were stored, from its trust fields."""
    integrity = log.integrity or {}
    return {
        "integrity": integrity.get("status") or "unchecked",
        "findings": integrity.get("findings") or [],
        "reused_by": integrity.get("reused") or [],
        "fingerprint": log.fingerprint,
        "trust": log.trust_level,
        "challenge": (log.challenge or {}).get("status"),
        "site": {"hosts": (log.provenance or {}).get("hosts") or []},
    }


def declared_together(run: TestRun) -> bool:
    """The run's uploader declared its tests started at the same time (only "yes" counts)."""
    return run.started_together == StartedTogether.YES


def record_of(log: BenchmarkLog, declared: bool | None = None) -> EvidenceRecord:
    """``declared``: the run's declaration; None reads it from the row (``offer_logs``
    annotates ``run_started_together``; else the run is fetched)."""
    if declared is None:
        stated = getattr(log, "run_started_together", None)
        if stated is None:
            stated = log.test_run.started_together
        declared = stated == StartedTogether.YES
    return EvidenceRecord.from_stored(
        log_id=log.pk,
        name=log.original_name,
        batch=str(log.test_run_id),
        result=log.result or {},
        checks=log.checks if log.checks is not None else _legacy_checks(log),
        declared_together=declared,
    )


def records_of(logs: Iterable[BenchmarkLog], declared: bool | None = None) -> list[EvidenceRecord]:
    """Every parsed log as an evidence record (logs without a result are left out)."""
    return [record_of(log, declared) for log in logs if log.status == JobStatus.DONE and log.result]


def offer_ports(quote: Any) -> OfferPorts | None:
    """The quote's network as its current terms state it; None without terms."""
    version = getattr(quote, "current_version", None) if quote is not None else None
    if version is None:
        return None
    return OfferPorts(
        ports=version.nics_per_node,
        port_gbps=float(version.nic_gbps),
        gpus_per_server=version.gpus_per_node,
        gpu=getattr(version.gpu, "key", "") or "",
        fabric=version.fabric or "",
    )


def offer_logs(quote: Any) -> list[BenchmarkLog]:
    """Every parsed log of every run linked to the quote (its team's runs only)."""
    return list(
        BenchmarkLog.objects.filter(
            test_run__quote=quote, test_run__team_id=quote.team_id, status=JobStatus.DONE
        )
        .exclude(is_archive=True)
        .only(*RECORD_FIELDS, "status", "team_id")
        .annotate(run_started_together=F("test_run__started_together"))
        .order_by("pk")
    )


def store(logs: Sequence[BenchmarkLog], admissions: Iterable[Admission]) -> None:
    """Write each log's admission (only those that changed)."""
    by_id = {a.log_id: a.as_dict() for a in admissions}
    changed = []
    for log in logs:
        value = by_id.get(log.pk)
        if value is not None and log.admission != value:
            log.admission = value
            changed.append(log)
    if changed:
        BenchmarkLog.objects.bulk_update(changed, ["admission"])


def admit_run(
    logs: Sequence[BenchmarkLog], quote: Any, run: TestRun
) -> tuple[set[int], OfferEvidence | None]:
    """Admit a run's logs: for its quote (with every other log of that quote) when it has one,
    else with the checks that need no offer. Returns the ids of the logs that may count for the
    run's figures (admitted, or set aside only as a kind that never counts: UDP at a set rate,
    latency, a collective inside one server) and, with a quote, the quote's evidence."""
    offer = offer_ports(quote)
    if offer is not None:
        everything = offer_logs(quote)
        found = offer_evidence(records_of(everything), offer)
        store(everything, found.admissions)
        admissions: Sequence[Admission] = found.admissions
    else:
        found = None
        done = [log for log in logs if log.status == JobStatus.DONE and log.result]
        admissions = admit_all(records_of(done, declared_together(run)), None)
        store(done, admissions)
    # Kinds that never count as capacity anyway (the run summary says why in its notes).
    kinds_only = {"udp_at_rate", "latency", "no_figure", "one_host"}
    counting = {a.log_id for a in admissions if set(a.codes) <= kinds_only}
    return counting, found


def admission_codes(log: BenchmarkLog) -> list[str]:
    """The reason codes of the log's stored admission (empty: admitted or not yet admitted)."""
    reasons = (log.admission or {}).get("reasons") or []
    return [
        str(r.get("code", "")).removeprefix("admission.") for r in reasons if isinstance(r, dict)
    ]


def envelope_grades(
    logs: Iterable[BenchmarkLog], quote: Any, *, named: str | None = None
) -> tuple[list[envelopes.LogGrade], envelopes.Envelope | None]:
    """Each parsed log graded against the published envelope of the quote's card (or the one an
    RFQ's acceptance criteria name), beside the line-rate verdict; set-aside logs ungraded."""
    offer = offer_ports(quote)
    gpu, nic = (offer.gpu, offer.port_gbps) if offer is not None else ("", 0.0)
    if offer is None and not named:
        return [], None
    items = [
        (log.pk, log.original_name, record_of(log).result, admission_codes(log))
        for log in logs
        if log.status == JobStatus.DONE and log.result
    ]
    return envelopes.grade_logs(items, gpu, nic, named=named)


def envelope_summary(
    logs: Iterable[BenchmarkLog], quote: Any, *, named: str | None = None
) -> dict[str, Any] | None:
    """The offer's grade against the envelope (``envelopes.summary``), None when none applies."""
    grades, env = envelope_grades(logs, quote, named=named)
    return envelopes.summary(grades, env)
