"""Celery task of the reports app: receives a report id, calls the service, records the job."""

from __future__ import annotations

import logging

from celery import shared_task

from core import jobs

log = logging.getLogger(__name__)


def run_job(report_id: int) -> str:
    """Generate a report in this process with the job bookkeeping (core.jobs); a finished
    report is left as it is."""
    return jobs.run("report", report_id)


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    retry_kwargs={"max_retries": 3},
)
def generate_report(report_id: int) -> str:
    return run_job(report_id)
