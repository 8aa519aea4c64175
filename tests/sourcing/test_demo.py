import pytest
from django.core.management import call_command

from sourcing.models import Answer, Invitation, Rfq, SupplierAccount


@pytest.mark.django_db
def test_demo_setup_creates_an_rfq_with_two_suppliers(settings, capsys):
    settings.DEBUG = True
    call_command("demo_setup")
    assert Rfq.objects.filter(state="published").count() == 1
    assert Answer.objects.count() == 2
    assert (
        SupplierAccount.objects.filter(user__username__in=["supplier1", "supplier2"]).count() == 2
    )
    assert "supplier1/supplier1" in capsys.readouterr().out
    # Accepted invitations show as mailed, not "Sending" for ever.
    assert set(Invitation.objects.values_list("mail_status", flat=True)) == {"sent"}
