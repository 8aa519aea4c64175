"""The quote page shows the VAT terms, the monthly bill on the team's tax basis (domain/money.py)
and the unusual values the analyst confirmed, in the page's language, with pinned queries."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from domain import formatting
from quotes.models import QuoteVersion
from quotes.testing import make_quote, make_vendor

pytestmark = pytest.mark.django_db


def test_the_detail_page_shows_vat_terms_the_bill_on_the_basis_and_confirmed_outliers(
    team_a, analyst_a, client_as, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    incl = make_quote(team_a, analyst_a, make_vendor(team_a, "Incl"), label="incl",
                      price_per_node_month=Decimal("10600"), monthly_fees=Decimal("0"))  # fmt: skip
    excl = make_quote(team_a, analyst_a, make_vendor(team_a, "Excl"), label="excl",
                      price_per_node_month=Decimal("10000"), monthly_fees=Decimal("0"))  # fmt: skip
    QuoteVersion.objects.filter(pk=incl.current_version_id).update(
        prices_include_vat=True, vat_rate=6, invoice_type="special",
        outliers_confirmed=[{"field": "nic_gbps", "value": 5, "code": "unusual_nic_gbps",
                             "en": "NIC port speed 5 is below", "zh": "网卡端口速率 5 低于"}],
    )  # fmt: skip
    QuoteVersion.objects.filter(pk=excl.current_version_id).update(
        prices_include_vat=False, vat_rate=6, invoice_type="special"
    )
    page = client_as(analyst_a)
    page.cookies["django_language"] = "en"
    with django_assert_max_num_queries(12):
        html = page.get(reverse("quotes:detail", args=[incl.pk])).content.decode()
    other = page.get(reverse("quotes:detail", args=[excl.pk])).content.decode()

    def bill(h: str) -> str:
        return h.split('class="num monthly-bill">')[1].split(" <span")[0]

    # the same offer, VAT included at 6 % with a 专票 or excluded: the same bill on the basis
    assert bill(html) == bill(other)
    expected = QuoteVersion.objects.get(pk=excl.current_version_id).bill().comparable
    assert bill(html) == formatting.money(expected, "CNY", "en")
    assert "yes, VAT included" in html and "6%" in html and "Special VAT invoice" in html
    assert "excluding VAT" in html and "NIC port speed 5 is below" in html
    assert "no, VAT excluded" in other
    page.cookies["django_language"] = "zh-hans"
    zh = page.get(reverse("quotes:detail", args=[incl.pk])).content.decode()
    assert "网卡端口速率 5 低于" in zh and "不含税" in zh and "增值税税率（%）" in zh
