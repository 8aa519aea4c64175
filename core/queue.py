"""Sending background jobs to the broker without letting a broker outage break a request.

`enqueue` publishes a task with a short retry policy (settings CELERY_TASK_PUBLISH_RETRY_POLICY
and CELERY_BROKER_CONNECTION_TIMEOUT). When the broker cannot be reached it logs, keeps the job
row pending with a bilingual note (QUEUE_UNAVAILABLE) and returns False; the caller answers
"queue unavailable, retry later" and `core.tasks.requeue_stale_jobs` sends the job again once
the broker is back. The tasks are idempotent, so a job sent twice still produces one result.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from django.conf import settings
from django.db import models
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from domain.messages import Message

from .models import JobStatus

log = logging.getLogger(__name__)

QUEUE_UNAVAILABLE = Message(
    code="queue.unavailable",
    en="Task queue unavailable, retry later. The job is saved and starts once the queue is back.",
    zh="任务队列暂不可用，请稍后重试。任务已保存，队列恢复后将自动开始。",
)
QUEUE_UNAVAILABLE_NOTE = f"{QUEUE_UNAVAILABLE.en} / {QUEUE_UNAVAILABLE.zh}"

BROKER_ERRORS: tuple[type[BaseException], ...] = (
    KombuOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
    OSError,  # includes ConnectionError and socket timeouts
)

# Attribute set on a job row instance whose enqueue failed (read by views via `was_unqueued`).
_FLAG = "_queue_unavailable"


def enqueue(task: Any, *args: Any, job_row: models.Model | None = None, **kwargs: Any) -> bool:
    """Publish ``task(*args, **kwargs)``; False (and the row noted, still pending) if the broker
    is unreachable. Results are ignored: job status lives on the row (ARCHITECTURE.md §3)."""
    options = {"ignore_result": True, "retry": True}
    options["retry_policy"] = settings.CELERY_TASK_PUBLISH_RETRY_POLICY
    if task.app.conf.task_always_eager:  # runs in-process: an OSError there is not the broker's
        task.apply_async(args=args, kwargs=kwargs, **options)
        return True
    try:
        task.apply_async(args=args, kwargs=kwargs, **options)
    except BROKER_ERRORS as exc:
        log.warning("queue unavailable, %s not sent (%s: %s)", task.name, type(exc).__name__, exc)
        if job_row is not None:
            mark_unqueued(job_row)
        return False
    if job_row is not None:
        setattr(job_row, _FLAG, False)
        if getattr(job_row, "error", "") == QUEUE_UNAVAILABLE_NOTE:
            _note(job_row, "")
    return True


def mark_unqueued(row: models.Model) -> None:
    """Keep the row pending with the "queue unavailable" note (requeue_stale_jobs sends it)."""
    _note(row, QUEUE_UNAVAILABLE_NOTE)
    setattr(row, _FLAG, True)


def _note(row: models.Model, text: str) -> None:
    """Write (or clear) the queue note on a row that is still pending; never touch a job that
    a worker already picked up."""
    manager = type(row)._default_manager
    manager.filter(pk=row.pk, status=JobStatus.PENDING).update(error=text)
    if getattr(row, "status", JobStatus.PENDING) == JobStatus.PENDING:
        row.error = text  # type: ignore[attr-defined]


def was_unqueued(*rows: models.Model) -> bool:
    """True when the enqueue of any of these row instances failed for want of a broker."""
    return any(getattr(row, _FLAG, False) for row in rows)


def unavailable_body(language: str | None = None) -> dict[str, str]:
    """The JSON error of an API answering 503 because the queue is down."""
    zh = (language or "").startswith("zh")
    return {
        "detail": QUEUE_UNAVAILABLE.zh if zh else QUEUE_UNAVAILABLE.en,
        "code": QUEUE_UNAVAILABLE.code,
        "en": QUEUE_UNAVAILABLE.en,
        "zh": QUEUE_UNAVAILABLE.zh,
    }


def unavailable_text(language: str | None = None) -> str:
    return unavailable_body(language)["detail"]


def fault_delay(point: str) -> None:
    """TEST HOOK, off by default: sleep PORTAL_FAULT_DELAY_S seconds at ``point`` when
    PORTAL_FAULT_DELAY_AT names it. The fault tests use it to kill a worker mid-job; never set
    these variables in production."""
    seconds = os.environ.get("PORTAL_FAULT_DELAY_S")
    if not seconds or os.environ.get("PORTAL_FAULT_DELAY_AT", "") != point:
        return
    log.warning("fault-test delay: sleeping %ss at %s", seconds, point)
    time.sleep(float(seconds))
