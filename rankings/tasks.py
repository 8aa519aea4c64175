"""Celery task of the rankings app: receives a run id, calls the service, records the job."""

from __future__ import annotations

import logging

from celery import shared_task
from django.core.exceptions import ValidationError

from core.models import JobStatus
from core.queue import fault_delay

from .models import RankingRun
from .services import ranking_compute

log = logging.getLogger(__name__)


def run_job(run_id: int) -> str:
    """Job bookkeeping around `ranking_compute`; safe to call twice (results are replaced)."""
    run = RankingRun.objects.filter(pk=run_id).first()
    if run is None:
        return "missing"
    RankingRun.objects.filter(pk=run_id).update(attempts=run.attempts + 1)
    run.job_mark(status=JobStatus.RUNNING, progress=5)

    def progress(value: int) -> None:
        run.job_progress(value)
        fault_delay(f"ranking:{value}")  # test hook, off unless PORTAL_FAULT_DELAY_* are set

    try:
        ranking_compute(run_id=run_id, progress=progress)
    except ValidationError as exc:
        run.job_mark(status=JobStatus.FAILED, error="; ".join(exc.messages))
        return "failed"
    except Exception as exc:
        log.exception("ranking %s failed", run_id)
        run.job_mark(status=JobStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    run.job_mark(status=JobStatus.DONE, progress=100)
    return "done"


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    retry_kwargs={"max_retries": 3},
)
def compute_ranking(run_id: int) -> str:
    """Compute a run; a run already done is left alone (the message may arrive twice when it
    was sent again by core.tasks.requeue_stale_jobs or redelivered after a worker died)."""
    if RankingRun.objects.filter(pk=run_id, status=JobStatus.DONE).exists():
        return "skipped"
    return run_job(run_id)
