"""Write-side operations on benchmark evidence. Views, serializers and tasks only call these."""

from __future__ import annotations

import hashlib
import logging
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile, File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import jobs
from core.models import JobStatus
from core.queue import enqueue, fault_delay, mark_unqueued
from domain.benchlogs import catalogue_checks as checks
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.verdict import worst
from domain.evidence.admission import OfferEvidence, offer_evidence
from domain.evidence.trust import weakest
from domain.messages import Message
from quotes.services import quote_set_measured_bandwidth

from . import admission, parsing, selectors
from .choices import Verdict
from .models import AcceptanceThresholds, BenchmarkLog, TestRun
from .summary import page_summary

logger = logging.getLogger(__name__)

UNEXPECTED = parsing.UNEXPECTED


@dataclass
class IngestOutcome:
    """What one upload produced: new rows, files already known, and refused zip members."""

    created: list[BenchmarkLog] = field(default_factory=list)
    duplicates: list[BenchmarkLog] = field(default_factory=list)
    refusals: list[dict[str, str]] = field(default_factory=list)


def _sha256(stream: IO[bytes]) -> str:
    digest = hashlib.sha256()
    stream.seek(0)
    while chunk := stream.read(1 << 20):
        digest.update(chunk)
    stream.seek(0)
    return digest.hexdigest()


def _check_size(size: int) -> None:
    limit = settings.UPLOAD_MAX_BYTES
    if size > limit:
        raise ValidationError(
            _("The file is %(size)s MB; the limit is %(limit)s MB.")
            % {"size": f"{size / 1e6:.1f}", "limit": f"{limit / 1e6:.1f}"},
            code="too_large",
        )


def _is_zip(stream: IO[bytes], name: str) -> bool:
    stream.seek(0)
    magic = stream.read(4)
    stream.seek(0)
    return magic == b"PK\x03\x04" and zipfile.is_zipfile(stream)


def benchmark_ingest(  # type: ignore[no-untyped-def]
    *,
    team,
    user,
    test_run: TestRun,
    upload: File,
    origin: dict[str, Any] | None = None,
    witnessed: bool = False,
) -> IngestOutcome:
    """Store one uploaded file (or every safe member of a zip) and queue the parsing.

    The size limit is checked before anything is stored; the raw file and its SHA-256 are saved
    first, parsing happens afterwards in a task. A file the team already has is not stored twice:
    the existing row is returned in ``duplicates``. ``origin`` says how the file came in (path,
    role, RFQ; benchmarks/trust.py), ``witnessed`` that the team ran the test itself.
    """
    if test_run.team_id != team.pk:
        raise ValidationError(_("This test run does not belong to your team."))
    size = upload.size or 0
    _check_size(size)
    name = (upload.name or "upload.log").replace("\\", "/").rsplit("/", 1)[-1][:255]
    outcome = IngestOutcome()
    stream = upload.file if hasattr(upload, "file") else upload
    sha = _sha256(stream)
    existing = BenchmarkLog.objects.filter(team=team, sha256=sha).first()
    if existing is not None:
        outcome.duplicates.append(existing)
        return outcome
    stored: list[BenchmarkLog] = []
    try:
        with transaction.atomic():
            row = _store(team, user, test_run, name, size, sha, upload, stored)
            _mark_origin(row, user, origin, witnessed)
            if _is_zip(stream, name):
                _expand_zip(row, stream, outcome, stored)
            else:
                outcome.created.append(row)
            TestRun.objects.filter(pk=test_run.pk).update(status=JobStatus.PENDING, progress=0)
            transaction.on_commit(lambda: _enqueue(outcome, test_run.pk))
    except BaseException:
        for log in stored:  # the transaction rolled back: leave no orphan file behind
            log.file.delete(save=False)
        raise
    return outcome


def _mark_origin(row: BenchmarkLog, user, origin, witnessed: bool) -> None:  # type: ignore[no-untyped-def]
    """Record how the file came in (members of a zip inherit it from the archive row)."""
    from .trust import origin_for

    row.origin = origin if origin is not None else origin_for(user, via="upload")
    row.witnessed = bool(witnessed)
    row.save(update_fields=["origin", "witnessed"])


