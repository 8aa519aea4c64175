"""How numbers are written for people: the known offenders and each unit."""

from decimal import Decimal

import pytest

from domain import formatting as f


def test_money_is_grouped_with_two_places_and_its_currency() -> None:
    assert f.money(52000, "CNY", "en") == "52,000.00 CNY"
    assert f.money(Decimal("323000"), "CNY", "en") == "323,000.00 CNY"
    assert f.money(2131035.6, "CNY", "zh-hans") == "2,131,035.60 元"
    assert f.money(5500, "USD", "zh-hans") == "5,500.00 USD"
    assert f.money(None, "CNY", "en") == f.DASH


def test_measurements_keep_only_the_digits_that_matter() -> None:
    assert f.significant(91.07100000000001) == "91.07"
    assert f.significant(194.096467542016) == "194.1"
    assert f.significant(47000) == "47,000"
    assert f.number(-0.001, 2) == "0.00"
    assert f.number(float("nan")) == f.number("abc") == f.DASH


@pytest.mark.parametrize(
    ("gbps", "text"),
    [(100, "100 Gbit/s"), (194.096, "194 Gbit/s"), (12.5, "12.5 Gbit/s"), (25.0, "25 Gbit/s"),
     (0.25, "0.25 Gbit/s")],
)  # fmt: skip
def test_bandwidth_is_in_gbit_per_second(gbps: float, text: str) -> None:
    assert f.bandwidth(gbps) == text


def test_shares_and_availability_are_percentages() -> None:
    assert f.percent(0.853) == "85.3%" and f.percent(0.5) == "50%"
    assert f.percent(0.12, signed=True) == "+12%"
    assert f.availability(0.999) == "99.9%"  # never "100% (0.99900)"
    assert f.availability(0.9995) == "99.95%" and f.availability(1) == "100%"
    assert f.availability(99.9) == "99.9%"


def test_token_counts_use_wan_and_yi_in_chinese_and_k_m_b_in_english() -> None:
    assert f.tokens(57_024_000_000, "en") == "57.02B"  # was "57024 M"
    assert f.tokens(57_024_000_000, "zh-hans") == "570.24亿"
    assert f.tokens(12_500, "zh-hans") == "1.25万" and f.tokens(12_500, "en") == "12.5K"
    assert f.tokens(1e12, "zh-hans") == "1万亿" and f.tokens(999, "en") == "999"


def test_durations_name_their_unit_in_the_language() -> None:
    assert f.seconds(0.8421, "en") == "0.84 s" and f.seconds(0.8421, "zh-hans") == "0.84 秒"
    assert f.hours(2131.2, "en") == "2,131 h" and f.hours(2131.2, "zh-hans") == "2,131 小时"


def test_money_below_one_unit_keeps_its_cents_and_half_a_cent_rounds_up() -> None:
    """A 0.125 CNY price was called "0 CNY" (whole amounts) and 0.12 (the float's rounding)."""
    from domain.formatting import money

    assert money(0.125, "CNY", "en", decimals=0) == "0.13 CNY"
    assert money(0.125, "CNY", "zh-hans") == "0.13 元"
    assert money(2.675, "CNY", "en") == "2.68 CNY"
    assert money(418_999.9999999999, "CNY", "en", decimals=0) == "419,000 CNY"
    assert money(0, "CNY", "en", decimals=0) == "0 CNY"
