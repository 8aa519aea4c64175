"""Integrity, provenance, re-use and trust level of uploaded logs; the upload form's quote field
and duplicates that never move the user into another vendor's run."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks import services
from benchmarks.models import BenchmarkLog, TestRun
from benchmarks.services import benchmark_ingest
from quotes.testing import make_quote
from vendors.models import Vendor

from .conftest import corpus, upload

pytestmark = pytest.mark.django_db

P4 = "iperf3-json/local_3.12_tcp_P4.json"


def _ingest(run, user, f, capture, **kw):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        return benchmark_ingest(team=run.team, user=user, test_run=run, upload=f, **kw)


def _doctored_p4() -> bytes:
    doc = json.loads(corpus(P4).read_bytes())

    def scale(node):  # type: ignore[no-untyped-def]
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "bits_per_second":
                    node[key] = value * 8
                else:
                    scale(value)
        elif isinstance(node, list):
            for item in node:
                scale(item)

    scale(doc)
    return json.dumps(doc, indent=2).encode()


def test_original_log_is_consistent_and_its_doctored_copy_inconsistent_in_the_api(
    run_a, analyst_a, api_as, django_capture_on_commit_callbacks
):
    _ingest(run_a, analyst_a, upload(P4), django_capture_on_commit_callbacks)
    doctored = SimpleUploadedFile("p4_x8.json", _doctored_p4())
    _ingest(run_a, analyst_a, doctored, django_capture_on_commit_callbacks)
    body = api_as(analyst_a).get(f"/api/v1/benchmarks/?test_run={run_a.pk}").json()
    rows = {row["original_name"]: row for row in body.get("results", body)}
    assert rows["local_3.12_tcp_P4.json"]["integrity"]["status"] == "consistent"
    bad = rows["p4_x8.json"]["integrity"]
    assert bad["status"] == "inconsistent"
    assert "integrity.iperf3_interval_rate" in {f["code"] for f in bad["findings"]}
    # the doctored file is the same test (same cookie) in the same run: not "re-used"
    assert bad["reused"] == []
    provenance = rows["local_3.12_tcp_P4.json"]["provenance"]
    assert provenance["version"] == "iperf 3.12"
    assert provenance["hosts"] == ["127.0.0.1"]
    assert provenance["start_time"].startswith("2026-12-02T15:40:01")
    assert (provenance["uploaded_by"], provenance["role"]) == (analyst_a.username, "analyst")
    assert rows["local_3.12_tcp_P4.json"]["trust_level"] == "supplied"


def test_the_same_test_for_another_vendor_of_the_team_is_flagged_reused(
    team_a, run_a, analyst_a, django_capture_on_commit_callbacks
):
    other = Vendor.objects.create(team=team_a, name_en="Other vendor")
    run_other = services.test_run_create(
        team=team_a, user=analyst_a, vendor=other, name="other run"
    )
    _ingest(run_a, analyst_a, upload(P4), django_capture_on_commit_callbacks)
    # re-saved without indentation: another file (another SHA-256), the same test
    resaved = json.dumps(json.loads(corpus(P4).read_bytes())).encode()
    _ingest(run_other, analyst_a, SimpleUploadedFile("p4.json", resaved),
            django_capture_on_commit_callbacks)  # fmt: skip
    log = BenchmarkLog.objects.get(test_run=run_other)
    first = BenchmarkLog.objects.get(test_run=run_a)
    assert log.integrity["reused"] == [first.pk]
    reused = [f for f in log.integrity["findings"] if f["code"] == "reused"]
    assert len(reused) == 1 and "run A" in reused[0]["en"] and "Vendor of A" in reused[0]["en"]


def test_the_same_test_in_another_team_is_never_compared(
    run_a, run_b, analyst_a, analyst_b, django_capture_on_commit_callbacks
):
    _ingest(run_a, analyst_a, upload(P4), django_capture_on_commit_callbacks)
    _ingest(run_b, analyst_b, upload(P4), django_capture_on_commit_callbacks)
    log_b = BenchmarkLog.objects.get(test_run=run_b)
    assert log_b.fingerprint == BenchmarkLog.objects.get(test_run=run_a).fingerprint
    assert log_b.integrity["reused"] == []
    assert not [f for f in log_b.integrity["findings"] if f["code"] == "reused"]


def test_a_log_marked_as_run_by_the_team_is_witnessed_and_shown_so(
    run_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    # A log recorded between two network namespaces (a loopback log would be set aside and give
    # the run no figure to badge).
    recorded = corpus(P4).parents[2] / "recorded" / "simultaneous_pair1.json"
    f = SimpleUploadedFile(recorded.name, recorded.read_bytes())
    _ingest(run_a, analyst_a, f, django_capture_on_commit_callbacks, witnessed=True)
    log = BenchmarkLog.objects.get(test_run=run_a)
    assert log.trust_level == "witnessed"
    page = client_as(analyst_a).get(reverse("benchmarks:log", args=[log.pk]))
    html = page.content.decode()
    assert 'data-trust="witnessed"' in html and "iperf 3.12" in html
    run_page = client_as(analyst_a).get(reverse("benchmarks:run", args=[run_a.pk]))
    assert 'id="run-trust" data-trust="witnessed"' in run_page.content.decode()


def test_upload_form_attaches_a_new_run_to_the_chosen_quote(
    team_a, vendor_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    quote = make_quote(team_a, analyst_a, vendor_a)
    client = client_as(analyst_a)
    quote_page = client.get(reverse("quotes:detail", args=[quote.pk])).content.decode()
    assert f"/benchmarks/upload/?quote={quote.pk}&amp;vendor={vendor_a.pk}" in quote_page
    form_page = client.get(reverse("benchmarks:upload") + f"?quote={quote.pk}")
    assert f'<option value="{quote.pk}" selected>' in form_page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("benchmarks:upload"),
            {"files": upload(P4), "quote": quote.pk, "name": "evidence run"},
        )
    assert response.status_code == 302
    run = TestRun.objects.get(name="evidence run")
    assert (run.quote_id, run.vendor_id) == (quote.pk, vendor_a.pk)


def test_upload_form_refuses_another_teams_quote(team_b, analyst_a, analyst_b, client_as):
    vendor_b = Vendor.objects.create(team=team_b, name_en="B's vendor")
    quote_b = make_quote(team_b, analyst_b, vendor_b)
    response = client_as(analyst_a).post(
        reverse("benchmarks:upload"), {"files": upload(P4), "quote": quote_b.pk, "name": "x"}
    )
    assert response.status_code == 400
    assert not TestRun.objects.filter(name="x").exists()


def test_a_duplicate_upload_names_the_run_holding_it_and_stays_on_the_form(
    team_a, run_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    _ingest(run_a, analyst_a, upload(P4), django_capture_on_commit_callbacks)
    other = Vendor.objects.create(team=team_a, name_en="Other vendor")
    client = client_as(analyst_a)
    response = client.post(
        reverse("benchmarks:upload"),
        {"files": upload(P4), "vendor": other.pk, "name": "other vendor's run"},
        follow=True,
    )
    assert response.redirect_chain == []  # never moved into run A (another vendor's run)
    html = response.content.decode()
    assert "run A" in html and "Vendor of A" in html
    assert not TestRun.objects.filter(name="other vendor's run").exists()
    assert BenchmarkLog.objects.filter(team=team_a).count() == 1


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.json", b""),
        ("binary.bin", bytes(range(256)) * 64),
        ("token.json", b'{"title": "GPK-' + b"9" * 200_000 + b'"}'),
    ],
)
def test_bad_uploads_get_a_message_not_a_500(
    run_a, analyst_a, client_as, name, content, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_as(analyst_a).post(
            reverse("benchmarks:upload"),
            {"files": SimpleUploadedFile(name, content), "test_run": run_a.pk},
            follow=True,
        )
    assert response.status_code in (200, 400)
    log = BenchmarkLog.objects.filter(test_run=run_a, original_name=name).first()
    if log is not None:
        assert log.integrity["status"] == "unchecked"
        page = client_as(analyst_a).get(reverse("benchmarks:log", args=[log.pk]))
        assert page.status_code == 200
