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


def test_findings_about_data_centres_name_the_data_centre(client_as, analyst_a, team_a):  # type: ignore[no-untyped-def]
    """Two data centres missing the same facts gave the same sentence twice, unnamed."""
    import re

    from django.urls import reverse

    from vendors.models import DataCentre, Vendor

    vendor = Vendor.objects.create(team=team_a, name_zh="双机房云", name_en="Two Sites Cloud")
    DataCentre.objects.create(vendor=vendor, name="Ulanqab North")
    DataCentre.objects.create(vendor=vendor, name="Qingyang East")
    for lang, word in (("en", "data centre"), ("zh-hans", "机房")):
        page = (
            client_as(analyst_a)
            .get(reverse("vendors:detail", kwargs={"pk": vendor.pk}), HTTP_ACCEPT_LANGUAGE=lang)
            .content.decode()
        )
        findings = page.split('id="findings"')[1].split("</section>")[0]
        lines = re.findall(r'<div class="finding[^"]*"[^>]*>(.*?)</div>', findings, re.S)
        about = [line for line in lines if "Ulanqab North" in line or "Qingyang East" in line]
        assert any("Ulanqab North" in line for line in about), lines[:3]
        assert any("Qingyang East" in line for line in about)
        assert all(f"{word} " in line for line in about)
        assert len(set(lines)) == len(lines), "a finding is repeated word for word"
