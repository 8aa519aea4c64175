"""Test helper for the 202-then-file downloads: ask, run the export jobs the request left
pending (in tests, as in production, the request only stores the job: on_commit callbacks do not
run inside a test's transaction), ask again."""

from __future__ import annotations

from typing import Any

from core import jobs
from core.models import JobStatus
from reports.models import ListExport, Report


def run_pending_exports() -> int:
    """Run every pending report and list export in this process; how many ran."""
    count = 0
    for name, model in (("report", Report), ("list_export", ListExport)):
        for pk in model.objects.filter(status=JobStatus.PENDING).values_list("pk", flat=True):
            jobs.run(name, pk)
            count += 1
    return count


def download(client: Any, url: str, data: Any = None, **extra: Any) -> Any:
    """GET `url`: a 202 first (the job is stored), the file once the job has run."""
    first = client.get(url, data, **extra)
    if first.status_code != 202:
        return first
    run_pending_exports()
    return client.get(url, data, **extra)


def body(response: Any) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return bytes(response.content)
