"""The sourcing API: isolation, sealing and every abuse case over HTTP."""

from __future__ import annotations

import pytest

from sourcing.models import Answer
from sourcing.services import answer_submit
from sourcing.tasks import close_due_rfqs
from sourcing.testing import answer_terms, pass_deadline

pytestmark = pytest.mark.django_db


def test_a_supplier_answers_and_revises_over_the_api(rfq, suppliers, api_as):
    client = api_as(suppliers[0].user)
    listing = client.get("/api/v1/supplier/rfqs/").json()
    assert [r["id"] for r in listing["results"] if "results" in listing] or listing
    detail = client.get(f"/api/v1/supplier/rfqs/{rfq.pk}/").json()
    assert "notes" not in detail and "weights" not in detail
    assert "iperf3 -c" in detail["benchmark_kit"]["script"]
    url = f"/api/v1/supplier/rfqs/{rfq.pk}/answer/"
    assert client.put(url, {"terms": answer_terms()}, format="json").status_code == 200
    r = client.put(url, {"terms": answer_terms(nodes=16)}, format="json")
    assert r.status_code == 200 and r.json()["revision"] == 2
    bad = client.put(url, {"terms": answer_terms(nodes=0)}, format="json")
    assert bad.status_code == 400 and "nodes" in bad.json()


def test_late_submissions_and_edits_are_refused_over_the_api(rfq, suppliers, api_as):
    answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    pass_deadline(rfq)
    for account in suppliers:  # an edit and a first, late submission
        r = api_as(account.user).put(f"/api/v1/supplier/rfqs/{rfq.pk}/answer/",
                                     {"terms": answer_terms()}, format="json")  # fmt: skip
        assert r.status_code == 400 and "deadline" in str(r.json())
    assert Answer.objects.get().revision == 1


def test_a_supplier_guessing_ids_gets_404(rfq, make_rfq, suppliers, api_as):
    other_rfq = make_rfq(title="not invited")
    mine = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    theirs = answer_submit(rfq=rfq, account=suppliers[1], terms=answer_terms())
    client = api_as(suppliers[0].user)
    assert client.get(f"/api/v1/supplier/rfqs/{other_rfq.pk}/").status_code == 404
    assert client.put(f"/api/v1/supplier/rfqs/{other_rfq.pk}/answer/",
                      {"terms": answer_terms()}, format="json").status_code == 404  # fmt: skip
    assert client.get(f"/api/v1/supplier/answers/{theirs.pk}/").status_code == 404
    assert client.post(f"/api/v1/supplier/answers/{theirs.pk}/logs/").status_code == 404
    assert client.get(f"/api/v1/supplier/answers/{mine.pk}/").status_code == 200
    ids = [a["id"] for a in client.get("/api/v1/supplier/answers/").json()["results"]]
    assert ids == [mine.pk]


def test_a_supplier_is_refused_by_every_team_endpoint(rfq, suppliers, api_as):
    client = api_as(suppliers[0].user)
    for url in ("/api/v1/rfqs/", f"/api/v1/rfqs/{rfq.pk}/", f"/api/v1/rfqs/{rfq.pk}/answers/",
                "/api/v1/quotes/", "/api/v1/vendors/", "/api/v1/awards/"):  # fmt: skip
        assert client.get(url).status_code == 403, url


def test_a_team_member_is_refused_by_the_supplier_endpoints(rfq, analyst_a, api_as):
    assert api_as(analyst_a).get("/api/v1/supplier/rfqs/").status_code == 403


def test_the_team_sees_who_answered_but_no_prices_while_sealed(rfq, suppliers, analyst_a, api_as):
    answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    rows = api_as(analyst_a).get(f"/api/v1/rfqs/{rfq.pk}/answers/").json()
    assert rows[0]["vendor_name"] == "Supplier One" and rows[0]["prices_sealed"] is True
    assert "price_per_node_month" not in rows[0]["terms"]
    assert "40000" not in str(rows)
    pass_deadline(rfq)
    rows = api_as(analyst_a).get(f"/api/v1/rfqs/{rfq.pk}/answers/").json()
    assert rows[0]["terms"]["price_per_node_month"] == "40000"


def test_another_team_cannot_see_the_rfq(rfq, analyst_b, api_as):
    client = api_as(analyst_b)
    assert client.get(f"/api/v1/rfqs/{rfq.pk}/").status_code == 404
    assert client.get("/api/v1/rfqs/").json()["count"] == 0


def test_duplicate_invitations_are_refused_over_the_api(rfq, vendors_a, analyst_a, api_as):
    client = api_as(analyst_a)
    url = f"/api/v1/rfqs/{rfq.pk}/invitations/"
    body = {"vendor": vendors_a[0].pk, "email": "s@example.com"}
    assert client.post(url, body, format="json").status_code == 201
    again = client.post(url, body, format="json")
    assert again.status_code == 400 and "already invited" in str(again.json())


def test_invitation_tokens_work_once_over_the_api(rfq, vendors_a, analyst_a, api_as, client):
    from sourcing.services import invitation_create

    _inv, token = invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="s@x.cn")
    body = {"token": token, "username": "newsup", "password": "Sup-pass-12345!"}
    assert client.post("/api/v1/supplier/invitations/accept/", body).status_code == 201
    again = client.post("/api/v1/supplier/invitations/accept/", body | {"username": "other"})
    assert again.status_code == 400 and "already used" in str(again.json())


def test_the_whole_award_flow_over_the_api(rfq, suppliers, analyst_a, approver_a, viewer_a,
                                           api_as, django_capture_on_commit_callbacks):  # fmt: skip
    a1 = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    answer_submit(rfq=rfq, account=suppliers[1], terms=answer_terms(price_per_node_month="41000"))
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    analyst = api_as(analyst_a)
    evaluation = analyst.get(f"/api/v1/rfqs/{rfq.pk}/evaluation/").json()
    assert evaluation["ready"] and len(evaluation["rows"]) == 2 and "weights" in evaluation
    assert api_as(viewer_a).post(f"/api/v1/rfqs/{rfq.pk}/awards/",
                                 {"answer": a1.pk}).status_code == 403  # fmt: skip
    r = analyst.post(f"/api/v1/rfqs/{rfq.pk}/awards/", {"answer": a1.pk, "rationale": "top"})
    assert r.status_code == 201
    award_id = r.json()["id"]
    own = analyst.post(f"/api/v1/awards/{award_id}/approve/", {"comment": "me"})
    assert own.status_code == 400 and "another analyst" in str(own.json())
    ok = api_as(approver_a).post(f"/api/v1/awards/{award_id}/approve/", {"comment": "fine"})
    assert ok.status_code == 200 and ok.json()["state"] == "approved"
    verbs = [e["verb"] for e in analyst.get(f"/api/v1/rfqs/{rfq.pk}/audit/").json()]
    assert verbs[-2:] == ["award_proposed", "award_approved"]
    assert api_as(suppliers[0].user).get(f"/api/v1/awards/{award_id}/").status_code == 403