def _store(team, user, run, name, size, sha, content, stored) -> BenchmarkLog:  # type: ignore[no-untyped-def]
    row = BenchmarkLog(
        team=team,
        test_run=run,
        original_name=name,
        size_bytes=size,
        sha256=sha,
        uploaded_by=user,
        uploaded_at=timezone.now(),
    )
    row.file.save(name, content, save=False)
    stored.append(row)
    row.full_clean(exclude=["file"])
    row.save()
    return row


def _expand_zip(archive: BenchmarkLog, stream: IO[bytes], outcome: IngestOutcome, stored) -> None:  # type: ignore[no-untyped-def]
    refusals: list[dict[str, str]] = []
    try:
        for member in parsing.zip_members(stream, max_bytes=settings.UPLOAD_MAX_BYTES):
            if member.refusal is not None or member.data is None:
                message = member.refusal or parsing.Message("zip.refused", member.name, member.name)
                refusals.append({"name": member.name, **message.as_dict()})
                continue
            sha = hashlib.sha256(member.data).hexdigest()
            known = BenchmarkLog.objects.filter(team=archive.team, sha256=sha).first()
            if known is not None:
                outcome.duplicates.append(known)
                continue
            row = _store(
                archive.team,
                archive.uploaded_by,
                archive.test_run,
                member.name[:255] or "member.log",
                len(member.data),
                sha,
                ContentFile(member.data, name=member.name or "member.log"),
                stored,
            )
            row.archive = archive
            row.origin, row.witnessed = archive.origin, archive.witnessed
            row.save(update_fields=["archive", "origin", "witnessed"])
            outcome.created.append(row)
    except BenchLogError as exc:
        refusals.append({"name": archive.original_name, **exc.message.as_dict()})
    outcome.refusals.extend(refusals)
    first = refusals[0] if refusals and not outcome.created else None
    archive.is_archive = True
    archive.archive_refusals = refusals
    archive.tool = "zip"
    archive.status = JobStatus.FAILED if first else JobStatus.DONE
    archive.progress = 100
    archive.finished_at = timezone.now()
    archive.error_code = first["code"] if first else ""
    archive.error_en = first["en"] if first else ""
    archive.error_zh = first["zh"] if first else ""
    archive.save()


def _enqueue(outcome: IngestOutcome, run_id: int) -> None:
    """Queue the parsing; a log the queue refused stays pending with a note (core.queue)."""
    from . import tasks

    if not outcome.created:
        enqueue(tasks.summarise_test_run, run_id)
    down = False
    for log in outcome.created:
        if down:  # the broker is down: do not wait for the same timeout once per log
            mark_unqueued(log)
        else:
            down = not jobs.submit("parse", log)


def benchmark_parse(*, log_id: int, force: bool = False) -> str:
    """Parse a stored log and write its result, verdict or error; then refresh the run.

    Idempotent: a finished log is left as it is unless ``force``; the result replaces, never adds.
    """
    log = BenchmarkLog.objects.select_related("test_run__data_centre__network", "team").get(
        pk=log_id
    )
    if log.is_archive or (log.is_finished and not force):
        return "skipped"
    log.job_mark(status=JobStatus.RUNNING, progress=10)
    fields = _parse_fields(log)
    fault_delay("parse")  # test hook (core.queue), off unless PORTAL_FAULT_DELAY_* are set
    with transaction.atomic():
        BenchmarkLog.objects.filter(pk=log.pk).update(**fields)
    log.job_mark(status=fields["status"], progress=100, error=fields["error"])
    _after_log(log.test_run_id)
    return fields["status"]


def _parse_fields(log: BenchmarkLog) -> dict[str, Any]:
    from .trust import after_parse

    fields = _parse_fields_only(log)
    fields.update(after_parse(log, fields.pop("_parsed")))
    return fields


