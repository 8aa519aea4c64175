"""Periodic housekeeping of background jobs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from . import jobs
from .models import JobStatus
from .queue import QUEUE_UNAVAILABLE_NOTE, enqueue

log = logging.getLogger(__name__)


@shared_task(acks_late=True, ignore_result=True)
def requeue_stale_jobs(
    older_than_s: int | None = None, running_for_s: int | None = None, unsent_only: bool = False
) -> dict[str, int]:
    """Send again every job still pending after ``older_than_s`` seconds (default setting
    CELERY_REQUEUE_STALE_AFTER_S), e.g. because the broker was down when it was started, and
    every running job whose heartbeat stopped for JOB_STALE_HEARTBEAT_S (its worker died: the
    broker would only redeliver it after the one-hour visibility timeout), and every job still
    running ``running_for_s`` after it started without any heartbeat
    (CELERY_REQUEUE_RUNNING_AFTER_S,
    past the visibility timeout: its message was lost with the broker's data). A job sent again
    too often is failed for good by core.jobs (poison message).

    A job whose publishing failed (the broker was down: the row carries the "queue unavailable"
    note) is sent at the first tick whatever its age; ``unsent_only`` sends only those (the
    frequent beat entry ``requeue-unsent-jobs``, so they start within seconds of the broker
    answering again, not after CELERY_REQUEUE_STALE_AFTER_S).

    Never sent again: a running row past its kind's time limit (it is failed here with the
    timeout reason: the build would only run out of time again) and a row whose attempts are
    used up (failed here as a poison message, as ``core.jobs.run`` would on receipt).

    Idempotent: the job tasks skip finished rows and replace (never add) results; a row sent
    again gets a fresh ``queued_at`` so the next beat tick leaves it alone for another period.
    Stops at the first broker error (the rows stay pending for the next tick).
    """
    _fail_late()
    if unsent_only:
        _fail_used_up(UNSENT)
        return _send_again(lambda kind: kind.rows().filter(UNSENT))
    age = settings.CELERY_REQUEUE_STALE_AFTER_S if older_than_s is None else older_than_s
    cutoff = timezone.now() - timedelta(seconds=age)
    running = settings.CELERY_REQUEUE_RUNNING_AFTER_S if running_for_s is None else running_for_s
    stuck = timezone.now() - timedelta(seconds=running)
    silent = timezone.now() - timedelta(seconds=settings.JOB_STALE_HEARTBEAT_S)
    due = (
        Q(status=JobStatus.PENDING, queued_at__lte=cutoff)
        | UNSENT  # never sent: no reason to wait
        | Q(status=JobStatus.RUNNING, heartbeat_at__lt=silent)
        | Q(status=JobStatus.RUNNING, heartbeat_at__isnull=True, started_at__lte=stuck)
    )
    _fail_used_up(due)
    return _send_again(lambda kind: kind.rows().filter(due))


# Rows whose publishing failed for want of a broker (core.queue.mark_unqueued notes them)
UNSENT = Q(status=JobStatus.PENDING, error=QUEUE_UNAVAILABLE_NOTE)


def _fail_late() -> None:
    """Fail (never re-send) the running rows past their kind's time limit."""
    now = timezone.now()
    for kind in jobs.kinds():
        limit = kind.time_limit()
        if limit:
            late = Q(status=JobStatus.RUNNING, started_at__lt=now - timedelta(seconds=limit))
            count = kind.rows().filter(late).update(
                status=JobStatus.FAILED, finished_at=now, heartbeat_at=None,
                error=jobs.bilingual(jobs.timeout_message(limit)),
            )  # fmt: skip
            if count:
                log.warning("%s %s job(s) past their time limit failed", count, kind.name)


def _fail_used_up(due: Q) -> None:
    """Fail (never re-send) the rows due again whose attempts are used up."""
    now = timezone.now()
    for kind in jobs.kinds():
        manager = kind.model._default_manager
        used_up = kind.rows().filter(due, attempts__gte=kind.max_attempts)
        for pk, attempts in used_up.values_list("pk", "attempts"):
            manager.filter(due, pk=pk).update(
                status=JobStatus.FAILED, finished_at=now, heartbeat_at=None,
                error=jobs.bilingual(jobs.poison_message(attempts)),
            )  # fmt: skip


def _send_again(rows: Callable[[jobs.JobKind], QuerySet[Any]]) -> dict[str, int]:
    """Send each kind's `rows` again, oldest first; stop at the first broker error."""
    sent: dict[str, int] = {}
    for kind in jobs.kinds():
        model, task = kind.model, kind.task()
        count = 0
        for row in rows(kind).order_by("pk").iterator():
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
