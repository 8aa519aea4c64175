"""A logged-in user whom an invitation refuses gets the invitation page with the reason (400),
not a server error, and the link stays unused."""

from __future__ import annotations

import pytest
from django.urls import reverse

from sourcing.models import Invitation
from sourcing.services import invitation_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_invitation(rfq, vendors_a, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=True):
        invitation, token = invitation_create(
            rfq=rfq, user=analyst_a, vendor=vendors_a[1], email="two@example.com"
        )
    return invitation, token


def test_a_team_member_is_told_why_and_the_link_stays_unused(  # type: ignore[no-untyped-def]
    open_invitation, analyst_a, client_as
):
    invitation, token = open_invitation
    r = client_as(analyst_a).post(
        reverse("sourcing:invite", args=[token]), {}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert r.status_code == 400
    assert "Team members cannot accept supplier invitations." in r.content.decode()
    assert Invitation.objects.get(pk=invitation.pk).accepted_at is None


def test_another_vendors_supplier_is_told_why_in_chinese(  # type: ignore[no-untyped-def]
    rfq, team_a, invite, analyst_a, client, django_capture_on_commit_callbacks
):
    from quotes.testing import make_vendor

    one = invite(rfq, make_vendor(team_a, "Supplier One"), "sup1")
    with django_capture_on_commit_callbacks(execute=True):
        invitation, token = invitation_create(
            rfq=rfq, user=analyst_a, vendor=make_vendor(team_a, "Supplier Three"),
            email="three@example.com",
        )  # fmt: skip
    client.force_login(one.user)  # Supplier One's account; the link is Supplier Three's
    r = client.post(reverse("sourcing:invite", args=[token]), {}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400 and 'class="error"' in r.content.decode()
    assert Invitation.objects.get(pk=invitation.pk).accepted_at is None
