"""Background work of the contracts app: thin, idempotent, one job run each."""

from __future__ import annotations

from celery import shared_task

from core import jobs


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def read_delivery_upload(upload_id: int) -> str:
    return jobs.run("delivery_read", upload_id)


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def evaluate_delivery(evaluation_id: int) -> str:
    return jobs.run("delivery_evaluate", evaluation_id)


@shared_task(acks_late=True, retry_backoff=True, max_retries=3)
def pull_prometheus(source_id: int) -> str:
    return jobs.run("prometheus_pull", source_id)


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=3)
def build_claim_pack(pack_id: int) -> str:
    return jobs.run("claim_pack", pack_id)


@shared_task
def pull_all_prometheus() -> int:
    """Beat: send every enabled source of a signed contract to its pull job."""
    from .services import prometheus_pull_due

    return prometheus_pull_due()


@shared_task
def warn_claim_deadlines() -> int:
    """Beat: mail the team before an episode's claim window closes."""
    from .claims import claim_deadline_warnings_send

    return claim_deadline_warnings_send()
