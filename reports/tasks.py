"""Celery tasks of the reports app: each receives a row id and runs its job (core.jobs).

Both carry the export time limit as Celery's soft limit (the job ends failed with the reason,
not retried) and a hard limit a little later (a build that ignores the soft one is killed; the
re-sender then fails the row as past its time limit instead of sending it again)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from core import jobs

log = logging.getLogger(__name__)

LIMITS = {
    "soft_time_limit": settings.EXPORT_TIME_LIMIT_S,
    "time_limit": settings.EXPORT_TIME_LIMIT_S + 30,
}


def run_job(report_id: int) -> str:
    """Generate a report in this process with the job bookkeeping (core.jobs); a finished
    report is left as it is."""
    return jobs.run("report", report_id)


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    retry_kwargs={"max_retries": 3},
    **LIMITS,
)
def generate_report(report_id: int) -> str:
    return run_job(report_id)


def run_list_job(export_id: int) -> str:
    return jobs.run("list_export", export_id)


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    retry_kwargs={"max_retries": 3},
    **LIMITS,
)
def generate_list_export(export_id: int) -> str:
    return run_list_job(export_id)
