"""Invitation e-mail: safe headers, sent after commit with retries, its outcome recorded on the
invitation, and a failed one sent again."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from sourcing.choices import AuditVerb, MailStatus
from sourcing.models import Invitation, Rfq
from sourcing.services import invitation_accept, token_digest

pytestmark = pytest.mark.django_db

EVIL_TITLE = "64×A100 pretraining\r\nBcc: rival@example.com\n\tX-Spam: yes"


@pytest.fixture(autouse=True)
def _no_retry_pauses(settings):  # type: ignore[no-untyped-def]
    settings.SOURCING_MAIL_RETRY_DELAYS_S = (0, 0)


@pytest.fixture
def failing_mail(settings):  # type: ignore[no-untyped-def]
    settings.EMAIL_BACKEND = "sourcing.testing.FailingEmailBackend"
    return settings


def _token(message) -> str:  # type: ignore[no-untyped-def]
    return re.search(r"/sourcing/invite/([^/]+)/", message.body).group(1)


def test_a_newline_in_a_stored_title_no_longer_breaks_invitations(
    rfq, vendors_a, analyst_a, api_as, client_as, django_capture_on_commit_callbacks
):
    Rfq.objects.filter(pk=rfq.pk).update(title=EVIL_TITLE)  # stored before titles were checked
    with django_capture_on_commit_callbacks(execute=True):
        r = api_as(analyst_a).post(f"/api/v1/rfqs/{rfq.pk}/invitations/",
                                   {"vendor": vendors_a[0].pk, "email": "one@example.com"},
                                   format="json")  # fmt: skip
    assert r.status_code == 201, r.content
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    title = "64×A100 pretraining Bcc: rival@example.com X-Spam: yes"
    assert sent.subject == f"询价单：{title} / Request for quotation: {title}"
    # suppliers have no language yet: Chinese first, then English, whatever the sender used
    assert "您好" in sent.body and "you are invited" in sent.body
    message = sent.message()
    assert message["Bcc"] is None and message["X-Spam"] is None
    assert sent.recipients() == ["one@example.com"]
    invitation = Invitation.objects.get(pk=r.json()["id"])
    assert (invitation.mail_status, invitation.mail_attempts) == (MailStatus.SENT, 1)
    assert invitation.mailed_at is not None and invitation.mail_error == ""
    # the page's invite form, too
    with django_capture_on_commit_callbacks(execute=True):
        page = client_as(analyst_a).post(f"/sourcing/{rfq.pk}/invite/",
                                         {"vendor": vendors_a[1].pk, "email": "two@example.com"},
                                         follow=True)  # fmt: skip
    assert page.status_code == 200 and "Invitation sent." in page.content.decode()
    assert len(mail.outbox) == 2 and "\n" not in mail.outbox[1].subject


@pytest.mark.parametrize("title", ["two\nlines", "carriage\rreturn", "tab\there", "nul\x00",
                                   "line\u2028separator"])  # fmt: skip
def test_titles_with_control_characters_are_refused_at_input(  # type: ignore[no-untyped-def]
    title, make_rfq, workload_a, analyst_a, api_as, client_as
):
    api = api_as(analyst_a)
    deadline = timezone.now() + timedelta(days=3)
    body = {"title": title, "workload": workload_a.pk, "nodes": 2, "min_internode_gbps": 100,
            "deadline": deadline.isoformat()}  # fmt: skip
    r = api.post("/api/v1/rfqs/", body, format="json")
    assert r.status_code == 400 and "title" in r.json(), r.content
    assert "control characters" in r.json()["title"][0] or "null" in str(r.json()).lower()
    draft = make_rfq(publish=False)
    r = api.patch(f"/api/v1/rfqs/{draft.pk}/", {"title": title}, format="json",
                  HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400 and "title" in r.json()
    assert Rfq.objects.get(pk=draft.pk).title == draft.title
    page = client_as(analyst_a).post("/sourcing/new/", {
        "title": title, "workload": workload_a.pk, "nodes": 2, "min_internode_gbps": 100,
        "term_months": 12, "min_availability": "0.99", "min_trial_days": 7,
        "deadline": timezone.localtime(deadline).strftime("%Y-%m-%dT%H:%M"), "kit_pairs": 2,
        "kit_duration_s": 60, "required_evidence": ["iperf3"], "weight_cost": 1,
        "weight_network": 0, "weight_diligence": 0, "weight_sla": 0,
    })  # fmt: skip
    text = page.content.decode()
    assert page.status_code == 400 and (
        "control characters" in text or "cannot be stored (NUL)" in text
    )  # a NUL is said as such (core.forms.NUL_MESSAGE)
    assert list(Rfq.objects.values_list("title", flat=True)) == [draft.title]


def test_a_failed_mail_is_recorded_and_the_invitation_sent_again(
    rfq, vendors_a, analyst_a, viewer_a, analyst_b, api_as, failing_mail,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    api = api_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(
            f"/api/v1/rfqs/{rfq.pk}/invitations/",
            {"vendor": vendors_a[0].pk, "email": "one@example.com"},
            format="json",
        )
    assert r.status_code == 201, r.content
    invitation = Invitation.objects.get(pk=r.json()["id"])
    assert invitation.mail_status == MailStatus.FAILED and invitation.mail_attempts == 3
    assert "SMTPServerDisconnected" in invitation.mail_error
    listed = api.get(f"/api/v1/rfqs/{rfq.pk}/invitations/").json()
    assert listed[0]["mail_status"] == "failed" and "Connection" in listed[0]["mail_error"]
    failed_event = rfq.audit_events.get(verb=AuditVerb.INVITATION_MAIL_FAILED)
    assert failed_event.detail["email"] == "one@example.com"
    old_digest = invitation.token_sha256

    url = f"/api/v1/rfqs/{rfq.pk}/invitations/resend/"
    body = {"invitation": invitation.pk}
    assert api_as(viewer_a).post(url, body, format="json").status_code == 403
    assert api_as(analyst_b).post(url, body, format="json").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):  # the server is still down
        again = api.post(url, body, format="json")
    assert again.status_code == 200 and again.json()["id"] == invitation.pk
    assert Invitation.objects.get(pk=invitation.pk).mail_status == MailStatus.FAILED

    failing_mail.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(url, body, format="json")
    assert r.status_code == 200, r.content
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["one@example.com"]
    invitation.refresh_from_db()
    assert invitation.mail_status == MailStatus.SENT and invitation.mail_error == ""
    assert invitation.token_sha256 != old_digest  # a new link; the old one never arrived
    assert invitation.token_sha256 == token_digest(_token(mail.outbox[0]))
    assert rfq.audit_events.filter(verb=AuditVerb.INVITATION_RESENT).count() == 2
    refused = api.post(url, body, format="json")  # delivered now: nothing to send again
    assert refused.status_code == 400 and "failed can be sent again" in str(refused.json())
    bogus = api.post(url, {"invitation": 999999}, format="json")
    assert bogus.status_code == 400 and "invitation" in bogus.json()
    account = invitation_accept(token=_token(mail.outbox[0]), username="sup-resent",
                                password="Sup-pass-12345!")  # fmt: skip
    assert account.vendor == vendors_a[0]


def test_the_page_offers_send_again_for_a_failed_mail(
    rfq, vendors_a, analyst_a, viewer_a, client, failing_mail, django_capture_on_commit_callbacks
):
    client.force_login(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/sourcing/{rfq.pk}/invite/",
                        {"vendor": vendors_a[0].pk, "email": "one@example.com"})  # fmt: skip
    assert r.status_code == 302
    invitation = Invitation.objects.get()
    assert invitation.mail_status == MailStatus.FAILED
    page = client.get(f"/sourcing/{rfq.pk}/").content.decode()
    assert 'class="inline resend"' in page and "SMTPServerDisconnected" in page
    client.force_login(viewer_a)
    assert 'class="inline resend"' not in client.get(f"/sourcing/{rfq.pk}/").content.decode()
    assert client.post(f"/sourcing/{rfq.pk}/resend/",
                       {"invitation": invitation.pk}).status_code == 403  # fmt: skip
    client.force_login(analyst_a)
    failing_mail.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/sourcing/{rfq.pk}/resend/", {"invitation": invitation.pk},
                        follow=True)  # fmt: skip
    assert "Invitation sent again" in r.content.decode()
    assert len(mail.outbox) == 1
    invitation.refresh_from_db()
    assert invitation.mail_status == MailStatus.SENT
    r = client.post(f"/sourcing/{rfq.pk}/resend/", {"invitation": invitation.pk}, follow=True)
    assert "failed can be sent again" in r.content.decode() and len(mail.outbox) == 1


def test_an_invitation_rolled_back_sends_no_mail(rfq, vendors_a, analyst_a,
                                                 django_capture_on_commit_callbacks):  # fmt: skip
    from django.db import transaction

    from sourcing.services import invitation_create

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0],
                                  email="one@example.com")  # fmt: skip
                raise RuntimeError("a later step failed")
        except RuntimeError:
            pass
    assert callbacks == [] and mail.outbox == [] and not Invitation.objects.exists()
