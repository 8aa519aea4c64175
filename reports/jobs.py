"""The reports app's job kinds: building a ranking's report file and a list's download file
(core.jobs runs them: one claim at a time per row, bounded attempts, a time limit)."""

from __future__ import annotations

from core.jobs import JobKind, Progress, register
from core.models import JobStatus
from core.queue import fault_delay

from .models import ListExport, Report


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
        # a file that twice stopped its worker (out of memory) will not build a third time
        max_attempts=2,
        time_limit_s="EXPORT_TIME_LIMIT_S",
        finished=lambda row: row.status == JobStatus.DONE and bool(row.sha256),
    )
)


def _list_export(export_id: int, progress: Progress) -> str:
    from .lists import list_export_generate

    progress(5)
    fault_delay("list_export")
    list_export_generate(export_id=export_id, progress=progress)
    return "done"


def _list_task():  # type: ignore[no-untyped-def]
    from .tasks import generate_list_export

    return generate_list_export


LIST_EXPORT = register(
    JobKind(
        name="list_export",
        model=ListExport,
        work=_list_export,
        task=_list_task,
        max_attempts=2,
        time_limit_s="EXPORT_TIME_LIMIT_S",
        finished=lambda row: row.status == JobStatus.DONE and bool(row.sha256),
    )
)
