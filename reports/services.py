"""Reports: request (validate, store, enqueue) and generate (selector -> builder -> file)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core import jobs
from core.models import JobStatus
from rankings.models import RankingRun
from rankings.selectors import stale_versions

from .choices import ReportKind
from .collector import fewer_collections
from .models import Report
from .selectors import report_data

Progress = Callable[[int], None]


def _language(language: str | None) -> str:
    codes = [code for code, _name in settings.LANGUAGES]
    if not language:
        return settings.LANGUAGE_CODE
    language = language.lower()
    for code in codes:
        if language == code or language.split("-")[0] == code.split("-")[0]:
            return code
    raise ValidationError({"language": _("Choose one of: %s.") % ", ".join(codes)})


def _check(*, team, run: RankingRun, kind: str) -> None:  # type: ignore[no-untyped-def]
    if run.team_id != team.pk:
        raise ValidationError({"run": _("Choose one of your team's ranking runs.")})
    if kind not in ReportKind.values:
        raise ValidationError({"kind": _("Choose pdf, xlsx or csv.")})
    if not run.is_finished:
        raise ValidationError({"run": _("The ranking is still being computed; export it after.")})


def run_stamp(run: RankingRun) -> str:
    """What a run's report is built from: the run, when its results were last computed (a
    ranking computed again gets a new finished_at, hence a new file) and which of its quotes
    have changed since (stale means said: once an offer gets new terms, the next file of the
    run is built again and names it)."""
    done = run.finished_at.isoformat() if run.finished_at else "-"
    stamp = f"run-{run.pk}-{done}"
    changed = stale_versions(run=run)
    if changed:
        stamp += "-c" + hashlib.sha256(changed.encode()).hexdigest()[:10]
    return stamp[:64]


def _claim(*, team, user, run: RankingRun, kind: str, language: str | None) -> tuple[Report, bool]:  # type: ignore[no-untyped-def]
    """The one row of this run, kind, language and stamp; True when this call created it or
    took a failed one back to pending (then this caller, and only it, sends it to a worker).
    Concurrent callers meet on the unique constraint; a failed row is restarted by one
    conditional update, so two requests never start two builds of one file."""
    _check(team=team, run=run, kind=kind)
    lang = _language(language)
    with transaction.atomic():
        report, created = Report.objects.get_or_create(
            team=team, run=run, kind=kind, language=lang, stamp=run_stamp(run),
            defaults={"created_by": user},
        )  # fmt: skip
        if created:
            return report, True
        restarted = Report.objects.filter(pk=report.pk, status=JobStatus.FAILED).update(
            status=JobStatus.PENDING, progress=0, error="", attempts=0, finished_at=None,
            queued_at=timezone.now(),
        )  # fmt: skip
        if restarted:
            report.refresh_from_db()
        return report, bool(restarted)


def report_request(
    *, team, user, run: RankingRun, kind: str, language: str | None = None
) -> Report:  # type: ignore[no-untyped-def]
    """The run's report of this kind and language, sent to a worker unless it exists already
    (built, being built, or waiting); a failed one is started again."""
    report, start = _claim(team=team, user=user, run=run, kind=kind, language=language)
    if start:
        transaction.on_commit(lambda: _enqueue(report))
    return report


def report_current(
    *, team, run: RankingRun, kind: str, language: str | None = None
) -> Report | None:  # type: ignore[no-untyped-def]
    """The row of the run's current results in this kind and language, whatever its state."""
    return (
        Report.objects.for_team(team)
        .filter(run=run, kind=kind, language=_language(language), stamp=run_stamp(run))
        .first()
    )


def _enqueue(report: Report) -> bool:
    """Send the report to a worker; False (report kept pending, noted) when the queue is down."""
    return jobs.submit("report", report)


def report_build_sync(
    *, team, user, run: RankingRun, kind: str, language: str | None = None
) -> Report:  # type: ignore[no-untyped-def]
    """Build a report in the calling process (demo loader, benchmark script; never a request)."""
    from .tasks import run_job

    report, _start = _claim(team=team, user=user, run=run, kind=kind, language=language)
    run_job(report.pk)
    report.refresh_from_db()
    return report


def _build(kind: str, data, progress: Progress) -> bytes:  # type: ignore[no-untyped-def]
    if kind == ReportKind.PDF:
        from .pdf import build_pdf

        return build_pdf(data, progress=progress)
    if kind == ReportKind.XLSX:
        from .xlsx import build_xlsx

        return build_xlsx(data, progress=progress)
    from .csv import build_csv

    return build_csv(data)


def report_generate(*, report_id: int, progress: Progress | None = None) -> Report:
    """Build the report's file and store it with its hash; running it again replaces the file
    (one file per row, never a second row)."""
    report = Report.objects.select_related("run", "team", "created_by").get(pk=report_id)
    tick = progress or (lambda p: None)
    if not report.run.is_finished:
        raise ValidationError(_("The ranking is still being computed."))
    with translation.override(report.language), fewer_collections():
        data = report_data(run=report.run, user=report.created_by)
        tick(30)
        content = _build(report.kind, data, tick)
    tick(90)
    old = report.file.name if report.file else ""
    report.file.save(report.filename, ContentFile(content), save=False)
    report.sha256 = hashlib.sha256(content).hexdigest()
    report.size_bytes = len(content)
    Report.objects.filter(pk=report.pk).update(
        file=report.file.name, sha256=report.sha256, size_bytes=report.size_bytes
    )
    if old and old != report.file.name:
        report.file.storage.delete(old)
    return report
