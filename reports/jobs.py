"""The reports app's job kind: generating a report file (core.jobs runs it)."""

from __future__ import annotations

from core.jobs import JobKind, Progress, register
from core.models import JobStatus
from core.queue import fault_delay

from .models import Report


def _generate(report_id: int, progress: Progress) -> str:
    from .services import report_generate

    progress(5)
    fault_delay("report")  # test hook, off unless PORTAL_FAULT_DELAY_* are set
    report_generate(report_id=report_id, progress=progress)
    return "done"


def _task():  # type: ignore[no-untyped-def]
    from .tasks import generate_report

    return generate_report


REPORT = register(
    JobKind(
        name="report",
        model=Report,
        work=_generate,
        task=_task,
        finished=lambda row: row.status == JobStatus.DONE and bool(row.sha256),
    )
)
