"""The vendor pages explain the red flags and record who changed what."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from vendors.models import Licence, Vendor

pytestmark = pytest.mark.django_db


def test_verifying_a_licence_records_who_and_when_and_appears_in_the_audit_trail(
    client_as, analyst_a, team_a
):
    vendor = Vendor.objects.create(team=team_a, name_zh="审计厂商")
    client = client_as(analyst_a)
    url = reverse("vendors:child_create", args=[vendor.pk, "licence"])
    assert (
        client.post(
            url,
            {
                "number": "粤B1-20190001",
                "issuer_scope": "provincial",
                "issuer_province": "GD",
                "state": "claimed",
                "business_codes": ["B11"],
            },
        ).status_code
        == 302
    )
    lic = Licence.objects.get(vendor=vendor)
    assert lic.verified_by is None
    edit = reverse("vendors:child_edit", args=[vendor.pk, "licence", lic.pk])
    assert (
        client.post(
            edit,
            {
                "number": "粤B1-20190001",
                "issuer_scope": "provincial",
                "issuer_province": "GD",
                "state": "verified",
                "business_codes": ["B11"],
                "verification_note": "checked on the MIIT site",
            },
        ).status_code
        == 302
    )
    lic.refresh_from_db()
    assert lic.state == "verified" and lic.verified_by == analyst_a and lic.verified_at is not None
    page = client.get(
        reverse("vendors:detail", args=[vendor.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "alice" in page and "Claimed by vendor → Verified by team" in page


def test_demo_setup_refuses_without_debug(settings):
    settings.DEBUG = False
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="DEBUG is off"):
        call_command("demo_setup")


def test_demo_setup_creates_the_demo_user_and_flags_the_seed_vendors(settings, client, capsys):
    settings.DEBUG = True
    call_command("demo_setup")
    out = capsys.readouterr().out
    assert "demo" in out and "password" in out
    assert client.login(username="demo", password="demo")
    vendors = Vendor.objects.filter(team__slug="demo")
    assert vendors.count() >= 5
    flagged = vendors.filter(findings_critical__gt=0)
    assert flagged.count() >= 3
    listing = client.get(reverse("vendors:list")).content.decode()
    assert 'class="badge critical"' in listing
