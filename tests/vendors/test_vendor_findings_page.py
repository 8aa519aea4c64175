"""The vendor page states each finding once, and each names what it is about."""

import html
import re

import pytest
from django.urls import reverse

from vendors.models import Certification, Vendor
from vendors.services import vendor_refresh_findings

pytestmark = pytest.mark.django_db


def _visible_text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_three_claimed_certificates_are_three_named_findings_shown_once(
    client_as, analyst_a, team_a, language
):
    vendor = Vendor.objects.create(team=team_a, name_zh="三证厂商")
    for kind, number in (("iso27001", "A-27001"), ("iso9001", "B-9001"), ("other", "C-ITSS")):
        Certification.objects.create(
            vendor=vendor, kind=kind, number=number, issuer="某认证中心", state="claimed"
        )
    vendor_refresh_findings(vendor=vendor)
    page = (
        client_as(analyst_a)
        .get(reverse("vendors:detail", args=[vendor.pk]), HTTP_ACCEPT_LANGUAGE=language)
        .content.decode()
    )
    text = _visible_text(page)
    marker = "is only claimed" if language == "en" else "仅为声称"
    claimed = [line for line in re.split(r"\s{2,}|\n", text) if marker in line]
    assert len(claimed) == 3, claimed
    assert len(set(claimed)) == 3  # each names its certificate
    for number in ("A-27001", "B-9001", "C-ITSS"):
        assert sum(number in line for line in claimed) == 1
    assert "certification_unverified" not in text  # no raw codes shown to users
