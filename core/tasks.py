"""Periodic housekeeping of background jobs."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from . import jobs
from .models import JobStatus
from .queue import enqueue

log = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def requeue_stale_jobs(
    older_than_s: int | None = None, running_for_s: int | None = None
) -> dict[str, int]:
    """Send again every job still pending after ``older_than_s`` seconds (default setting
    CELERY_REQUEUE_STALE_AFTER_S), e.g. because the broker was down when it was started, and
    every running job whose heartbeat stopped for JOB_STALE_HEARTBEAT_S (its worker died: the
    broker would only redeliver it after the one-hour visibility timeout), and every job still
    running ``running_for_s`` after it started without any heartbeat
    (CELERY_REQUEUE_RUNNING_AFTER_S,
    past the visibility timeout: its message was lost with the broker's data). A job sent again
    too often is failed for good by core.jobs (poison message).

    Idempotent: the job tasks skip finished rows and replace (never add) results; a row sent
    again gets a fresh ``queued_at`` so the next beat tick leaves it alone for another period.
    Stops at the first broker error (the rows stay pending for the next tick).
    """
    age = settings.CELERY_REQUEUE_STALE_AFTER_S if older_than_s is None else older_than_s
    cutoff = timezone.now() - timedelta(seconds=age)
    running = settings.CELERY_REQUEUE_RUNNING_AFTER_S if running_for_s is None else running_for_s
    stuck = timezone.now() - timedelta(seconds=running)
    sent: dict[str, int] = {}
    silent = timezone.now() - timedelta(seconds=settings.JOB_STALE_HEARTBEAT_S)
    for kind in jobs.kinds():
        model, task = kind.model, kind.task()
        count = 0
        stale = (
            kind.rows()
            .filter(
                Q(status=JobStatus.PENDING, queued_at__lte=cutoff)
                | Q(status=JobStatus.RUNNING, heartbeat_at__lt=silent)
                | Q(status=JobStatus.RUNNING, heartbeat_at__isnull=True, started_at__lte=stuck)
            )
            .order_by("pk")
        )
        for row in stale.iterator():
            if not enqueue(task, row.pk, job_row=row):
                log.warning("requeue stopped: queue still unavailable")
                sent[model._meta.label] = count
                return sent
            now = timezone.now()  # the next tick leaves it alone for another period
            model._default_manager.filter(pk=row.pk, status=JobStatus.PENDING).update(queued_at=now)
            model._default_manager.filter(pk=row.pk, status=JobStatus.RUNNING).update(
                started_at=now, heartbeat_at=now
            )
            count += 1
        sent[model._meta.label] = count
    if any(sent.values()):
        log.info("requeued stale jobs: %s", sent)
    return sent
