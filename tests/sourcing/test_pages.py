"""Sourcing pages for both sides: isolation, sealing, refusals, the award flow in forms."""

from __future__ import annotations

import pytest

from sourcing.choices import AwardState
from sourcing.models import Award
from sourcing.services import answer_submit, invitation_create
from sourcing.tasks import close_due_rfqs
from sourcing.testing import answer_terms, pass_deadline

pytestmark = pytest.mark.django_db


def _price_in(price: str, html: str) -> bool:
    """The price as entered or as the page prints it (grouped by thousands)."""
    return price in html or f"{int(price):,}" in html


def test_the_team_page_hides_sealed_prices_and_shows_who_answered(rfq, suppliers, analyst_a,
                                                                  client_as):  # fmt: skip
    answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms(price_per_node_month="43210"))
    page = client_as(analyst_a).get(f"/sourcing/{rfq.pk}/").content.decode()
    assert "Supplier One" in page and not _price_in("43210", page) and "iperf3 -c" in page
    pass_deadline(rfq)
    assert _price_in("43210", client_as(analyst_a).get(f"/sourcing/{rfq.pk}/").content.decode())


def test_a_supplier_sees_its_rfq_without_team_notes_or_other_answers(rfq, suppliers, client_as):
    answer_submit(rfq=rfq, account=suppliers[1], terms=answer_terms(price_per_node_month="43210"))
    client = client_as(suppliers[0].user)
    page = client.get(f"/sourcing/supplier/rfqs/{rfq.pk}/").content.decode()
    assert rfq.title in page and "PRIVATE" not in page and not _price_in("43210", page)
    assert "Supplier Two" not in page
    assert rfq.title in client.get("/sourcing/supplier/").content.decode()


def test_a_supplier_submits_on_the_page_and_is_refused_after_the_deadline(rfq, suppliers,
                                                                          client_as):  # fmt: skip
    from quotes.models import GpuModel

    client = client_as(suppliers[0].user)
    form = answer_terms(gpu=GpuModel.objects.get(key="A100-SXM4-80GB").pk, supplier_notes="hi")
    r = client.post(f"/sourcing/supplier/rfqs/{rfq.pk}/", form)
    assert r.status_code == 302, r.content.decode()[:2000]
    pass_deadline(rfq)
    r = client.post(f"/sourcing/supplier/rfqs/{rfq.pk}/", form | {"nodes": 16})
    assert r.status_code == 400 and "deadline" in r.content.decode()


def test_a_supplier_guessing_page_ids_gets_404(rfq, make_rfq, suppliers, client_as):
    other = make_rfq(title="secret")
    theirs = answer_submit(rfq=rfq, account=suppliers[1], terms=answer_terms())
    client = client_as(suppliers[0].user)
    assert client.get(f"/sourcing/supplier/rfqs/{other.pk}/").status_code == 404
    assert client.post(f"/sourcing/supplier/answers/{theirs.pk}/logs/").status_code == 404


def test_a_supplier_is_refused_by_team_pages(rfq, suppliers, client_as):
    client = client_as(suppliers[0].user)
    for url in ("/sourcing/", f"/sourcing/{rfq.pk}/", "/quotes/", "/vendors/"):
        assert client.get(url).status_code == 403, url


def test_team_members_cannot_open_the_supplier_portal(analyst_a, client_as):
    assert client_as(analyst_a).get("/sourcing/supplier/").status_code == 403


def test_another_team_gets_404_on_the_rfq_page(rfq, analyst_b, client_as):
    assert client_as(analyst_b).get(f"/sourcing/{rfq.pk}/").status_code == 404


def test_the_invitation_link_creates_a_login_once(rfq, vendors_a, analyst_a, client):
    _inv, token = invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="s@x.cn")
    body = {"username": "fresh", "password": "Sup-pass-12345!"}
    r = client.post(f"/sourcing/invite/{token}/", body)
    assert r.status_code == 302 and r["Location"] == f"/sourcing/supplier/rfqs/{rfq.pk}/"
    client.logout()
    r = client.post(f"/sourcing/invite/{token}/", body | {"username": "fresh2"})
    assert r.status_code == 400 and "already used" in r.content.decode()
    assert client.get("/sourcing/invite/guessed-token/").status_code == 404


def test_duplicate_invitation_on_the_page_shows_a_message(rfq, vendors_a, analyst_a, client_as):
    client = client_as(analyst_a)
    body = {"vendor": vendors_a[0].pk, "email": "s@x.cn"}
    client.post(f"/sourcing/{rfq.pk}/invite/", body)
    r = client.post(f"/sourcing/{rfq.pk}/invite/", body, follow=True)
    assert "already invited" in r.content.decode()


def test_propose_and_approve_on_the_pages(rfq, suppliers, analyst_a, approver_a, client,
                                          django_capture_on_commit_callbacks):  # fmt: skip
    a1 = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    client.force_login(analyst_a)
    page = client.get(f"/sourcing/{rfq.pk}/").content.decode()
    assert "Evaluation" in page and _price_in("40000", page)
    client.post(f"/sourcing/{rfq.pk}/propose/", {"answer": a1.pk, "rationale": "r",
                "min_line_fraction": 0.9, "min_pairs": 3, "trial_days": 7})  # fmt: skip
    award = Award.objects.get()
    r = client.post(f"/sourcing/awards/{award.pk}/decide/", {"decision": "approve", "comment": "x"},
                    follow=True)  # fmt: skip
    assert "another analyst" in r.content.decode()
    client.force_login(approver_a)
    client.post(f"/sourcing/awards/{award.pk}/decide/", {"decision": "approve", "comment": "ok"})
    award.refresh_from_db()
    assert award.state == AwardState.APPROVED
