"""The team's standing rule: inviting a vendor whose delivered ÷ committed bandwidth is below the
team's minimum warns (naming the ratio and the contracts behind it) or is refused, on the page
and over the API, in both languages; a vendor with no evaluated contract is never held back."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages

from sourcing.models import Invitation
from vendors.models import Vendor

pytestmark = pytest.mark.django_db


@pytest.fixture
def weak_vendor(vendors_a):  # type: ignore[no-untyped-def]
    vendor = vendors_a[0]
    Vendor.objects.filter(pk=vendor.pk).update(
        delivered_ratio=0.6,
        delivered_basis=[{"id": 7, "title": "Rack A 8×H800", "ratio": 0.55},
                         {"id": 8, "title": "Rack B 8×H800", "ratio": 0.65}],
    )  # fmt: skip
    vendor.refresh_from_db()
    return vendor


def _rule(team, minimum, mode):  # type: ignore[no-untyped-def]
    team.min_delivered_ratio, team.standing_rule_mode = minimum, mode
    team.save(update_fields=["min_delivered_ratio", "standing_rule_mode"])


def _invite_on_page(client, rfq, vendor, lang):  # type: ignore[no-untyped-def]
    email = f"v{vendor.pk}@example.com"
    r = client.post(f"/sourcing/{rfq.pk}/invite/", {"vendor": vendor.pk, "email": email},
                    HTTP_ACCEPT_LANGUAGE=lang)  # fmt: skip
    assert r.status_code == 302, r.status_code
    return [str(m) for m in get_messages(r.wsgi_request)]


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["delivered 60 %", "minimum of 80 %", "Rack A 8×H800 (55 %)", "Rack B 8×H800 (65 %)"]),
    ("zh-hans", ["承诺的 60 %", "最低标准 80 %", "Rack A 8×H800（55 %）"]),
])  # fmt: skip
def test_warn_mode_invites_and_says_the_ratio_and_its_contracts(  # type: ignore[no-untyped-def]
    team_a, rfq, weak_vendor, analyst_a, client_as, lang, words
):
    _rule(team_a, 0.8, "warn")
    said = " ".join(_invite_on_page(client_as(analyst_a), rfq, weak_vendor, lang))
    assert Invitation.objects.filter(rfq=rfq, vendor=weak_vendor).count() == 1
    for w in words:
        assert w in said, (w, said)


@pytest.mark.parametrize(("lang", "word"), [("en", "refuses to invite"), ("zh-hans", "不能邀请")])
def test_block_mode_refuses_on_the_page_and_stores_nothing(  # type: ignore[no-untyped-def]
    team_a, rfq, weak_vendor, analyst_a, client_as, lang, word
):
    _rule(team_a, 0.8, "block")
    said = " ".join(_invite_on_page(client_as(analyst_a), rfq, weak_vendor, lang))
    assert word in said and "60 %" in said
    assert not Invitation.objects.filter(rfq=rfq).exists()


def test_the_api_refuses_in_block_mode_and_warns_in_warn_mode(  # type: ignore[no-untyped-def]
    team_a, rfq, weak_vendor, vendors_a, analyst_a, api_as
):
    api = api_as(analyst_a)
    url = f"/api/v1/rfqs/{rfq.pk}/invitations/"
    _rule(team_a, 0.8, "block")
    r = api.post(url, {"vendor": weak_vendor.pk, "email": "s@example.com"}, format="json",
                 HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400 and "不能邀请" in str(r.json())
    assert not Invitation.objects.filter(rfq=rfq).exists()
    _rule(team_a, 0.8, "warn")
    r = api.post(url, {"vendor": weak_vendor.pk, "email": "s@example.com"}, format="json")
    assert r.status_code == 201, r.content
    assert len(r.json()["warnings"]) == 1 and "60 %" in r.json()["warnings"][0]
    ok = api.post(url, {"vendor": vendors_a[1].pk, "email": "t@example.com"}, format="json")
    assert ok.status_code == 201 and ok.json()["warnings"] == []


def test_no_rule_no_record_or_at_the_minimum_is_not_held_back(  # type: ignore[no-untyped-def]
    team_a, rfq, weak_vendor, vendors_a, analyst_a, client_as
):
    client = client_as(analyst_a)
    assert not any("60 %" in m for m in _invite_on_page(client, rfq, weak_vendor, "en"))
    _rule(team_a, 0.6, "block")  # exactly at the minimum: meets it
    Invitation.objects.all().delete()
    assert not any("60 %" in m for m in _invite_on_page(client, rfq, weak_vendor, "en"))
    _rule(team_a, 0.9, "block")  # no evaluated contract: no standing to judge
    assert vendors_a[1].delivered_ratio is None
    assert not any("refuses" in m for m in _invite_on_page(client, rfq, vendors_a[1], "en"))
    assert Invitation.objects.filter(rfq=rfq, vendor=vendors_a[1]).exists()