def _parse_fields_only(log: BenchmarkLog) -> dict[str, Any]:
    error: Message | None = None
    data: dict[str, Any] | None = None
    result = None
    try:
        with log.file.open("rb") as fh:
            result = parsing.parse_upload(fh, log.original_name)
        data = parsing.result_json(result, log.original_name)
        error = result.error
    except BenchLogError as exc:
        error = exc.message
    except Exception:  # a parser bug must not leave the row running or raise a 500
        logger.exception("unexpected failure parsing benchmark log %s", log.pk)
        error = UNEXPECTED
    fields: dict[str, Any] = {
        "result": data,
        "summary": page_summary(data),
        "tool": (data or {}).get("tool") or "",
        "test_kind": (data or {}).get("test") or "",
        "throughput_gbps": (data or {}).get("throughput_gbps"),
        "error_code": error.code if error else "",
        "error_en": error.en if error else "",
        "error_zh": error.zh if error else "",
        "verdict": Verdict.PENDING,
        "verdict_reasons": [],
        "status": JobStatus.DONE,
        "error": error.en if error else "",
        "_parsed": result,
    }
    if data is None or data.get("throughput_gbps") is None and data.get("test") != "rdma_lat":
        fields["status"] = JobStatus.FAILED
        fields["error"] = fields["error"] or _("No throughput figure in this log.")
        return fields
    run = log.test_run
    verdict, reasons = parsing.log_verdict(
        data,
        limits=selectors.limits_for_team(log.team),
        line_rate_gbps=selectors.run_line_rate_gbps(run),
        fabric=selectors.run_fabric(run),
    )
    fields.update(verdict=verdict, verdict_reasons=reasons)
    return fields


def _after_log(run_id: int) -> None:
    logs = BenchmarkLog.objects.filter(test_run_id=run_id, is_archive=False)
    total = logs.count()
    finished = logs.filter(status__in=[JobStatus.DONE, JobStatus.FAILED]).count()
    if total and finished < total:
        TestRun.objects.filter(pk=run_id).update(
            status=JobStatus.RUNNING, progress=int(90 * finished / total)
        )
        return
    test_run_summarise(run_id=run_id)


@transaction.atomic
def test_run_summarise(*, run_id: int) -> str:
    """Recompute the run's aggregate, fairness, tail and verdict from its parsed logs."""
    TestRun.objects.select_for_update().filter(pk=run_id).values_list("pk").get()
    run = TestRun.objects.select_related("data_centre__network", "team").get(pk=run_id)
    logs = list(run.logs.filter(is_archive=False))
    line = selectors.run_line_rate_gbps(run)
    # Only admitted logs feed the run's figures (a forged or loopback log never sets its tail).
    counting, found = admission.admit_run(logs, run.quote if run.quote_id else None, run)
    done = [
        log.result
        for log in logs
        if log.status == JobStatus.DONE and log.result and log.pk in counting
    ]
    summary = parsing.run_summary(
        done, line_rate_gbps=line, declared_together=admission.declared_together(run)
    )
    for name in parsing.RUN_FIELDS:
        setattr(run, name, getattr(summary, name))
    run.effective_line_rate_gbps = line
    run.verdict, run.verdict_reasons = _run_verdict(run, logs, summary, line)
    run.summarised_at = timezone.now()
    run.status = JobStatus.DONE
    run.progress = 100
    run.finished_at = run.summarised_at
    run.full_clean(exclude=["vendor", "data_centre"])
    run.save()
    _push_measured_bandwidth(run, found)
    return run.verdict


