"""Challenge-bound evidence: each invited supplier's kit carries its own tokens; an upload is
kit-verified only with its own token, for this RFQ and test, run inside the RFQ's window.
Acceptance checks that cannot proceed stop and say why."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape

from benchmarks.models import BenchmarkLog
from domain.evidence.tokens import expected_parameters
from sourcing import tasks
from sourcing.choices import AwardState
from sourcing.kit import rfq_kit
from sourcing.models import Award
from sourcing.services import (
    answer_submit,
    answer_upload_evidence,
    award_acceptance_check,
    award_acceptance_upload,
    award_decide,
    award_propose,
)
from sourcing.tasks import close_due_rfqs
from sourcing.testing import answer_terms, demo_log, pass_deadline

pytestmark = pytest.mark.django_db

P4 = Path(__file__).resolve().parents[1] / "domain" / "data" / "corpus" / "iperf3-json"
TOKEN = re.compile(r"GPK-\d+-\d+-iperf3-[0-9a-f]{16}")


def _kit_log(token: str | None, *, start: float | None = None, name: str = "pair1.json"):  # type: ignore[no-untyped-def]
    """The corpus -P 4 log as the kit's command would write it: with --title / --extra-data and
    the block size, seconds and port the token derives (the RFQ fixture: 60 s per test)."""
    doc = json.loads((P4 / "local_3.12_tcp_P4.json").read_bytes())
    doc["start"]["timestamp"]["timesecs"] = int(start if start is not None else time.time())
    if token is not None:
        doc["title"] = doc["extra_data"] = token
        p = expected_parameters(token, duration_s=60)
        doc["start"]["test_start"].update(blksize=p.blksize, duration=p.seconds)
        for stream in doc["start"]["connected"]:
            stream["remote_port"] = p.port
    return SimpleUploadedFile(name, json.dumps(doc, indent=2).encode())


def _token_on_page(client, rfq) -> str:  # type: ignore[no-untyped-def]
    page = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
    found = TOKEN.search(page)
    assert found, "the supplier's kit shows no iperf3 token"
    return found.group(0)


def _upload(client, answer, f, capture):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        return client.post(f"/sourcing/supplier/answers/{answer.pk}/logs/", {"file": f})


def test_a_supplier_uploads_its_kit_log_with_its_token_and_it_is_kit_verified(
    rfq, suppliers, client_as, api_as, analyst_a, django_capture_on_commit_callbacks
):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    other = _token_on_page(client_as(suppliers[1].user), rfq)
    client = client_as(suppliers[0].user)  # the same test client, now as the first supplier
    token = _token_on_page(client, rfq)
    assert token != other
    assert "GPK-" not in rfq_kit(rfq).as_text()  # the team's own view has no supplier's token
    response = _upload(client, answer, _kit_log(token), django_capture_on_commit_callbacks)
    assert response.status_code == 302
    log = BenchmarkLog.objects.get(original_name="pair1.json")
    assert log.challenge == {"status": "verified", "findings": []}
    assert log.trust_level == "kit_verified"
    assert log.provenance["role"] == "supplier" and log.provenance["rfq"] == rfq.pk
    row = api_as(analyst_a).get(f"/api/v1/benchmarks/{log.pk}/").json()
    assert row["trust_level"] == "kit_verified"


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("other_supplier", "challenge.other_supplier"),
        ("before_publication", "challenge.before_publication"),
        ("no_token", "challenge.absent"),
        ("garbled", "challenge.forged"),
    ],
)
def test_a_log_without_the_suppliers_own_valid_token_stays_supplied(
    rfq, suppliers, client_as, case, code, django_capture_on_commit_callbacks
):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    other = _token_on_page(client_as(suppliers[1].user), rfq)
    client = client_as(suppliers[0].user)
    own = _token_on_page(client, rfq)
    f = {
        "other_supplier": lambda: _kit_log(other),
        "before_publication": lambda: _kit_log(own, start=rfq.published_at.timestamp() - 3600),
        "no_token": lambda: _kit_log(None),
        "garbled": lambda: _kit_log(own[:-4] + "0000"),
    }[case]()
    assert _upload(client, answer, f, django_capture_on_commit_callbacks).status_code == 302
    log = BenchmarkLog.objects.get(original_name="pair1.json")
    assert log.trust_level == "supplied"
    assert log.challenge["findings"][0]["code"] == code
    page = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
    assert 'data-trust="supplied"' in page and escape(log.challenge["findings"][0]["en"]) in page


def test_another_rfqs_token_is_refused_as_such(
    rfq, make_rfq, vendors_a, suppliers, invite, client_as, django_capture_on_commit_callbacks
):
    second = make_rfq(title="second RFQ")
    invite(second, vendors_a[0], "sup1b")
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    other_rfq_token = TOKEN.search(
        client_as(suppliers[0].user).get(f"/sourcing/supplier/rfqs/{second.pk}/").content.decode()
    )
    token = other_rfq_token.group(0) if other_rfq_token else ""
    assert token and f"GPK-{second.pk}-" in token
    client = client_as(suppliers[0].user)
    _upload(client, answer, _kit_log(token), django_capture_on_commit_callbacks)
    log = BenchmarkLog.objects.get(original_name="pair1.json")
    assert log.challenge["findings"][0]["code"] == "challenge.other_rfq"


@pytest.mark.parametrize(
    "content", [b"", bytes(range(256)) * 16, b'{"title": "GPK-' + b"7" * 300_000 + b'"}']
)
def test_bad_supplier_uploads_get_a_message_not_a_500(
    rfq, suppliers, client_as, content, django_capture_on_commit_callbacks
):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    client = client_as(suppliers[0].user)
    f = SimpleUploadedFile("bad.json", content)
    response = _upload(client, answer, f, django_capture_on_commit_callbacks)
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert page.status_code == 200


@pytest.fixture
def award(rfq, suppliers, analyst_a, approver_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    with django_capture_on_commit_callbacks(execute=True):
        answer_upload_evidence(
            answer=answer, account=suppliers[0], upload=demo_log("pair1_P4.json")
        )
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    rfq.refresh_from_db()
    answer.refresh_from_db()
    proposed = award_propose(rfq=rfq, user=analyst_a, answer=answer, min_pairs=1)
    return award_decide(award=proposed, user=approver_a, approve=True, comment="go")


def test_an_acceptance_upload_of_a_file_held_elsewhere_says_where_and_adds_nothing(
    award, analyst_a, django_capture_on_commit_callbacks
):
    with (
        pytest.raises(ValidationError) as refused,
        django_capture_on_commit_callbacks(execute=True),
    ):
        award_acceptance_upload(award=award, user=analyst_a, upload=demo_log("pair1_P4.json"))
    assert "pair1_P4.json" in refused.value.messages[0]
    assert "evidence of" in refused.value.messages[0]  # the supplier's evidence run, by name
    award.refresh_from_db()
    assert award.acceptance_run_id is None


def test_an_acceptance_check_without_logs_stops_at_once_and_says_why(award):
    assert award_acceptance_check(award_id=award.pk) == "stopped"
    award.refresh_from_db()
    assert award.state == AwardState.APPROVED
    assert award.acceptance_evidence["stopped"] is True
    assert "No acceptance log" in award.acceptance_evidence["reasons"][0]


def test_an_acceptance_check_still_waiting_on_its_last_attempt_stops_with_the_reason(
    award, analyst_a, monkeypatch
):
    from benchmarks import services as bench_services

    monkeypatch.setattr(bench_services, "_enqueue", lambda outcome, run_id: None)  # never parsed
    award_acceptance_upload(award=award, user=analyst_a, upload=demo_log("pair2_single.json"))
    assert award_acceptance_check(award_id=award.pk) == "pending"
    assert _run_last_attempt(award.pk) == "stopped"
    award.refresh_from_db()
    assert "still being parsed" in award.acceptance_evidence["reasons"][0]
    assert Award.objects.get(pk=award.pk).state == AwardState.APPROVED


def _run_last_attempt(award_id: int) -> str:
    task = tasks.check_acceptance
    task.push_request(retries=tasks.ACCEPTANCE_RETRIES, is_eager=False)
    try:
        return task.run(award_id)
    finally:
        task.pop_request()


def test_a_token_typed_on_top_of_a_log_the_team_holds_is_never_kit_verified(
    rfq, suppliers, client_as, analyst_a, django_capture_on_commit_callbacks
):
    from benchmarks.services import benchmark_ingest
    from benchmarks.services import test_run_create as run_create
    from quotes.testing import make_vendor

    # The team already holds the public log (another vendor's run).
    vendor = make_vendor(rfq.team, "Earlier vendor")
    run = run_create(team=rfq.team, user=analyst_a, vendor=vendor, name="earlier")
    held = (P4 / "local_3.12_tcp_P4.json").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        benchmark_ingest(
            team=rfq.team, user=analyst_a, test_run=run,
            upload=SimpleUploadedFile("public.json", held),
        )  # fmt: skip
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    client = client_as(suppliers[0].user)
    token = _token_on_page(client, rfq)
    _upload(client, answer, _kit_log(token), django_capture_on_commit_callbacks)
    log = BenchmarkLog.objects.get(original_name="pair1.json")
    assert log.challenge["status"] == "verified"  # the token itself is right…
    assert log.trust_level == "supplied"  # …but the test is one the team already holds
    assert log.checks["reused_by"] or log.checks["body_held_by"]
