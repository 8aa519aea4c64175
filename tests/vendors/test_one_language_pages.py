"""Province choices and report languages read in the page's language only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotes.testing import make_workload
from rankings.models import RankingRun
from reports.models import Report
from vendors.models import Licence, Vendor

pytestmark = pytest.mark.django_db


def _page(client, url: str, lang: str) -> str:  # type: ignore[no-untyped-def]
    client.cookies["django_language"] = lang
    return client.get(url).content.decode()


def test_province_choices_and_names_are_in_the_page_language(team_a, analyst_a, client_as) -> None:  # type: ignore[no-untyped-def]
    vendor = Vendor.objects.create(team=team_a, name_zh="自有厂商", home_province="GD")
    client = client_as(analyst_a)
    for url in (reverse("vendors:create"),
                reverse("vendors:child_create", args=[vendor.pk, "datacentre"]),
                reverse("vendors:child_create", args=[vendor.pk, "licence"]),
                reverse("vendors:detail", args=[vendor.pk])):  # fmt: skip
        zh, en = _page(client, url, "zh-hans"), _page(client, url, "en")
        assert "广东" in zh and "Guangdong" not in zh, url
        assert "Guangdong" in en and "广东" not in en, url
    # a licence's coverage in words, not "national"
    Licence.objects.create(vendor=vendor, number="B1-20159001", coverage_regions=["national", "GD"])
    url = reverse("vendors:detail", args=[vendor.pk])
    assert "全国、广东" in _page(client, url, "zh-hans")
    assert "Nationwide, Guangdong" in _page(client, url, "en")


def test_the_report_list_names_the_report_language_in_the_page_language(
    team_a, analyst_a, client_as
) -> None:  # type: ignore[no-untyped-def]
    run = RankingRun.objects.create(team=team_a, created_by=analyst_a,
                                    workload=make_workload(team_a), label="R")  # fmt: skip
    Report.objects.create(team=team_a, run=run, kind="pdf", language="en")
    client = client_as(analyst_a)
    zh = _page(client, reverse("reports:list"), "zh-hans")
    en = _page(client, reverse("reports:list"), "en")
    assert "（英文）" in zh or "(英文)" in zh
    assert "English" not in zh.split("<main")[-1].split("</main>")[0]
    assert "(English)" in en


def test_a_vendor_is_named_in_the_readers_language_in_drop_downs(team_a):  # type: ignore[no-untyped-def]
    """English pages showed vendor drop-downs in Chinese only (a vendor's name was always its
    Chinese one); each language now reads its own, falling back to the other."""
    from django.utils import translation

    from quotes.forms import QuoteForm
    from vendors.models import Vendor

    both = Vendor.objects.create(team=team_a, name_zh="双语云", name_en="Bilingual Cloud")
    only_zh = Vendor.objects.create(team=team_a, name_zh="仅中文云")
    for lang, expected in (("en", "Bilingual Cloud"), ("zh-hans", "双语云")):
        with translation.override(lang):
            labels = [label for _v, label in QuoteForm(team=team_a).fields["vendor"].choices]
            assert expected in labels and "仅中文云" in labels
            assert both.name_for_reader() == expected and only_zh.name_for_reader() == "仅中文云"
