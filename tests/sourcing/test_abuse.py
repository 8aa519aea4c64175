"""Abuse of the sourcing event by its participants: guessed ids, late changes, another team.

A guessed id answers 404 (or 403 where the whole endpoint is closed to the caller) and the body
holds nothing of the row: no vendor name, no price, no notes, no file name. Late changes are
refused with a 4xx that says why, and nothing is stored.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from benchmarks.models import BenchmarkLog, TestRun
from sourcing.choices import RfqState
from sourcing.models import Answer, AuditEvent, Award
from sourcing.services import answer_submit, answer_upload_evidence, award_propose
from sourcing.tasks import close_due_rfqs
from sourcing.testing import IPERF_PAIRS, answer_terms, demo_log, pass_deadline

pytestmark = pytest.mark.django_db

SECRET_PRICE = "43210"
SECRET_NOTE = "only-for-the-team-of-supplier-two"


def _no_leak(response, *secrets: str) -> None:  # type: ignore[no-untyped-def]
    body = response.content.decode()
    for secret in (SECRET_PRICE, SECRET_NOTE, "Supplier Two", "PRIVATE", *secrets):
        assert secret not in body, (response.status_code, secret, body[:500])


@pytest.fixture
def event(rfq, make_rfq, suppliers, vendors_a, invite):  # type: ignore[no-untyped-def]
    """`rfq` with an answer (and a log) from each supplier, and a second RFQ to which only
    supplier two is invited and has answered (with a log)."""
    mine = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    theirs = answer_submit(rfq=rfq, account=suppliers[1], supplier_notes=SECRET_NOTE,
                           terms=answer_terms(price_per_node_month=SECRET_PRICE))  # fmt: skip
    answer_upload_evidence(answer=mine, account=suppliers[0], upload=demo_log(IPERF_PAIRS[0]))
    answer_upload_evidence(answer=theirs, account=suppliers[1],
                           upload=demo_log(IPERF_PAIRS[1], b"\n"))  # fmt: skip
    other = make_rfq(title="Second event")
    from sourcing.services import invitation_accept, invitation_create

    _inv, token = invitation_create(rfq=other, user=rfq.created_by, vendor=vendors_a[1],
                                    email="sup2@example.com")  # fmt: skip
    invitation_accept(token=token, user=suppliers[1].user)
    elsewhere = answer_submit(rfq=other, account=suppliers[1], supplier_notes=SECRET_NOTE,
                              terms=answer_terms(price_per_node_month=SECRET_PRICE))  # fmt: skip
    answer_upload_evidence(answer=elsewhere, account=suppliers[1],
                           upload=demo_log(IPERF_PAIRS[2], b"\n\n"))  # fmt: skip
    return {"rfq": rfq, "other": other, "mine": mine, "theirs": theirs, "elsewhere": elsewhere}


@pytest.fixture
def awarded(event, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """`event`'s RFQ past its deadline, closed, and awarded (proposed) to supplier two."""
    rfq = event["rfq"]
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    rfq.refresh_from_db()
    return award_propose(rfq=rfq, user=analyst_a, answer=event["theirs"], rationale="cheapest")


# --- a supplier guessing ids -----------------------------------------------------------------


def test_a_supplier_guessing_answer_ids_gets_404_without_data(event, suppliers, api_as,
                                                              client_as):  # fmt: skip
    api, page = api_as(suppliers[0].user), client_as(suppliers[0].user)
    logs_before = BenchmarkLog.objects.count()
    for answer in (event["theirs"], event["elsewhere"]):
        for r in (
            api.get(f"/api/v1/supplier/answers/{answer.pk}/"),
            api.post(f"/api/v1/supplier/answers/{answer.pk}/logs/",
                     {"file": demo_log(IPERF_PAIRS[0], b"guess")}, format="multipart"),
            page.post(f"/sourcing/supplier/answers/{answer.pk}/logs/",
                      {"file": demo_log(IPERF_PAIRS[0], b"guess2")}),
        ):  # fmt: skip
            assert r.status_code == 404, r.content[:300]
            _no_leak(r)
    assert BenchmarkLog.objects.count() == logs_before
    # the RFQ supplier one is not invited to: neither the RFQ nor an answer slot is reachable
    other = event["other"]
    for r in (
        api.get(f"/api/v1/supplier/rfqs/{other.pk}/"),
        api.get(f"/api/v1/supplier/rfqs/{other.pk}/answer/"),
        api.put(f"/api/v1/supplier/rfqs/{other.pk}/answer/", {"terms": answer_terms()},
                format="json"),
        page.get(f"/sourcing/supplier/rfqs/{other.pk}/"),
    ):  # fmt: skip
        assert r.status_code == 404
        _no_leak(r, "Second event")
    assert not Answer.objects.filter(rfq=other, vendor=suppliers[0].vendor).exists()
    # the own list holds only the own answer, and its logs only the own file
    rows = api.get("/api/v1/supplier/answers/").json()["results"]
    assert [row["id"] for row in rows] == [event["mine"].pk]
    assert [log["name"] for log in rows[0]["logs"]] == [IPERF_PAIRS[0]]


