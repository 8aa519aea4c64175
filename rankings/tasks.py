"""Celery task of the rankings app: receives a run id; core.jobs does the bookkeeping."""

from __future__ import annotations

from celery import shared_task

from core import jobs


def run_job(run_id: int) -> str:
    """Compute a run in this process with the job bookkeeping (attempts, heartbeat, status);
    a run already done is left alone."""
    return jobs.run("rank", run_id)


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    retry_kwargs={"max_retries": 3},
)
def compute_ranking(run_id: int) -> str:
    """Compute a run; a run already done is left alone (the message may arrive twice when it
    was sent again by core.tasks.requeue_stale_jobs or redelivered after a worker died)."""
    return run_job(run_id)
