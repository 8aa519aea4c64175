"""The traffic-samples API: `/api/v1/serving-workloads/<id>/traffic/` and
`/api/v1/mixed-plans/<id>/traffic/` (GET the uploads, POST a month, DELETE to stop using it)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from serving.models import TrafficUpload
from serving.services import TRAFFIC_MAX_BYTES

from .conftest import GOOD_MONTH, month_csv
from .test_serving_traffic_pages import serve_bill, snapshot, stored_files

pytestmark = pytest.mark.django_db

PREFIX = {"workload": "/api/v1/serving-workloads", "plan": "/api/v1/mixed-plans"}
TARGETS = ["workload", "plan"]


def url(setup, target: str) -> str:  # type: ignore[no-untyped-def]
    return f"{PREFIX[target]}/{setup[target].pk}/traffic/"


def upload(api, address: str, content: bytes = GOOD_MONTH, name: str = "november.csv", **extra):  # type: ignore[no-untyped-def]
    file = SimpleUploadedFile(name, content, content_type="text/csv")
    return api.post(address, {"file": file}, format="multipart", **extra)


@pytest.mark.parametrize("target", TARGETS)
def test_a_good_month_is_read_listed_and_used(target, serving_setup, analyst_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    r = upload(api, url(serving_setup, target))
    assert r.status_code == 201, r.content
    body = r.json()
    assert (body["status"], body["in_use"], body["sample_count"]) == ("ok", True, 8_640)
    assert body["p95_mbps"] == 500.0 and body["peak_mbps"] == 800.0
    assert body["sha256"] == hashlib.sha256(GOOD_MONTH).hexdigest() and body["error"] is None
    assert "samples_mbps" not in body  # summaries only
    row = TrafficUpload.objects.get(pk=body["id"])
    assert getattr(row, f"{target}_id") == serving_setup[target].pk
    assert Path(row.file.path).read_bytes() == GOOD_MONTH and row.uploaded_by == analyst_a
    listed = api.get(url(serving_setup, target)).json()
    assert [u["id"] for u in listed] == [row.pk] and listed[0]["in_use"] is True


def test_the_workloads_bill_follows_the_uploaded_samples(serving_setup, team_a, analyst_a, api_as):  # type: ignore[no-untyped-def]
    workload, serve = serving_setup["workload"], serving_setup["serve"]
    modelled = serve_bill(team_a, workload, serve)
    assert upload(api_as(analyst_a), url(serving_setup, "workload")).status_code == 201
    measured = serve_bill(team_a, workload, serve)
    p95 = next(b for b in measured["bills"] if b["kind"] == "p95")
    assert p95["bill_cny_month"] == pytest.approx(500 * 25)  # 95th percentile × 25 CNY
    assert measured["bandwidth_cny_month"] != modelled["bandwidth_cny_month"]


@pytest.mark.parametrize("target", TARGETS)
def test_an_unreadable_month_is_a_400_with_the_reason_and_the_raw_file_kept(  # type: ignore[no-untyped-def]
    target, serving_setup, analyst_a, api_as
):
    api = api_as(analyst_a)
    good = upload(api, url(serving_setup, target)).json()
    bad = b"timestamp,Mbit/s\n2026-11-01 00:00,lots\n2026-11-01 00:05,many\n"
    r = upload(api, url(serving_setup, target), bad, name="bad.csv", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    body = r.json()
    assert body["file"] and body["file"][0] == body["upload"]["error"]["text"]
    assert body["upload"]["error"]["text"] == body["upload"]["error"]["zh"]  # the caller's language
    assert body["upload"]["status"] == "refused" and body["upload"]["in_use"] is False
    kept = TrafficUpload.objects.get(pk=body["upload"]["id"])
    assert Path(kept.file.path).read_bytes() == bad
    # the month read before is still the one in use
    assert TrafficUpload.objects.get(pk=good["id"]).in_use is True


@pytest.mark.parametrize(
    ("content", "field_text"),
    [
        (b"", "empty"),
        (month_csv([100.0]) + b"0" * (TRAFFIC_MAX_BYTES + 1), "MB"),
    ],
)
def test_an_empty_or_oversized_file_is_refused_and_nothing_stored(  # type: ignore[no-untyped-def]
    content, field_text, serving_setup, analyst_a, api_as
):
    before, files = snapshot(serving_setup), stored_files()
    r = upload(
        api_as(analyst_a), url(serving_setup, "workload"), content, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert r.status_code == 400 and field_text in " ".join(r.json()["file"])
    assert snapshot(serving_setup) == before and stored_files() == files


def test_no_file_or_a_json_body_is_refused(serving_setup, analyst_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    address = url(serving_setup, "workload")
    missing = api.post(address, {}, format="multipart")
    assert missing.status_code == 400 and "file" in missing.json()
    assert api.post(address, {"file": "x"}, format="json").status_code == 415
    assert TrafficUpload.objects.count() == 0


@pytest.mark.parametrize("target", TARGETS)
def test_delete_goes_back_to_the_modelled_profile(target, serving_setup, analyst_a, api_as):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    row = upload(api, url(serving_setup, target)).json()
    assert api.delete(url(serving_setup, target)).status_code == 204
    assert not TrafficUpload.objects.filter(in_use=True).exists()
    assert TrafficUpload.objects.filter(pk=row["id"]).exists()  # the upload stays stored


@pytest.mark.parametrize("target", TARGETS)
def test_a_viewer_reads_only_and_another_team_gets_404(  # type: ignore[no-untyped-def]
    target, serving_setup, analyst_a, viewer_a, analyst_b, api_as
):
    upload(api_as(analyst_a), url(serving_setup, target))
    before, files = snapshot(serving_setup), stored_files()
    viewer = api_as(viewer_a)
    assert viewer.get(url(serving_setup, target)).status_code == 200
    assert upload(viewer, url(serving_setup, target)).status_code == 403
    assert viewer.delete(url(serving_setup, target)).status_code == 403
    other = api_as(analyst_b)
    assert other.get(url(serving_setup, target)).status_code == 404
    assert upload(other, url(serving_setup, target)).status_code == 404
    assert other.delete(url(serving_setup, target)).status_code == 404
    assert snapshot(serving_setup) == before and stored_files() == files
