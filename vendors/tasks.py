from celery import shared_task

from .services import vendors_refresh_all


@shared_task(acks_late=True)
def refresh_all_findings() -> int:
    return vendors_refresh_all()


@shared_task
def ping(value: str) -> str:
    """Round-trip check used by the worker test and health checks."""
    return f"pong:{value}"
