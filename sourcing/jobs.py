"""The sourcing app's job kind: closing an RFQ whose deadline passed (core.jobs runs it)."""

from __future__ import annotations

from django.utils import timezone

from core.jobs import JobKind, Progress, register
from core.models import JobStatus
from core.queue import fault_delay

from .choices import RfqState
from .models import Rfq


def _close(rfq_id: int, _progress: Progress) -> str:
    from .services import rfq_close

    fault_delay("close")  # test hook, off unless PORTAL_FAULT_DELAY_* are set
    return rfq_close(rfq_id=rfq_id)


def _task():  # type: ignore[no-untyped-def]
    from .tasks import close_rfq

    return close_rfq


CLOSE = register(
    JobKind(
        name="close_rfq",
        model=Rfq,
        work=_close,
        task=_task,
        # Only published RFQs past their deadline are jobs to (re)send; drafts never are.
        requeueable=lambda: Rfq.objects.filter(
            state=RfqState.PUBLISHED, deadline__lte=timezone.now()
        ),
        finished=lambda row: row.state != RfqState.PUBLISHED or row.status == JobStatus.DONE,
        keep_status=frozenset({"skipped"}),
    )
)
