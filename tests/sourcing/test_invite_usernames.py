"""A supplier's new user name follows the one log-in name rule (accounts.services.user_create):
a full-width or differently cased copy of a taken name is refused, never a 500."""

import pytest
from django.core.exceptions import ValidationError

from sourcing.models import Invitation
from sourcing.services import invitation_accept, invitation_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("copy", ["ａlice", "ALICE", "Alice"])
def test_a_copy_of_a_taken_name_is_refused_and_the_link_stays_usable(
    rfq, vendors_a, analyst_a, django_capture_on_commit_callbacks, copy
):
    assert analyst_a.username == "alice"
    with django_capture_on_commit_callbacks(execute=True):
        invitation, token = invitation_create(
            rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="s@example.com"
        )
    with pytest.raises(ValidationError) as caught:
        invitation_accept(token=token, username=copy, password="Sup-pass-12345!")
    assert "username" in caught.value.message_dict
    assert Invitation.objects.get(pk=invitation.pk).accepted_at is None
    account = invitation_accept(token=token, username="alice-supplier", password="Sup-pass-12345!")
    assert account.user.username == "alice-supplier"