def test_a_supplier_cannot_reach_awards_or_evidence_downloads(  # type: ignore[no-untyped-def]
    event, awarded, suppliers, api_as, client_as
):
    award = awarded
    their_log = BenchmarkLog.objects.get(original_name=IPERF_PAIRS[1])
    api, page = api_as(suppliers[0].user), client_as(suppliers[0].user)
    # team endpoints are closed to suppliers as a whole (403, same for any id, nothing shown)
    for r in (
        api.get(f"/api/v1/awards/{award.pk}/"),
        api.post(f"/api/v1/awards/{award.pk}/approve/", {"comment": "x"}, format="json"),
        api.get(f"/api/v1/awards/{award.pk + 1000}/"),
        api.get(f"/api/v1/benchmarks/{their_log.pk}/"),
        page.post(f"/sourcing/awards/{award.pk}/decide/", {"decision": "approve"}),
        page.get(f"/benchmarks/logs/{their_log.pk}/"),
        page.get(f"/benchmarks/logs/{their_log.pk}/raw/"),
    ):  # fmt: skip
        assert r.status_code == 403, r.content[:300]
        _no_leak(r, IPERF_PAIRS[1], "cheapest")
    award.refresh_from_db()
    assert award.state == "proposed" and award.decided_by is None
    # supplier-side routes that do not exist for awards or logs answer a JSON 404
    for url in (f"/api/v1/supplier/awards/{award.pk}/",
                f"/api/v1/supplier/answers/{event['mine'].pk}/logs/{their_log.pk}/",
                f"/api/v1/supplier/logs/{their_log.pk}/"):  # fmt: skip
        r = api.get(url)
        assert r.status_code == 404 and r["Content-Type"] == "application/json", url
        _no_leak(r, IPERF_PAIRS[1])


# --- late changes ----------------------------------------------------------------------------


def _late_attempts(api, event):  # type: ignore[no-untyped-def]
    rfq, mine = event["rfq"], event["mine"]
    yield api.put(f"/api/v1/supplier/rfqs/{rfq.pk}/answer/",
                  {"terms": answer_terms(nodes=16)}, format="json")  # fmt: skip
    yield api.post(f"/api/v1/supplier/answers/{mine.pk}/logs/",
                   {"file": demo_log(IPERF_PAIRS[2], b"late")}, format="multipart")  # fmt: skip


