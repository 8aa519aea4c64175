"""Celery tasks of the sourcing app: the deadline beat job, closing one RFQ, acceptance checks."""

from __future__ import annotations

import logging

from celery import shared_task

from core import jobs
from core.models import JobStatus

from .mail import extension_notify
from .models import Rfq
from .services import award_acceptance_check, rfqs_due_ids

log = logging.getLogger(__name__)


@shared_task
def close_due_rfqs() -> list[int]:
    """Beat job: queue the closing of every published RFQ whose deadline has passed."""
    due = rfqs_due_ids()
    for rfq_id in due:
        rfq = Rfq.objects.filter(pk=rfq_id, status=JobStatus.PENDING).first()
        if rfq is not None:
            jobs.submit("close_rfq", rfq)
    return due


def close_job(rfq_id: int) -> str:
    """Close one RFQ with the job bookkeeping (core.jobs); a second run is "skipped"."""
    return jobs.run("close_rfq", rfq_id)


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    retry_kwargs={"max_retries": 3},
)
def close_rfq(rfq_id: int) -> str:
    return close_job(rfq_id)


ACCEPTANCE_RETRIES = 30  # every 10 s: five minutes, then the check stops and says why


@shared_task(bind=True, acks_late=True, max_retries=ACCEPTANCE_RETRIES)
def check_acceptance(self, award_id: int) -> str:  # type: ignore[no-untyped-def]
    """Check an award's acceptance once its logs are parsed, retrying while they still are.

    With no log at all it stops at once; on its last attempt it stops too, and either way the
    reason is stored on the award (sourcing.services.award_acceptance_check)."""
    last = self.request.is_eager or self.request.retries >= ACCEPTANCE_RETRIES
    outcome = award_acceptance_check(award_id=award_id, give_up=last)
    if outcome == "pending":
        raise self.retry(countdown=10)
    return outcome


@shared_task(acks_late=True)
def notify_deadline_extension(extension_id: int) -> dict[str, list[str]]:
    """Mail the invited suppliers an approved extension; a second run mails nobody."""
    return extension_notify(extension_id=extension_id)