def _run_verdict(run, logs, summary, line) -> tuple[str, list[dict[str, str]]]:  # type: ignore[no-untyped-def]
    """The run's verdict: its bandwidth (the pooled P5) and each latency log, worst first.

    With both kinds in the run, every reason names its part ("Bandwidth: …", "Latency (file):
    …"), so a passing bandwidth never reads as the whole run passing beside a failed latency.
    """
    if not logs:
        return Verdict.PENDING, []
    parts: list[tuple[str, list[dict[str, str]]]] = []
    if summary.tail_p5_gbps is not None:
        data = {
            # The kind the run's P5 comes from: the summary never pools kinds.
            "test": summary.lead_test or "tcp",
            "throughput_gbps": summary.tail_p5_gbps,
        }
        limits = selectors.limits_for_team(run.team)
        judged_p5 = parsing.log_verdict(
            data, limits=limits, line_rate_gbps=line, fabric=run.fabric, tail=True
        )
        parts.append(judged_p5)
    judged = {Verdict.PASS, Verdict.WARN, Verdict.FAIL}
    latency = [
        log
        for log in logs
        if log.status == JobStatus.DONE and log.test_kind == "rdma_lat" and log.verdict in judged
    ]
    if latency and parts:
        status, reasons = parts[0]
        parts[0] = (status, [_part(checks.verdict_bandwidth_part, r) for r in reasons])
    for log in latency:
        labelled = partial(checks.verdict_latency_part, log.original_name)
        parts.append((log.verdict, [_part(labelled, r) for r in log.verdict_reasons]))
    if not parts:
        measured = any(log.status == JobStatus.DONE and log.throughput_gbps for log in logs)
        reason = (
            checks.verdict_no_network_figure()
            if measured
            else Message("verdict.no_usable_logs", "No log gave a figure.", "没有可用的测试数据。")
        )
        return Verdict.UNKNOWN, [reason.as_dict() | {"status": Verdict.UNKNOWN}]
    status = worst(part_status for part_status, _ in parts)
    reasons = [reason for _, part_reasons in parts for reason in part_reasons]
    failed = sum(1 for log in logs if log.status == JobStatus.FAILED)
    if failed:
        reasons.append(
            Message(
                "verdict.failed_logs",
                f"{failed} log(s) could not be parsed and are left out.",
                f"{failed} 个日志无法解析，未计入。",
            ).as_dict()
            | {"status": Verdict.WARN}
        )
        status = Verdict.WARN if status == Verdict.PASS else status
    return status, reasons


def _part(label: Callable[[Message], Message], reason: dict[str, str]) -> dict[str, str]:
    """A stored reason (``{code, en, zh, status}``) named as one part of a run's verdict."""
    message = Message(reason.get("code", ""), reason.get("en", ""), reason.get("zh", ""))
    return label(message).as_dict() | {"status": reason.get("status", "")}


def _push_measured_bandwidth(run: TestRun, found: OfferEvidence | None = None) -> None:
    """Refresh the measured figure of the run's quote, when it has one."""
    if run.quote_id is not None and run.status == JobStatus.DONE:
        quote_measured_update(quote=run.quote, run=run, found=found)


def quote_measured_update(*, quote, run: TestRun, found: OfferEvidence | None = None) -> None:  # type: ignore[no-untyped-def]
    """Set a quote's measured per-server figure from the admitted logs of every run linked to it.

    Each log is admitted or set aside by the one rule (``domain.evidence.admission``); the
    figure is derived once from the admitted ones (``domain.evidence.offer``) and stored with its
    range and the sentence every surface prints. When no admitted log measures capacity, a
    figure this run had set is cleared.
    """
    if found is None:
        offer = admission.offer_ports(quote)
        if offer is None:
            return
        logs = admission.offer_logs(quote)
        found = offer_evidence(admission.records_of(logs), offer)
        admission.store(logs, found.admissions)
    figure = found.figure
    if figure is None and quote.measured_typical_gbps is None:
        return
    derived = figure_json(found)
    # The card's published acceptance envelope, graded on the same logs (beside the figure).
    graded = admission.envelope_summary(admission.offer_logs(quote), quote)
    if graded is not None:
        derived["envelope"] = graded
    if figure is not None:
        # A figure pooled from several logs is only as trusted as the least trusted of them; the
        # team's risk policy may count a figure resting on supplied logs as a claim.
        levels = BenchmarkLog.objects.filter(pk__in=[a.log_id for a in found.admitted]).values_list(
            "trust_level", flat=True
        )
        derived["trust"] = weakest(list(levels))
    quote_set_measured_bandwidth(
        quote=quote,
        typical_gbps=figure.gbps if figure else None,
        worst_gbps=figure.worst_gbps if figure else None,
        low_gbps=figure.low_gbps if figure else None,
        high_gbps=figure.high_gbps if figure else None,
        measured_kind=figure.kind if figure else "link",
        test_run_id=run.pk if figure else None,
        derivation=derived if figure else None,
    )


