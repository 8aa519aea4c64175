"""domain/money.py: the bill's parts, currency conversion and the tax basis rule."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import numpy as np
import pytest

from domain import money
from domain.money import TaxTerms, Terms


def test_the_bill_adds_rent_fees_storage_setup_and_fixed_bandwidth() -> None:
    t = Terms(
        nodes=4, price_per_node_month=Decimal("52500"), monthly_fees=Decimal("100"),
        storage_tb=Decimal("10"), storage_price_tb_month=Decimal("100"),
        setup_fee=Decimal("12000"), term_months=12, public_bandwidth_mbps=100,
        bandwidth_price=Decimal("25"),
    )  # fmt: skip
    bill = money.monthly_bill(t)
    assert bill.rent == Decimal("210000")
    assert bill.fees == Decimal("100") + 1000 + 1000 + 2500
    assert bill.monthly == Decimal("214600")
    assert bill.comparable == Decimal("214600.00") and bill.tax_assumed
    assert bill.hourly_comparable == pytest.approx(214600 / 730)
    per_gb = money.monthly_bill(replace(t, bandwidth_billing="per_gb"))
    assert per_gb.public_bandwidth == 0 and per_gb.monthly == Decimal("212100")
    assert money.monthly_bill(t, billed_nodes=2).rent == Decimal("105000")


def test_one_currency_rule() -> None:
    assert money.fx_rate("CNY") == 1 and money.fx_rate("usd", "7.1") == Decimal("7.1")
    assert money.to_cny(10.0, "USD", 7.1) == pytest.approx(71.0)
    assert money.rate_from("EUR", {"EUR": 7.8}) == Decimal("7.8")
    assert money.rate_from("EUR", {}) is None and money.rate_from("CNY", {}) == 1
    with pytest.raises(money.MoneyError) as err:
        money.fx_rate("USD", None)
    assert "USD" in err.value.message.en and "人民币汇率" in err.value.message.zh
    bill = money.monthly_bill(
        Terms(nodes=1, price_per_node_month=Decimal("1000"), currency="USD", fx_to_cny=Decimal("7"))
    )
    assert bill.monthly == Decimal("1000") and bill.comparable == Decimal("7000.00")
    with pytest.raises(money.MoneyError):
        _ = money.monthly_bill(
            Terms(nodes=1, price_per_node_month=Decimal("1000"), currency="USD")
        ).comparable


@pytest.mark.parametrize(
    ("included", "invoice", "basis", "expected"),
    [
        (True, "special", "excl_vat", Decimal("100.00")),  # 113 / 1.13: VAT deducted
        (True, "ordinary", "excl_vat", Decimal("113.00")),  # VAT is a real cost
        (True, "none", "excl_vat", Decimal("113.00")),
        (False, "special", "excl_vat", Decimal("100.00")),
        (False, "ordinary", "excl_vat", Decimal("113.00")),  # 100 x 1.13 paid, not deductible
        (True, "special", "incl_vat", Decimal("113.00")),
        (False, "special", "incl_vat", Decimal("113.00")),
    ],
)
def test_the_tax_basis_rule(included, invoice, basis, expected) -> None:  # type: ignore[no-untyped-def]
    price = Decimal("113") if included else Decimal("100")
    t = Terms(nodes=1, price_per_node_month=price, prices_include_vat=included, vat_rate=13,
              invoice_type=invoice)  # fmt: skip
    assert money.monthly_bill(t, basis=basis).comparable == expected


def test_unstated_vat_is_taken_as_entered_and_says_so() -> None:
    bill = money.monthly_bill(Terms(nodes=1, price_per_node_month=Decimal("113")))
    assert bill.tax_assumed and bill.comparable == Decimal("113.00")
    assert "as entered" in money.TAX_ASSUMED.en and "按录入金额" in money.TAX_ASSUMED.zh


def test_bad_vat_terms_get_messages_in_both_languages() -> None:
    fields = {f for f, _ in money.tax_problems(TaxTerms(None, Decimal(6), ""))}
    assert fields == {"prices_include_vat"}
    found = dict(money.tax_problems(TaxTerms(True, None, "fapiao")))
    assert set(found) == {"vat_rate", "invoice_type"}
    assert "专票" in found["invoice_type"].en and "发票类型" in found["invoice_type"].zh
    assert money.tax_problems(TaxTerms(True, Decimal(7), ""))[0][1].code == "money_vat_rate_unknown"
    assert money.tax_problems(TaxTerms(False, Decimal(6), "special")) == []
    with pytest.raises(money.MoneyError):
        money.tax_factor(TaxTerms(), "gross")


def test_the_basis_is_stated_in_both_languages() -> None:
    assert "excluding VAT" in money.basis_label().en and "不含税口径" in money.basis_label().zh
    assert "含税口径" in money.basis_label("incl_vat").zh


def test_monthly_total_is_one_formula_for_numbers_and_arrays() -> None:
    assert money.monthly_total(2, 10.0, 5.0, 2.0) == 50.0
    arr = money.monthly_total(np.array([1, 2]), np.array([10.0, 10.0]), np.array([0.0, 5.0]))
    assert arr.tolist() == [10.0, 25.0]
    assert money.hourly(730) == 1
