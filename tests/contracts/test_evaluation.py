"""The evaluate job: stored windows and incidents → the domain engine → the stored report that
the API, the page, the claim pack and the vendor's track record read."""

from __future__ import annotations

import zipfile
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.core import mail

from contracts.claims import claim_deadline_warnings_send
from contracts.models import ClaimPack
from contracts.selectors import vendor_delivery_ratio

pytestmark = pytest.mark.django_db
URL = "/api/v1/contracts/"


def test_the_evaluation_stores_a_bandwidth_breach_and_its_credit(
    evaluated, contract_a, analyst_a, api_as
):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    episodes = api.get(f"{URL}{contract_a.pk}/breaches/").json()["episodes"]
    bandwidth = [e for e in episodes if e["kind"] == "bandwidth"]
    assert [(e["host"], e["duration_h"], e["credited"]) for e in bandwidth] == [
        ("gpu-02", 3.0, True)
    ]
    credits = api.get(f"{URL}{contract_a.pk}/credits/").json()
    assert credits["evaluation"]["breach_count"] == evaluated.breach_count >= 2
    amounts = {c["clause"]: Decimal(c["credit_amount"]) for c in credits["credits"]}
    assert amounts["bandwidth"] > 0
    assert evaluated.credit_total > 0
    assert evaluated.delivered_ratio is not None and 0.9 < evaluated.delivered_ratio <= 1.0


def test_the_vendors_track_record_is_stored_for_pages_and_the_ranking(
    evaluated, contract_a, team_a
):  # type: ignore[no-untyped-def]
    ratios = vendor_delivery_ratio(team_a, [contract_a.vendor_id, 999_999])
    assert ratios[999_999] is None
    assert ratios[contract_a.vendor_id] == pytest.approx(evaluated.delivered_ratio, rel=0.05)


def test_a_claim_pack_is_built_by_a_job_and_answers_202_until_then(
    evaluated, contract_a, analyst_a, client_as, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    r = client.post(f"/contracts/{contract_a.pk}/claims/")
    assert r.status_code == 302
    pack = ClaimPack.objects.get()
    assert client.get(f"/contracts/{contract_a.pk}/claims/{pack.pk}/pdf/").status_code == 202
    from core import jobs

    jobs.run("claim_pack", pack.pk)
    pack.refresh_from_db()
    assert pack.status == "done", pack.error
    pdf = client.get(f"/contracts/{contract_a.pk}/claims/{pack.pk}/pdf/")
    assert pdf.status_code == 200 and b"".join(pdf.streaming_content).startswith(b"%PDF")
    z = client.get(f"/contracts/{contract_a.pk}/claims/{pack.pk}/zip/")
    import hashlib
    import io

    data = b"".join(z.streaming_content)
    assert hashlib.sha256(data).hexdigest() == pack.zip_sha256
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        sums = archive.read("SHA256SUMS").decode().splitlines()
        for line in sums:
            digest, name = line.split("  ", 1)
            assert hashlib.sha256(archive.read(name)).hexdigest() == digest
        assert any(n.startswith("evidence/") for n in archive.namelist())


def test_a_claim_pack_of_another_team_is_404(evaluated, contract_a, analyst_b, client_as):  # type: ignore[no-untyped-def]
    pack = ClaimPack.objects.create(contract=contract_a, evaluation=evaluated)
    r = client_as(analyst_b).get(f"/contracts/{contract_a.pk}/claims/{pack.pk}/pdf/")
    assert r.status_code == 404


def test_the_team_is_warned_once_before_a_claim_window_closes(
    evaluated, contract_a, analyst_a, settings
):  # type: ignore[no-untyped-def]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    analyst_a.email = "alice@example.com"
    analyst_a.save()
    deadline = min(datetime.fromisoformat(e["claim_deadline"])
                   for e in evaluated.report["episodes"] if e["credited"])  # fmt: skip
    sent = claim_deadline_warnings_send(now=deadline - timedelta(days=3))
    assert sent >= 1 and mail.outbox[0].to == ["alice@example.com"]
    assert contract_a.title in mail.outbox[0].subject
    assert claim_deadline_warnings_send(now=deadline - timedelta(days=2)) == 0  # once only
    assert claim_deadline_warnings_send(now=deadline + timedelta(days=1)) == 0  # closed
