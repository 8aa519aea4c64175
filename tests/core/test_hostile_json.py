"""Deeply nested JSON is refused early and clearly, wherever it comes in."""

from __future__ import annotations

import resource

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.services import benchmark_ingest
from core.models import JobStatus
from tests.benchmarks.conftest import run_a, vendor_a  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db

DEPTH = 100_000
EVIL_LOG = b'{"start":{},"intervals":[' + b"[" * DEPTH + b"]" * DEPTH + b"]}"


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_a_nested_log_upload_fails_with_the_depth_message_and_the_file_is_kept(
    run_a,  # noqa: F811
    analyst_a,
    django_capture_on_commit_callbacks,  # noqa: F811
):
    before = _peak_mb()
    with django_capture_on_commit_callbacks(execute=True):
        outcome = benchmark_ingest(
            team=run_a.team,
            user=analyst_a,
            test_run=run_a,
            upload=SimpleUploadedFile("evil.json", EVIL_LOG),
        )
    log = outcome.created[0]
    log.refresh_from_db()
    assert log.status == JobStatus.FAILED
    assert log.error_code == "json_too_deep"
    assert "64" in log.error_en and "嵌套" in log.error_zh
    assert log.file.open("rb").read() == EVIL_LOG
    assert _peak_mb() - before < 100


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_nested_api_body_is_a_400_in_the_users_language(api_as, analyst_a, language):
    body = '{"name_en": ' + "[" * DEPTH + "]" * DEPTH + "}"
    response = api_as(analyst_a).post(
        "/api/v1/vendors/",
        body,
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert ("嵌套" in detail) if language.startswith("zh") else ("nested" in detail)


def test_a_nul_character_in_any_string_is_a_400_not_a_database_error(api_as, analyst_a):
    body = '{"label": "B23", "terms": {"gpu": "\\u0000A100", "nodes": 2}}'
    response = api_as(analyst_a).post("/api/v1/quotes/", body, content_type="application/json")
    assert response.status_code == 400
    assert "null character" in response.json()["terms"][0]
