"""Invitation mail as in production: each request commits, so the mail is sent right after the
commit and the answer already tells whether it left."""

from __future__ import annotations

import pytest
from django.core import mail

from sourcing.choices import MailStatus
from sourcing.models import Invitation

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_retry_pauses(settings):  # type: ignore[no-untyped-def]
    settings.SOURCING_MAIL_RETRY_DELAYS_S = (0, 0)


def test_the_answer_says_whether_the_mail_left(rfq, vendors_a, analyst_a, api_as, client,
                                               settings):  # fmt: skip
    settings.EMAIL_BACKEND = "sourcing.testing.FailingEmailBackend"
    r = api_as(analyst_a).post(f"/api/v1/rfqs/{rfq.pk}/invitations/",
                               {"vendor": vendors_a[0].pk, "email": "one@example.com"},
                               format="json")  # fmt: skip
    assert r.status_code == 201 and r.json()["mail_status"] == "failed", r.content
    client.force_login(analyst_a)
    page = client.post(
        f"/sourcing/{rfq.pk}/invite/",
        {"vendor": vendors_a[1].pk, "email": "two@example.com"},
        follow=True,
    )
    text = page.content.decode()
    assert "its e-mail failed" in text and "Invitation sent." not in text
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    second = Invitation.objects.get(email="two@example.com")
    page = client.post(f"/sourcing/{rfq.pk}/resend/", {"invitation": second.pk}, follow=True)
    assert "Invitation sent again with a new link." in page.content.decode()
    assert Invitation.objects.get(pk=second.pk).mail_status == MailStatus.SENT
    assert [m.to for m in mail.outbox] == [["two@example.com"]]
