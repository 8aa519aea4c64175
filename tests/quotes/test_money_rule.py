"""The one money rule (domain/money.py): the quote list's SQL equals it to the cent, and quotes
of one offer priced with and without VAT cost the same after normalisation, on the list and in a
ranking."""

from __future__ import annotations

import random
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from domain import money
from quotes.filters import with_monthly_rent
from quotes.models import GpuModel, Quote, QuoteVersion
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.services import rank_snapshot, snapshot_build

CURRENCIES = (("CNY", None), ("USD", "7.123456"), ("EUR", "7.8"), ("HKD", "0.91"))


def _generated(team, vendor, gpu, count: int, seed: int) -> list[Quote]:  # type: ignore[no-untyped-def]
    rnd = random.Random(seed)
    quotes = Quote.objects.bulk_create(
        [Quote(team=team, vendor=vendor, label=f"gen {i}") for i in range(count)]
    )
    versions = []
    for q in quotes:
        currency, fx = rnd.choice(CURRENCIES)
        stated = rnd.random() < 0.8
        versions.append(QuoteVersion(
            quote=q, number=1, gpu=gpu, gpus_per_node=8, nodes=rnd.randint(1, 64),
            price_per_node_month=Decimal(rnd.randint(100, 9_000_000)) / 100,
            currency=currency, fx_to_cny=None if fx is None else Decimal(fx),
            monthly_fees=Decimal(rnd.randint(0, 5_000_000)) / 100,
            nic_gbps=100, fabric="roce",
            term_months=rnd.choice((1, 3, 7, 11, 12, 13, 36)),
            setup_fee=Decimal(rnd.randint(0, 9_999_999)) / 100,
            storage_tb=Decimal(rnd.randint(0, 50_000)) / 100,
            storage_price_tb_month=Decimal(rnd.randint(0, 99_999)) / 100,
            public_bandwidth_mbps=rnd.choice((0, 1, 100, 1000, 3333)),
            bandwidth_billing=rnd.choice(("fixed", "per_gb", "p95")),
            bandwidth_price=Decimal(rnd.randint(0, 999_999)) / 10_000,
            prices_include_vat=rnd.choice((True, False)) if stated else None,
            vat_rate=rnd.choice(money.VAT_RATES) if stated else None,
            invoice_type=rnd.choice(("", *money.INVOICE_TYPES)),
        ))  # fmt: skip
    QuoteVersion.objects.bulk_create(versions)
    for q, v in zip(quotes, versions, strict=True):
        q.current_version = v
    Quote.objects.bulk_update(quotes, ["current_version"])
    return quotes


@pytest.mark.parametrize("basis", money.TAX_BASES)
def test_sql_rent_equals_the_domain_bill_to_the_cent(team_a, basis) -> None:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team_a, "Gen")
    gpu = GpuModel.objects.get(key="H100-SXM")
    _generated(team_a, vendor, gpu, 400, seed=15)
    rows = with_monthly_rent(Quote.objects.filter(team=team_a), basis).select_related(
        "current_version"
    )
    checked = 0
    for q in rows:
        expected = q.current_version.bill(basis=basis).comparable
        assert q.rent == expected, (q.current_version.__dict__, q.rent, expected)
        checked += 1
    assert checked == 400
    # the generator did reach every branch of the tax rule
    kinds = {
        (v.prices_include_vat, v.invoice_type == money.INVOICE_SPECIAL)
        for v in QuoteVersion.objects.filter(quote__team=team_a)
    }
    assert {(True, True), (True, False), (False, True), (False, False), (None, False)} <= kinds


def _pair(team, user):  # type: ignore[no-untyped-def]
    """One offer entered twice: 13 % VAT included with a 专票, and the same without VAT."""
    vendor = make_vendor(team, "Same offer")
    inclusive = make_quote(
        team, user, vendor, label="with VAT", price_per_node_month=Decimal("45200"),
        monthly_fees=Decimal("3390"), setup_fee=Decimal("13560"), term_months=12,
        prices_include_vat=True, vat_rate=13, invoice_type="special",
    )  # fmt: skip
    exclusive = make_quote(
        team, user, vendor, label="without VAT", price_per_node_month=Decimal("40000"),
        monthly_fees=Decimal("3000"), setup_fee=Decimal("12000"), term_months=12,
        prices_include_vat=False, vat_rate=13, invoice_type="special",
    )  # fmt: skip
    return inclusive, exclusive


