"""Demo reports: the PDF and XLSX of the demo ranking, generated at once so they can be opened."""

from __future__ import annotations

from django.conf import settings

from core.models import JobStatus
from rankings.models import RankingRun

from .choices import ReportKind
from .services import report_build_sync


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    run = RankingRun.objects.for_team(team).filter(status=JobStatus.DONE).first()
    if run is None:
        return
    for kind in (ReportKind.PDF, ReportKind.XLSX, ReportKind.CSV):
        report_build_sync(team=team, user=user, run=run, kind=kind, language=settings.LANGUAGE_CODE)