@pytest.mark.parametrize("how", ["deadline passed", "closed", "awarded"])
def test_late_answers_and_evidence_are_refused_and_nothing_is_stored(
    how, event, suppliers, analyst_a, api_as, client_as, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    rfq = event["rfq"]
    pass_deadline(rfq)
    if how != "deadline passed":
        with django_capture_on_commit_callbacks(execute=True):
            close_due_rfqs()
        rfq.refresh_from_db()
        assert rfq.state == RfqState.CLOSED
    if how == "awarded":
        type(rfq).objects.filter(pk=rfq.pk).update(state=RfqState.AWARDED)
    counts = (BenchmarkLog.objects.count(), TestRun.objects.count(), AuditEvent.objects.count())
    mine = Answer.objects.get(pk=event["mine"].pk)
    api = api_as(suppliers[0].user)
    for r in _late_attempts(api, event):
        assert r.status_code == 400, (r.status_code, r.content[:300])
        assert "deadline" in str(r.json()), r.json()
    # the page's upload form refuses the same way (a message, back to the RFQ page)
    r = client_as(suppliers[0].user).post(
        f"/sourcing/supplier/answers/{mine.pk}/logs/",
        {"file": demo_log(IPERF_PAIRS[2], b"x")},
        follow=True,
    )
    assert r.status_code == 200 and "deadline" in r.content.decode()
    after = Answer.objects.get(pk=mine.pk)
    assert (after.revision, after.terms, after.revised_at) == (
        mine.revision, mine.terms, mine.revised_at,
    )  # fmt: skip
    assert counts == (
        BenchmarkLog.objects.count(), TestRun.objects.count(), AuditEvent.objects.count()
    )  # fmt: skip
    assert list(
        BenchmarkLog.objects.filter(test_run_id=after.evidence_run_id).values_list(
            "original_name", flat=True
        )
    ) == [IPERF_PAIRS[0]]


def test_a_broken_upload_body_is_a_400_not_a_500(event, suppliers, api_as):
    api = api_as(suppliers[0].user)
    url = f"/api/v1/supplier/answers/{event['mine'].pk}/logs/"
    before = BenchmarkLog.objects.count()
    for body, fmt in (({}, "multipart"), ({"file": "not a file"}, "multipart"),
                      ({"file": None}, "json"),
                      ({"file": SimpleUploadedFile("empty.json", b"")}, "multipart")):  # fmt: skip
        r = api.post(url, body, format=fmt)
        assert r.status_code == 400, (body, r.status_code, r.content[:300])
        assert "file" in r.json()
    assert BenchmarkLog.objects.count() == before


# --- another team ----------------------------------------------------------------------------


def test_another_team_guessing_award_and_answer_ids_gets_404(  # type: ignore[no-untyped-def]
    event, awarded, analyst_b, team_b, api_as, client_as
):
    rfq, award = event["rfq"], awarded
    api, page = api_as(analyst_b), client_as(analyst_b)
    their_log = BenchmarkLog.objects.get(original_name=IPERF_PAIRS[1])
    for r in (
        api.get(f"/api/v1/awards/{award.pk}/"),
        api.post(f"/api/v1/awards/{award.pk}/approve/", {"comment": "x"}, format="json"),
        api.post(f"/api/v1/awards/{award.pk}/reject/", {"comment": "x"}, format="json"),
        api.post(f"/api/v1/awards/{award.pk}/check-acceptance/"),
        api.post(f"/api/v1/awards/{award.pk}/acceptance-logs/",
                 {"file": demo_log(IPERF_PAIRS[0], b"b")}, format="multipart"),
        api.get(f"/api/v1/rfqs/{rfq.pk}/answers/"),
        api.get(f"/api/v1/rfqs/{rfq.pk}/evaluation/"),
        api.post(f"/api/v1/rfqs/{rfq.pk}/awards/", {"answer": event["mine"].pk}, format="json"),
        api.get(f"/api/v1/benchmarks/{their_log.pk}/"),
        page.post(f"/sourcing/awards/{award.pk}/decide/", {"decision": "approve"}),
        page.post(f"/sourcing/awards/{award.pk}/check/"),
        page.post(f"/sourcing/{rfq.pk}/propose/", {"answer": event["mine"].pk}),
        page.get(f"/benchmarks/logs/{their_log.pk}/raw/"),
    ):  # fmt: skip
        assert r.status_code == 404, (r.request["PATH_INFO"], r.status_code)
        _no_leak(r, "cheapest", IPERF_PAIRS[1])
    listing = api.get("/api/v1/awards/", {"rfq": rfq.pk})
    assert listing.status_code in (200, 400) and "cheapest" not in listing.content.decode()
    if listing.status_code == 200:
        assert listing.json()["count"] == 0
    award.refresh_from_db()
    assert award.state == "proposed" and award.decided_by is None
    # team B proposing, on its own RFQ, an award to team A's answer: refused, nothing stored
    from quotes.testing import make_workload
    from sourcing.services import rfq_create

    own = rfq_create(team=team_b, user=analyst_b, data={
        "title": "B's own", "workload": make_workload(team_b), "nodes": 1,
        "min_internode_gbps": 10, "deadline": timezone.now() + timedelta(days=2),
    })  # fmt: skip
    r = api.post(f"/api/v1/rfqs/{own.pk}/awards/", {"answer": event["theirs"].pk}, format="json")
    assert r.status_code == 400 and "answer" in r.json()
    _no_leak(r, "cheapest")
    assert Award.objects.filter(rfq=own).count() == 0


def test_a_copy_of_a_log_the_team_holds_is_refused_not_attached(event, suppliers, api_as,
                                                                 client_as):  # fmt: skip
    """Supplier one uploads the exact bytes of supplier two's log: refused with a message that
    does not say whose file it is; nothing is attached to supplier one's evidence."""
    mine = event["mine"]
    before = (BenchmarkLog.objects.count(), AuditEvent.objects.count())
    copy = demo_log(IPERF_PAIRS[1], b"\n")  # supplier two's bytes, see `event`
    r = api_as(suppliers[0].user).post(f"/api/v1/supplier/answers/{mine.pk}/logs/",
                                       {"file": copy}, format="multipart")  # fmt: skip
    assert r.status_code == 400 and "already uploaded" in str(r.json()["file"])
    _no_leak(r)
    page = client_as(suppliers[0].user).post(
        f"/sourcing/supplier/answers/{mine.pk}/logs/",
        {"file": demo_log(IPERF_PAIRS[0])},
        follow=True,
    )  # its own earlier file again
    assert "already uploaded" in page.content.decode()
    assert "Log uploaded" not in page.content.decode()
    assert (BenchmarkLog.objects.count(), AuditEvent.objects.count()) == before
    mine.refresh_from_db()
    names = mine.evidence_run.logs.values_list("original_name", flat=True)
    assert list(names) == [IPERF_PAIRS[0]]


def test_an_upload_holding_a_stale_rfq_is_refused_once_the_rfq_closed(
    event, suppliers, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    """The answer (and its RFQ) was read while the RFQ was open; the deadline job closed it
    before the upload was stored: the upload is refused on the locked, current row."""
    from django.core.exceptions import ValidationError

    stale = Answer.objects.select_related("rfq").get(pk=event["mine"].pk)
    pass_deadline(event["rfq"])
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    before = BenchmarkLog.objects.count()
    with pytest.raises(ValidationError, match="deadline"):
        answer_upload_evidence(answer=stale, account=suppliers[0],
                               upload=demo_log(IPERF_PAIRS[2], b"stale"))  # fmt: skip
    assert BenchmarkLog.objects.count() == before


@pytest.mark.parametrize(
    "bad",
    [
        {"gpu": 5}, {"gpu": ["A100-SXM4-80GB"]}, {"gpu": {"key": "A100-SXM4-80GB"}},
        {"price_per_node_month": "NaN"}, {"price_per_node_month": "-sNaN"},
        {"price_per_node_month": "Infinity"}, {"availability": "NaN"}, {"nic_gbps": "NaN"},
        {"nic_gbps": "1e400"}, {"rack_uplink_gbps": "-inf"}, {"monthly_fees": True},
        {"setup_fee": {"x": 1}}, {"nic_gbps": [100]},
    ],
)  # fmt: skip
def test_malformed_terms_are_a_400_naming_the_field(bad, rfq, suppliers, api_as):
    """Terms a client can send in JSON but no form would: a 400 on that field, not a 500, and
    neither a first answer nor a revision is stored."""
    api = api_as(suppliers[0].user)
    url = f"/api/v1/supplier/rfqs/{rfq.pk}/answer/"
    for _attempt in ("first", "revision"):
        r = api.put(url, {"terms": answer_terms(**bad)}, format="json")
        assert r.status_code == 400, (bad, r.status_code, r.content[:300])
        assert list(r.json()) == list(bad), r.json()
        assert api.put(url, {"terms": answer_terms()}, format="json").status_code == 200
    assert Answer.objects.get(rfq=rfq).revision == 2


@pytest.mark.parametrize(
    ("field", "raw"),
    [
        ("weights", '["cost", "network", "diligence", "sla"]'),
        ("weights", '{"cost": true, "network": 0, "diligence": 0, "sla": 0}'),
        ("weights", '{"cost": 1e308, "network": 1e308, "diligence": 0, "sla": 0}'),
        ("weights", '{"cost": 1e400, "network": 0, "diligence": 0, "sla": 0}'),
        ("weights", '{"cost": "0.5", "network": 0, "diligence": 0, "sla": 0}'),
        ("required_evidence", '[["iperf3"]]'),
        ("required_evidence", '[{"iperf3": 1}]'),
        ("required_evidence", '{"iperf3": 1}'),
        ("required_evidence", '"iperf3"'),
        ("required_evidence", "[]"),
    ],
)
def test_malformed_rfq_json_fields_are_a_400_on_create_and_update(field, raw, workload_a,
                                                                  analyst_a, api_as):  # fmt: skip
    """The RFQ's JSON fields hold exactly what the form can produce; anything else a JSON client
    can send is a 400 on that field (was a 500 for a list of weights or nested evidence, and an
    infinite score total for huge weights), and no RFQ is stored or changed."""
    import json

    from sourcing.models import Rfq

    api = api_as(analyst_a)
    good = {"title": "t", "workload": workload_a.pk, "nodes": 2, "min_internode_gbps": 100,
            "deadline": (timezone.now() + timedelta(days=3)).isoformat()}  # fmt: skip
    body = json.dumps(good)[:-1] + f', "{field}": {raw}}}'
    r = api.post("/api/v1/rfqs/", body, content_type="application/json")
    assert r.status_code == 400 and field in r.json(), (r.status_code, r.content[:300])
    assert not Rfq.objects.exists()
    created = api.post("/api/v1/rfqs/", good, format="json")
    assert created.status_code == 201
    pk = created.json()["id"]
    r = api.patch(f"/api/v1/rfqs/{pk}/", "{" + f'"{field}": {raw}' + "}",
                  content_type="application/json")  # fmt: skip
    assert r.status_code == 400 and field in r.json(), (r.status_code, r.content[:300])
    stored = Rfq.objects.get(pk=pk)
    assert stored.weights == {"cost": 0.6, "network": 0.2, "diligence": 0.1, "sla": 0.1}
    assert stored.required_evidence == ["iperf3", "ib_write_bw"]


@pytest.mark.parametrize("username", ["x" * 151, "a b", "<script>", "semi;colon"])
def test_an_invitation_refuses_user_names_the_user_model_refuses(username, rfq, vendors_a,
                                                                 analyst_a, client):  # fmt: skip
    """Over the API (was a 500 for more than 150 characters) and on the page; the link stays
    unused and no login is created."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from sourcing.models import Invitation
    from sourcing.services import invitation_create

    _inv, token = invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="n@x.cn")
    users = get_user_model().objects.count()
    body = {"token": token, "username": username, "password": "Sup-pass-12345!"}
    r = APIClient().post("/api/v1/supplier/invitations/accept/", body, format="json")
    assert r.status_code == 400 and "username" in r.json(), (r.status_code, r.content[:200])
    page = client.post(f"/sourcing/invite/{token}/", body)
    assert page.status_code == 400
    assert get_user_model().objects.count() == users
    assert Invitation.objects.get(pk=_inv.pk).accepted_at is None


@pytest.mark.parametrize(("field", "value"), [("kit_pairs", 257), ("kit_pairs", 32767),
                                              ("kit_duration_s", 86401)])  # fmt: skip
def test_a_kit_too_large_to_print_is_refused(field, value, workload_a, analyst_a, api_as):
    """Every RFQ response (the team's list, each supplier's) carries the kit script, one set of
    commands per pair: 32,767 pairs were a 14 MB script per RFQ. Bounded: 256 pairs, one day."""
    from sourcing.models import Rfq

    api = api_as(analyst_a)
    good = {"title": "t", "workload": workload_a.pk, "nodes": 2, "min_internode_gbps": 100,
            "deadline": (timezone.now() + timedelta(days=3)).isoformat()}  # fmt: skip
    r = api.post("/api/v1/rfqs/", good | {field: value}, format="json")
    assert r.status_code == 400 and field in r.json(), (r.status_code, r.content[:300])
    assert not Rfq.objects.exists()
    at_limit = {"kit_pairs": 256, "kit_duration_s": 86400}[field]
    r = api.post("/api/v1/rfqs/", good | {field: at_limit}, format="json")
    assert r.status_code == 201 and len(r.content) < 1_000_000
