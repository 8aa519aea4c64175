"""Celery task of the reports app: receives a report id, calls the service, records the job."""

from __future__ import annotations

import logging
import threading

from celery import shared_task
from celery.signals import worker_process_init
from django.conf import settings
from django.core.exceptions import ValidationError

from core.models import JobStatus

from .models import Report
from .services import report_generate

log = logging.getLogger(__name__)


@worker_process_init.connect
def _warm_chart_renderer(**_kwargs) -> None:  # type: ignore[no-untyped-def]
    """Each worker process starts the chart renderer in the background, once, at its start."""
    if getattr(settings, "REPORTS_WARM_CHART_RENDERER", False):
        from .charts import warm

        threading.Thread(target=warm, name="warm-chart-renderer", daemon=True).start()


def run_job(report_id: int) -> str:
    """Job bookkeeping around `report_generate`; a finished report is left as it is."""
    report = Report.objects.filter(pk=report_id).first()
    if report is None:
        return "missing"
    if report.status == JobStatus.DONE and report.sha256:
        return "done"
    Report.objects.filter(pk=report_id).update(attempts=report.attempts + 1)
    report.job_mark(status=JobStatus.RUNNING, progress=5)
    try:
        report_generate(report_id=report_id, progress=report.job_progress)
    except ValidationError as exc:
        report.job_mark(status=JobStatus.FAILED, error="; ".join(exc.messages))
        return "failed"
    except Exception as exc:
        log.exception("report %s failed", report_id)
        report.job_mark(status=JobStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    report.job_mark(status=JobStatus.DONE, progress=100)
    return "done"


@shared_task(
    acks_late=True,
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    retry_kwargs={"max_retries": 3},
)
def generate_report(report_id: int) -> str:
    return run_job(report_id)
