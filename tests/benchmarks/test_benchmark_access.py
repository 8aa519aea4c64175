"""Pages and API: team isolation, roles, bad input never a 500, pinned query counts."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks.models import BenchmarkLog, TestRun
from benchmarks.services import benchmark_ingest

from .conftest import upload

pytestmark = pytest.mark.django_db

P4 = "iperf3-json/local_3.12_tcp_P4.json"
RECORDED = "../recorded/simultaneous_pair1.json"


@pytest.fixture
def log_b(run_b, analyst_b, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=True):
        return benchmark_ingest(
            team=run_b.team, user=analyst_b, test_run=run_b, upload=upload(P4)
        ).created[0]


def test_another_teams_runs_and_logs_are_404_on_pages(client_as, analyst_a, run_b, log_b):
    client = client_as(analyst_a)
    assert run_b.name not in client.get(reverse("benchmarks:list")).content.decode()
    for url in [
        reverse("benchmarks:run", args=[run_b.pk]),
        reverse("benchmarks:run_status", args=[run_b.pk]),
        reverse("benchmarks:log", args=[log_b.pk]),
        reverse("benchmarks:download", args=[log_b.pk]),
    ]:
        assert client.get(url).status_code == 404, url
    resp = client.post(
        reverse("benchmarks:upload"), {"test_run": run_b.pk, "files": upload(P4, "x.json")}
    )
    assert resp.status_code == 400
    assert BenchmarkLog.objects.filter(test_run=run_b).count() == 1


def test_another_teams_runs_and_logs_are_404_over_the_api(api_as, analyst_a, run_b, log_b):
    api = api_as(analyst_a)
    assert api.get("/api/v1/test-runs/").json()["count"] == 0
    assert api.get("/api/v1/benchmarks/").json()["count"] == 0
    assert api.get(f"/api/v1/test-runs/{run_b.pk}/").status_code == 404
    assert api.get(f"/api/v1/benchmarks/{log_b.pk}/").status_code == 404
    assert (
        api.patch(f"/api/v1/test-runs/{run_b.pk}/", {"name": "x"}, format="json").status_code == 404
    )
    assert api.delete(f"/api/v1/test-runs/{run_b.pk}/").status_code == 404
    resp = api.post("/api/v1/benchmarks/", {"test_run": run_b.pk, "files": [upload(P4, "y.json")]})
    assert resp.status_code == 400
    assert TestRun.objects.get(pk=run_b.pk).name == "run B"


def test_a_viewer_reads_but_cannot_upload(client_as, api_as, viewer_a, run_a):
    page = client_as(viewer_a)
    assert page.get(reverse("benchmarks:list")).status_code == 200
    assert page.get(reverse("benchmarks:upload")).status_code == 403
    assert page.post(reverse("benchmarks:upload"), {"test_run": run_a.pk}).status_code == 403
    api = api_as(viewer_a)
    assert (
        api.post("/api/v1/benchmarks/", {"test_run": run_a.pk, "files": [upload(P4)]}).status_code
        == 403
    )
    assert (
        api.patch("/api/v1/benchmark-thresholds/", {"max_cv": 0.5}, format="json").status_code
        == 403
    )


def test_page_upload_end_to_end_shows_charts_and_the_download_is_the_raw_file(
    client_as, analyst_a, vendor_a, django_capture_on_commit_callbacks
):
    client = client_as(analyst_a)
    assert client.get(reverse("benchmarks:upload")).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        resp = client.post(
            reverse("benchmarks:upload"),
            {
                "vendor": vendor_a.pk,
                "name": "new run",
                "files": [upload(P4), upload("iperf3-json/local_3.12_tcp_single.json")],
            },
        )
    assert resp.status_code == 302
    run = TestRun.objects.get(name="new run")
    page = client.get(resp["Location"]).content.decode()
    assert (
        "plotly/plotly.min.js" in page
        and "plotly-graph-div" in page
        and not re.search(r"(?:src|href)=\"(?:https?:)?//", page)
    )
    status = client.get(reverse("benchmarks:run_status", args=[run.pk])).json()
    assert status["finished"] and status["progress"] == 100
    log = run.logs.first()
    assert client.get(reverse("benchmarks:log", args=[log.pk])).status_code == 200
    raw = client.get(reverse("benchmarks:download", args=[log.pk]))
    assert b"".join(raw.streaming_content) == log.file.open("rb").read()


def test_bad_input_is_never_a_500(
    client_as, api_as, analyst_a, run_a, settings, django_capture_on_commit_callbacks
):
    client = client_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        resp = client.post(
            reverse("benchmarks:upload"),
            {"test_run": run_a.pk, "files": SimpleUploadedFile("g.bin", b"\x00\xff" * 99)},
        )
    assert resp.status_code == 302
    log = BenchmarkLog.objects.get(original_name="g.bin")
    assert log.status == "failed"
    assert client.get(reverse("benchmarks:log", args=[log.pk])).status_code == 200
    assert client.get(reverse("benchmarks:run", args=[run_a.pk])).status_code == 200
    assert client.post(reverse("benchmarks:upload"), {"name": "x"}).status_code == 400
    settings.UPLOAD_MAX_BYTES = 10
    api = api_as(analyst_a)
    resp = api.post("/api/v1/benchmarks/", {"test_run": run_a.pk, "files": [upload(P4)]})
    assert resp.status_code == 400 and resp.json()["errors"]
    assert api.post("/api/v1/benchmarks/", {"test_run": run_a.pk}).status_code == 400
    detail = api.get(f"/api/v1/benchmarks/{log.pk}/").json()
    assert detail["status"] == "failed" and detail["error_en"]


def test_api_upload_then_summary(api_as, analyst_a, vendor_a, django_capture_on_commit_callbacks):
    api = api_as(analyst_a)
    run = api.post(
        "/api/v1/test-runs/",
        {"vendor": vendor_a.pk, "name": "api run", "line_rate_gbps": "20"},
        format="json",
    )
    assert run.status_code == 201, run.json()
    run_id = run.json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        # A log recorded between two network namespaces: a loopback one gives no pair.
        resp = api.post("/api/v1/benchmarks/", {"test_run": run_id, "files": [upload(RECORDED)]})
    assert resp.status_code == 201 and len(resp.json()["created"]) == 1
    summary = api.get(f"/api/v1/test-runs/{run_id}/").json()
    assert summary["pairs"] == 1 and summary["effective_line_rate_gbps"] == 20.0
    assert api.get(f"/api/v1/test-runs/{run_id}/logs/").status_code == 200
    assert (
        api.get("/api/v1/benchmarks/", {"test_run": run_id, "status": "done"}).json()["count"] == 1
    )


def test_list_endpoints_pin_their_query_counts(
    api_as,
    client_as,
    analyst_a,
    run_a,
    django_capture_on_commit_callbacks,
    django_assert_max_num_queries,
):
    for i in range(5):
        with django_capture_on_commit_callbacks(execute=True):
            junk = SimpleUploadedFile(f"f{i}.txt", f"junk {i}".encode())
            benchmark_ingest(team=run_a.team, user=analyst_a, test_run=run_a, upload=junk)
    api = api_as(analyst_a)
    with django_assert_max_num_queries(8):
        assert api.get("/api/v1/benchmarks/").json()["count"] == 5
    with django_assert_max_num_queries(8):
        api.get("/api/v1/test-runs/")
    page = client_as(analyst_a)
    with django_assert_max_num_queries(8):
        assert page.get(reverse("benchmarks:list")).status_code == 200


def test_thresholds_are_editable_by_analysts(client_as, api_as, analyst_a):
    resp = api_as(analyst_a).patch("/api/v1/benchmark-thresholds/", {"max_cv": 0.1}, format="json")
    assert resp.status_code == 200 and resp.json()["max_cv"] == 0.1
    page = client_as(analyst_a)
    assert page.get(reverse("benchmarks:thresholds")).status_code == 200


def test_an_upload_of_known_files_only_leaves_no_empty_run(
    client_as, analyst_a, vendor_a, run_a, settings, django_capture_on_commit_callbacks
):
    """Re-uploading the same log as a new run leads to the run that already holds it."""
    client = client_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        first = client.post(
            reverse("benchmarks:upload"), {"test_run": run_a.pk, "files": upload(P4)}
        )
    assert first.status_code == 302
    runs_before = TestRun.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        again = client.post(
            reverse("benchmarks:upload"),
            {"vendor": vendor_a.pk, "name": "again", "files": upload(P4, "renamed.json")},
            follow=True,
        )
    assert TestRun.objects.count() == runs_before
    assert not TestRun.objects.filter(name="again").exists()
    assert again.redirect_chain[-1][0] == reverse("benchmarks:run", args=[run_a.pk])
    assert "already uploaded (same SHA-256)" in again.content.decode()
    settings.UPLOAD_MAX_BYTES = 10  # every file refused: the form comes back, no run is made
    refused = client.post(
        reverse("benchmarks:upload"),
        {"vendor": vendor_a.pk, "name": "too big", "files": upload(P4, "big.json")},
    )
    assert refused.status_code == 400
    assert "No file was stored" in refused.content.decode()
    assert not TestRun.objects.filter(name="too big").exists()


def test_the_run_page_shows_the_run_level_notes(
    client_as, analyst_a, run_a, django_capture_on_commit_callbacks
):
    """A log without intervals beside an iperf3 log: the page says its figure stands in."""
    client = client_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("benchmarks:upload"),
            {
                "test_run": run_a.pk,
                "files": [upload(P4), upload("ib_write_bw/dgx_spark_roce_q4_gbits.txt")],
            },
        )
    run_a.refresh_from_db()
    assert run_a.is_finished and run_a.logs.count() == 2
    page = client.get(reverse("benchmarks:run", args=[run_a.pk])).content.decode()
    assert 'id="run-notes"' in page
    notes = page[page.index('id="run-notes"') :].split("</div>", 1)[0]
    assert "1 pair(s) report no per-interval series" in notes