def figure_json(found: OfferEvidence) -> dict[str, Any]:
    """What the quote stores of its evidence: the figure, its range, how it was derived, the
    sentence every surface prints and each log's admission."""
    figure = found.figure
    data: dict[str, Any] = {
        "sentence": found.sentence.as_dict(),
        "logs": [a.as_dict() for a in found.admissions],
    }
    if figure is None:
        return data
    return {
        **figure.explanation.as_dict(),
        **data,
        "notes": [note.as_dict() for note in figure.notes],
        "gbps": figure.gbps,
        "typical_gbps": figure.gbps,
        "worst_gbps": figure.worst_gbps,
        "low_gbps": figure.low_gbps,
        "high_gbps": figure.high_gbps,
        "kind": figure.kind,
        "evidence_kind": figure.evidence_kind,
        "ports": figure.ports,
        "ports_tested": figure.ports_tested,
        "tested_together": figure.tested_together,
        # The simultaneous test rests on the uploader's declaration, not on the logs' clocks.
        "together_declared": figure.together_declared,
        # Logs without a clock counted link by link (runs not declared simultaneous).
        "unplaced": figure.unplaced,
        "capped": figure.capped,
    }


def _check_links(team, vendor, data_centre, quote=None) -> None:  # type: ignore[no-untyped-def]
    if quote is not None and quote.team_id != team.pk:
        raise ValidationError({"quote": _("Choose one of your team's quotes.")})
    if vendor is None or vendor.team_id != team.pk:
        raise ValidationError({"vendor": _("Choose one of your team's vendors.")})
    if data_centre is not None and data_centre.vendor_id != vendor.pk:
        raise ValidationError({"data_centre": _("This data centre belongs to another vendor.")})


@transaction.atomic
def test_run_create(  # type: ignore[no-untyped-def]
    *,
    team,
    user,
    vendor,
    name: str,
    data_centre=None,
    notes: str = "",
    line_rate_gbps: Decimal | None = None,
    fabric: str = "",
    **extra: Any,
) -> TestRun:
    """Create an empty test run of one of the team's vendors."""
    _check_links(team, vendor, data_centre, extra.get("quote"))
    run = TestRun(
        team=team,
        created_by=user,
        vendor=vendor,
        data_centre=data_centre,
        name=name.strip(),
        notes=notes,
        line_rate_gbps=line_rate_gbps,
        fabric=fabric or "",
        **extra,
    )
    run.full_clean()
    run.save()
    return run


@transaction.atomic
def test_run_update(*, run: TestRun, team, **changes: Any) -> TestRun:  # type: ignore[no-untyped-def]
    """Change a run's description or line rate; the summary is recomputed when logs exist."""
    for key, value in changes.items():
        setattr(run, key, value)
    _check_links(team, run.vendor, run.data_centre, run.quote)
    run.full_clean()
    run.save()
    if run.logs.exists():
        transaction.on_commit(lambda: _resummarise(run.pk))
    return run


def _resummarise(run_id: int) -> None:
    from . import tasks

    enqueue(tasks.summarise_test_run, run_id)


def test_run_delete(*, run: TestRun) -> None:
    """Delete a run, its logs and (after commit) their raw files."""
    files = [log.file.name for log in run.logs.all() if log.file]
    storage = BenchmarkLog._meta.get_field("file").storage
    with transaction.atomic():
        run.delete()
        transaction.on_commit(lambda: [storage.delete(name) for name in files])


@transaction.atomic
def thresholds_update(*, team, **values: float) -> AcceptanceThresholds:  # type: ignore[no-untyped-def]
    """Save the team's thresholds; existing verdicts are recomputed on the next parse/summary."""
    thresholds, _created = AcceptanceThresholds.objects.get_or_create(team=team)
    for key, value in values.items():
        if key not in parsing.Limits.__dataclass_fields__:
            raise ValidationError({key: _("Unknown threshold.")})
        setattr(thresholds, key, value)
    thresholds.full_clean()
    thresholds.save()
    return thresholds