def test_vat_inclusive_and_exclusive_cost_the_same_on_the_quote_list(
    team_a, analyst_a, client_as
) -> None:  # type: ignore[no-untyped-def]
    _pair(team_a, analyst_a)
    page = client_as(analyst_a).get(reverse("quotes:list"), {"sort": "rent"})
    html = page.content.decode()
    rents = re.findall(r'<td class="num rent">([^<]+)</td>', html)
    # 8 x 40,000 + 3,000 + 12,000 / 12 = 324,000 either way
    assert rents == ["324,000 CNY", "324,000 CNY"], rents
    assert "Prices compared excluding VAT" in html
    zh = client_as(analyst_a).get(reverse("quotes:list"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "不含税口径" in zh.content.decode()


def test_vat_inclusive_and_exclusive_cost_the_same_in_a_ranking(team_a, analyst_a) -> None:  # type: ignore[no-untyped-def]
    inclusive, exclusive = _pair(team_a, analyst_a)
    workload = make_workload(team_a)
    snapshot = snapshot_build(workload=workload, quotes=[inclusive, exclusive], fx={})
    assert snapshot["tax_basis"] == "excl_vat"
    results = {r.offer_id: r for r in rank_snapshot(snapshot).results}
    a = results[str(inclusive.current_version_id)]
    b = results[str(exclusive.current_version_id)]
    assert a.cost_per_eth == pytest.approx(b.cost_per_eth, rel=1e-12)
    assert a.hourly_cost * 730 == pytest.approx(324_000, abs=0.01)
    # an ordinary invoice makes the VAT a real cost: the same inclusive price is dearer
    team_a.tax_basis = "excl_vat"
    ordinary = make_quote(
        team_a, analyst_a, inclusive.vendor, label="with VAT, 普票",
        price_per_node_month=Decimal("45200"), monthly_fees=Decimal("3390"),
        setup_fee=Decimal("13560"), prices_include_vat=True, vat_rate=13, invoice_type="ordinary",
    )  # fmt: skip
    snapshot = snapshot_build(workload=workload, quotes=[inclusive, ordinary], fx={})
    results = {r.offer_id: r for r in rank_snapshot(snapshot).results}
    dear = results[str(ordinary.current_version_id)]
    assert dear.hourly_cost * 730 == pytest.approx(324_000 * 1.13, abs=0.01)


def test_team_basis_including_vat_grosses_up_exclusive_prices(team_a, analyst_a) -> None:  # type: ignore[no-untyped-def]
    inclusive, exclusive = _pair(team_a, analyst_a)
    team_a.tax_basis = money.BASIS_INCLUDING_VAT
    team_a.save()
    rows = {
        q.label: q.rent
        for q in with_monthly_rent(Quote.objects.filter(team=team_a), team_a.tax_basis)
    }
    assert rows == {"with VAT": Decimal("366120.00"), "without VAT": Decimal("366120.00")}


def test_the_compare_view_shows_the_same_bill_as_the_list(team_a, analyst_a, client_as) -> None:  # type: ignore[no-untyped-def]
    inclusive, exclusive = _pair(team_a, analyst_a)
    page = client_as(analyst_a).get(reverse("quotes:compare"), {"q": [inclusive.pk, exclusive.pk]})
    html = page.content.decode()
    assert "Monthly bill (CNY, comparison basis)" in html
    assert html.count("324,000.00 CNY") == 2 and "Prices compared excluding VAT" in html


def test_list_compare_ranking_and_report_agree_to_the_cent_on_the_demo(team_a, analyst_a) -> None:  # type: ignore[no-untyped-def]
    """One money rule: on the demo data the quote list (SQL), the domain bill, the compare view,
    the ranking's results and the report built from them give each offer the same monthly bill."""
    import quotes.demo
    import rankings.demo
    import vendors.demo
    from rankings.compare import bill_row
    from rankings.models import RankingRun
    from reports.selectors import report_data

    vendors.demo.load(team=team_a, user=analyst_a)
    quotes.demo.load(team=team_a, user=analyst_a)
    rankings.demo.load(team=team_a, user=analyst_a)
    basis = team_a.tax_basis
    listed = {
        q.current_version_id: q.rent
        for q in with_monthly_rent(Quote.objects.filter(team=team_a, is_current=True), basis)
    }
    shown = list(Quote.objects.filter(team=team_a, is_current=True).select_related(
        "current_version__gpu").order_by("pk"))  # fmt: skip
    cells = bill_row(shown, basis)["cells"]
    compared = {q.current_version_id: c["value"] for q, c in zip(shown, cells, strict=True)}
    run = RankingRun.objects.get(team=team_a)
    data = report_data(run=run)
    assert data.results, "the demo ranking has results"
    for r in data.results:
        version = QuoteVersion.objects.get(pk=int(r.offer_id))
        domain_bill = version.bill(basis=basis).comparable
        assert r.currency == "CNY"
        assert listed[version.pk] == domain_bill
        assert Decimal(str(compared[version.pk])).quantize(Decimal("0.01")) == domain_bill
        assert Decimal(str(r.monthly_rent)).quantize(Decimal("0.01")) == domain_bill
