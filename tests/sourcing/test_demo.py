"""The demo: fictional vendors only, plainly marked; two team admins; sourcing events to try."""

import re
from pathlib import Path

import pytest
from django.core.management import call_command

from accounts.choices import Role
from accounts.models import Membership
from domain.seed_vendor_claims import SEED_VENDORS
from sourcing.models import Answer, Invitation, Rfq, SupplierAccount
from sourcing.selectors import rfq_evaluation
from vendors.models import DataCentre, Vendor

SEEDS = next(
    (p / "shared" / "seeds" for p in Path(__file__).resolve().parents
     if (p / "shared" / "seeds").is_dir()),
    Path("/nonexistent"),
)  # fmt: skip
MARKS = re.compile(r"示例|（示例）|【演示】|（演示）|\[demo\]|\(demo\)")


@pytest.fixture
def demo(settings, capsys):  # type: ignore[no-untyped-def]
    settings.DEBUG = True
    call_command("demo_setup")
    return capsys.readouterr().out


@pytest.mark.django_db
def test_demo_setup_creates_an_rfq_with_two_suppliers(demo):
    assert Rfq.objects.filter(state="published").count() == 1
    published = Rfq.objects.get(state="published")
    assert Answer.objects.filter(rfq=published).count() == 2
    assert (
        SupplierAccount.objects.filter(user__username__in=["supplier1", "supplier2"]).count() == 2
    )
    assert "supplier1/supplier1" in demo
    # Accepted invitations show as mailed, not "Sending" for ever.
    assert set(Invitation.objects.values_list("mail_status", flat=True)) == {"sent"}


@pytest.mark.django_db
def test_demo_vendors_are_fictional_plainly_marked_and_name_no_real_company(demo):
    seeds = "".join(p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt")))
    assert seeds, "the seed articles are expected in ../shared/seeds"
    vendors = list(Vendor.objects.filter(team__slug="demo"))
    real = {name for f in SEED_VENDORS for name in (f.name_zh, f.name_en)}
    flagged = [v for v in vendors if v.findings_critical]
    assert flagged, "the demo still shows red flags, on fictional vendors"
    for vendor in vendors:
        assert MARKS.search(vendor.name_zh) and MARKS.search(vendor.name_en), vendor
        assert not any(name in (vendor.name_zh, vendor.name_en) for name in real), vendor
        core = MARKS.sub("", vendor.name_zh).strip()
        assert core and core not in seeds, f"{vendor.name_zh} is named in the seed articles"
        brand = re.findall(r"[\u4e00-\u9fff]{2,}", core)[0]  # 星云算力 of 示例星云算力（示例）
        assert brand not in seeds, (vendor.name_zh, brand)
    dc_names = list(
        DataCentre.objects.filter(vendor__team__slug="demo").values_list("name", flat=True)
    )
    assert dc_names and not [n for n in dc_names if "未指明" in n or "文章" in n]


@pytest.mark.django_db
def test_the_demo_has_two_admins_for_four_eyes_approvals(demo, client):
    admins = Membership.objects.filter(team__slug="demo", role=Role.ADMIN)
    assert set(admins.values_list("user__username", flat=True)) == {"demo", "demo2"}
    assert "'demo2', password 'demo2'" in demo
    assert client.login(username="demo2", password="demo2")


@pytest.mark.django_db
def test_the_demos_closed_rfq_shows_a_knocked_out_and_an_excluded_bid(demo):
    closed = Rfq.objects.get(state="closed")
    statuses = {row["status"] for row in rfq_evaluation(closed)["rows"]}
    assert statuses == {"conforming", "knocked_out", "excluded"}
