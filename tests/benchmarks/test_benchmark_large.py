"""Large evidence: API uploads beyond the in-memory limit, long runs on the pages."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkLog
from core.models import JobStatus

from .conftest import long_iperf3

pytestmark = pytest.mark.django_db


def test_an_api_upload_over_the_memory_limit_is_stored_and_parsed(
    api_as, analyst_a, run_a, settings, django_capture_on_commit_callbacks
):
    """Files over FILE_UPLOAD_MAX_MEMORY_SIZE are spooled to a temporary file, which the view
    must not deep-copy (it answered 500: cannot pickle '_io.BufferedRandom')."""
    body = long_iperf3(2500)
    assert len(body) > 3 * 1024 * 1024 > settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    api = api_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post(
            "/api/v1/benchmarks/",
            {"test_run": run_a.pk, "files": [SimpleUploadedFile("long.json", body)]},
        )
    assert resp.status_code == 201, resp.content[:500]
    log = BenchmarkLog.objects.get(pk=resp.json()["created"][0]["id"])
    assert log.size_bytes == len(body) and log.status == JobStatus.DONE
    assert log.tool == "iperf3" and len(log.result["interval_gbps"]) == 2500
    with log.file.open("rb") as stored:
        assert stored.read() == body
