"""Celery task of the reports app: receives a report id, calls the service, records the job."""

from __future__ import annotations

import logging
import threading

from celery import shared_task
from celery.signals import worker_process_init
from django.conf import settings

from core import jobs

log = logging.getLogger(__name__)


@worker_process_init.connect
def _warm_chart_renderer(**_kwargs) -> None:  # type: ignore[no-untyped-def]
    """Each worker process starts the chart renderer in the background, once, at its start."""
    if getattr(settings, "REPORTS_WARM_CHART_RENDERER", False):
        from .charts import warm

        threading.Thread(target=warm, name="warm-chart-renderer", daemon=True).start()


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
