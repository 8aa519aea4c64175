"""One job system for every kind of background work (parse, rank, report, close an RFQ, …).

Apps *register* a job kind: the model whose row carries the job (a ``core.models.Job``), the
function doing the work and the Celery task that carries it. Everything else lives here, once:

- **submit**: ``submit(kind, row)`` publishes through ``core.queue.enqueue`` (short retry policy;
  when the broker is down the row stays pending with the "queue unavailable" note and
  ``requeue_stale_jobs`` sends it later);
- **claim with attempts**: ``run(kind, row_id)`` counts the attempt on the row *before* the work
  starts, inside a row lock. A message whose work killed its worker (out of memory, ``kill -9``)
  comes back through ``acks_late`` or the re-queue; after ``max_attempts`` claims the job is
  failed for good with a clear message instead of being run again (a poison message no longer
  crash-loops the workers);
- **heartbeats**: while the work runs, a daemon thread stamps ``heartbeat_at`` every
  ``JOB_HEARTBEAT_S`` seconds, and every progress report stamps it too. A running job whose
  heartbeat is older than ``JOB_STALE_HEARTBEAT_S`` has lost its worker: ``requeue_stale_jobs``
  sends it again within a minute, instead of after the broker's one-hour visibility timeout;
- **time limit**: a kind with ``time_limit_s`` has a deadline per attempt. The work's progress
  reports check it (``JobTimedOut``), the Celery task carries the same soft time limit
  (``SoftTimeLimitExceeded``), and ``requeue_stale_jobs`` fails a running row past it instead of
  sending it again: a build that ran out of time ends ``failed`` with a bilingual reason, once;
- **outcome**: a ``ValidationError`` fails the job with its messages; any other exception fails
  it with the exception's name and is re-raised (Celery's retry policy of the task applies).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import (
    DataError,
    IntegrityError,
    close_old_connections,
    connection,
    models,
    transaction,
)
from django.utils import timezone

from domain.messages import Message

from .models import JobStatus
from .queue import enqueue

log = logging.getLogger(__name__)

Progress = Callable[[int], None]


RECORDS_CHANGED = Message(
    "job_records_changed",
    "A record this job needs was deleted or changed while it waited (for example a quote of the "
    "comparison was removed). Nothing was saved; start it again.",
    "此任务所需的记录在等待期间被删除或修改（例如对比中的某个报价已被删除）。未保存任何结果，请重新开始。",
)


def poison_message(attempts: int) -> Message:
    return Message(
        "job.poison",
        f"This job stopped its worker {attempts} times (out of memory or killed) and was not "
        "tried again. Check the input, then start it again.",
        f"该任务已导致后台进程中断 {attempts} 次（内存耗尽或被终止），不再重试。"
        "请检查输入后重新提交。",
    )


def timeout_message(seconds: int) -> Message:
    return Message(
        "job.timeout",
        f"This job ran past its time limit of {seconds} s and was stopped; it is not tried again "
        "on its own. Narrow it down (fewer rows) or start it again later.",
        f"该任务超过了 {seconds} 秒的时限，已被停止，不会自动重试。"
        "请缩小范围（减少行数）或稍后重新提交。",
    )


def bilingual(message: Message) -> str:
    """How a job row stores a message: English / Chinese (pages show the reader's half)."""
    return f"{message.en} / {message.zh}"


class JobTimedOut(Exception):
    """Raised by a progress report once the attempt has run past its kind's time limit."""


@dataclass(frozen=True)
class JobKind:
    """A registered kind of job."""

    name: str
    model: type[models.Model]
    #: ``work(row_id, progress) -> outcome``; the runner marks DONE unless the outcome is in
    #: ``keep_status`` (the work set the final status itself, e.g. a parse that failed cleanly).
    work: Callable[[int, Progress], str]
    #: The Celery task that carries this kind (its only argument is the row id).
    task: Callable[[], Any]
    max_attempts: int = 3
    #: Rows ``requeue_stale_jobs`` may send again (default: all rows of the model).
    requeueable: Callable[[], models.QuerySet[Any]] | None = None
    #: A row for which this is true is not run again (its result stands).
    finished: Callable[[Any], bool] = field(default=lambda row: row.status == JobStatus.DONE)
    keep_status: frozenset[str] = frozenset()
    #: Seconds one attempt may run (``None``: no limit); a setting's name is read at run time.
    time_limit_s: int | str | None = None

    def time_limit(self) -> int | None:
        if isinstance(self.time_limit_s, str):
            return int(getattr(settings, self.time_limit_s))
        return self.time_limit_s

    def rows(self) -> models.QuerySet[Any]:
        if self.requeueable is not None:
            return self.requeueable()
        return self.model._default_manager.all()


_REGISTRY: dict[str, JobKind] = {}
_LOADED = threading.Event()


def register(kind: JobKind) -> JobKind:
    _REGISTRY[kind.name] = kind
    return kind


def kinds() -> list[JobKind]:
    _load_registrations()
    return list(_REGISTRY.values())


def get(name: str) -> JobKind:
    _load_registrations()
    return _REGISTRY[name]


def _load_registrations() -> None:
    """Job kinds register when their app's ``jobs`` module is imported."""
    if _LOADED.is_set():
        return
    import importlib

    from django.apps import apps
    from django.utils.module_loading import module_has_submodule

    for config in apps.get_app_configs():
        if config.name != "core" and module_has_submodule(config.module, "jobs"):
            importlib.import_module(f"{config.name}.jobs")
    _LOADED.set()


def submit(name: str, row: models.Model, *, fresh: bool = False) -> bool:
    """Send the row's job to a worker; False (row kept pending, noted) when the queue is down.

    ``fresh``: a new request by a user for a row that ran before: its attempts start again.
    """
    kind = get(name)
    if fresh:
        kind.model._default_manager.filter(pk=row.pk).update(attempts=0)
    return enqueue(kind.task(), row.pk, job_row=row)


def run(name: str, row_id: int) -> str:
    """Claim, run with heartbeats, and record the outcome of one job (idempotent)."""
    kind = get(name)
    manager = kind.model._default_manager
    with transaction.atomic():
        row = manager.select_for_update().filter(pk=row_id).first()
        if row is None:
            return "missing"
        if kind.finished(row):
            return "skipped"
        if row.attempts >= kind.max_attempts:
            message = poison_message(row.attempts)
            log.error("job %s %s refused after %s attempts", name, row_id, row.attempts)
            manager.filter(pk=row_id).update(
                status=JobStatus.FAILED,
                error=bilingual(message),
                finished_at=timezone.now(),
                heartbeat_at=None,
            )
            return "poisoned"
        now = timezone.now()
        manager.filter(pk=row_id).update(
            attempts=models.F("attempts") + 1,
            status=JobStatus.RUNNING,
            error="",
            started_at=now,
            heartbeat_at=now,
        )
    row.refresh_from_db()
    limit = kind.time_limit()
    deadline = now.timestamp() + limit if limit else None

    def progress(value: int) -> None:
        if deadline is not None and timezone.now().timestamp() > deadline:
            raise JobTimedOut
        row.job_progress(value)

    with Heartbeat(kind.model, row_id):
        try:
            outcome = kind.work(row_id, progress)
        except (JobTimedOut, SoftTimeLimitExceeded):
            # Not re-raised: Celery must not retry it, and the re-sender leaves failed rows alone.
            log.error("job %s %s stopped at its time limit (%s s)", name, row_id, limit)
            row.job_mark(status=JobStatus.FAILED, error=bilingual(timeout_message(limit or 0)))
            return "timed out"
        except ValidationError as exc:
            row.job_mark(status=JobStatus.FAILED, error="; ".join(exc.messages))
            return "failed"
        except (IntegrityError, DataError):
            # A row the work needed was deleted or changed meanwhile (a quote removed before a
            # what-if was saved as a run): the database's own text names tables and keys, so
            # the row says what happened in words; running again cannot succeed, so no retry.
            log.exception("job %s %s failed on the database", name, row_id)
            message = RECORDS_CHANGED
            row.job_mark(status=JobStatus.FAILED, error=f"{message.en} / {message.zh}")
            return "failed"
        except Exception as exc:
            log.exception("job %s %s failed", name, row_id)
            row.job_mark(status=JobStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
            raise
    if outcome not in kind.keep_status:
        row.job_mark(status=JobStatus.DONE, progress=100)
    else:  # the work decided; a row it left running (e.g. not due yet) is pending again
        manager.filter(pk=row_id, status=JobStatus.RUNNING).update(
            status=JobStatus.PENDING, heartbeat_at=None
        )
    return outcome


class Heartbeat:
    """Stamps ``heartbeat_at`` on the job row every few seconds while the work runs.

    The thread has its own database connection and closes it when it stops; an eager (test)
    run inside a transaction would not see its stamps, so none is started there.
    """

    def __init__(self, model: type[models.Model], row_id: int) -> None:
        self._model = model
        self._row_id = row_id
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        if connection.in_atomic_block:
            return self
        self._thread = threading.Thread(target=self._beat, name="job-heartbeat", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _beat(self) -> None:
        interval = float(getattr(settings, "JOB_HEARTBEAT_S", 5))
        try:
            while not self._stop.wait(interval):
                self._model._default_manager.filter(
                    pk=self._row_id, status=JobStatus.RUNNING
                ).update(heartbeat_at=timezone.now())
        except Exception:  # noqa: BLE001 - a lost heartbeat only makes the job look stale
            log.warning("heartbeat of %s %s stopped", self._model.__name__, self._row_id)
        finally:
            close_old_connections()
            connection.close()
