"""Background work of the benchmarks app: thin, idempotent, one service call each."""

from __future__ import annotations

from celery import shared_task

from core import jobs

from . import services


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def parse_benchmark_log(log_id: int) -> str:
    """Parse one stored log (a no-op when it is already parsed) and refresh its run's summary;
    attempts, heartbeats and the poison-message rule are core.jobs'."""
    return jobs.run("parse", log_id)


@shared_task(acks_late=True, retry_backoff=True, max_retries=3)
def summarise_test_run(run_id: int) -> str:
    return services.test_run_summarise(run_id=run_id)
