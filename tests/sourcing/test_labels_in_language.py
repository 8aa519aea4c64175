"""Labels the portal generates are shown in the reader's language: the demo's closed RFQ made
quotes "RFQ n · <vendor>" and a ranking "RFQ n · <title>", its serving offers are
"… · serving · <billing>"; English pages show them in English and Chinese pages in Chinese,
whichever language they were stored in (rows stored in Chinese by an earlier release too)."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import Membership
from quotes.models import Quote
from rankings.models import RankingRun
from sourcing.models import Rfq

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(settings, capsys):  # type: ignore[no-untyped-def]
    settings.DEBUG = True
    call_command("demo_setup")
    capsys.readouterr()


def _text(client, url: str, lang: str) -> str:  # type: ignore[no-untyped-def]
    client.cookies.load({"django_language": lang})
    r = client.get(url, HTTP_ACCEPT_LANGUAGE=lang)
    assert r.status_code == 200, (url, r.status_code)
    body = r.content.decode()
    body = body.split("<main", 1)[-1]  # the page, not the navigation
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def test_generated_labels_follow_the_reader_s_language(demo, client) -> None:  # type: ignore[no-untyped-def]
    closed = Rfq.objects.get(state="closed")
    member = Membership.objects.filter(team=closed.team, role="admin").first()
    client.force_login(member.user)
    bids = Quote.objects.filter(team=closed.team, label=f"RFQ {closed.pk} · bid")
    assert bids.count() == 3  # the vendor is beside the label on every page, not in it
    quote = bids.first()
    run = RankingRun.objects.get(pk=closed.ranking_run_id)
    serving = Quote.objects.filter(team=closed.team, label__contains="serving").order_by("pk")
    assert quote is not None and serving.count() == 3
    # stored in English (whoever closed it), one row as an earlier release stored it: Chinese
    assert run.label.startswith(f"RFQ {closed.pk} · ")
    Quote.objects.filter(pk=quote.pk).update(label=f"询价单 {closed.pk} · {quote.vendor}")
    other = bids.exclude(pk=quote.pk).first()
    rfq_en, rfq_zh = f"RFQ {closed.pk} · ", f"询价单 {closed.pk} · "

    pages = {
        "quote list": reverse("quotes:list"),
        "quote": reverse("quotes:detail", args=[quote.pk]),
        "rankings": reverse("rankings:list"),
        "ranking": reverse("rankings:detail", args=[run.pk]),
    }
    for name, url in pages.items():
        en, zh = _text(client, url, "en"), _text(client, url, "zh-hans")
        assert rfq_en in en and rfq_zh not in en, name
        assert rfq_zh in zh and rfq_en not in zh, name
    assert f"RFQ {closed.pk} · {quote.vendor}" in _text(client, pages["quote"], "en")
    other_url = reverse("quotes:detail", args=[other.pk])
    assert f"RFQ {closed.pk} · bid" in _text(client, other_url, "en")
    assert f"询价单 {closed.pk} · 报价" in _text(client, other_url, "zh-hans")
    # the serving offers
    url = reverse("quotes:list") + "?q=serving"
    en = _text(client, reverse("quotes:list") + "?page_size=100", "en")
    zh = _text(client, reverse("quotes:list") + "?page_size=100", "zh-hans")
    assert "6×8 RTX 4090 · serving · fixed" in en and "推理服务" not in en, url
    assert "6×8 RTX 4090 · 推理服务 · 固定带宽" in zh and "serving · fixed" not in zh
    assert "6×8 L40S · 推理服务 · 按流量计费" in zh and "per GB" not in zh
    plan = reverse("serving:home")
    assert "serving · " in _text(client, plan, "en")
    zh_plan = _text(client, plan, "zh-hans")
    assert "推理服务 · 95 计费" in zh_plan and "serving · " not in zh_plan
