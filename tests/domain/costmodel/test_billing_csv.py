"""CSV of 5-minute samples: the header states the unit; bad rows are named by row number."""

from __future__ import annotations

import pytest

from domain.billing import (
    BillingError,
    Percentile95Plan,
    TrafficProfile,
    monthly_cost,
    parse_samples_csv,
)


def test_units_in_the_header_convert_to_mbps() -> None:
    assert parse_samples_csv(["timestamp,mbps", "2026-01-01T00:00,120.5", "t2,80"]) == (120.5, 80.0)
    assert parse_samples_csv(["timestamp,gbps", "t,1.5"]) == (1_500.0,)
    assert parse_samples_csv(["time,kbps", "t,2500"]) == (2.5,)
    assert parse_samples_csv(["ts,bps", "t,3000000"]) == (3.0,)
    # bytes moved in one 5-minute sample: 3.75e9 B * 8 / 300 s = 100 Mbit/s
    assert parse_samples_csv(["timestamp,bytes", "t,3750000000"]) == pytest.approx((100.0,))
    assert parse_samples_csv(["\ufefftimestamp,Rate (Mbps)", "t,7"]) == (7.0,)


def test_in_and_out_columns_bill_the_busier_direction() -> None:
    lines = ["timestamp,in_mbps,out_mbps", "t1,100,300", "t2,250,50", "", "t3,0,0"]
    assert parse_samples_csv(lines) == (300.0, 250.0, 0.0)


@pytest.mark.parametrize(
    ("lines", "code"),
    [
        (["1767225600,100", "1767225900,120"], "csv_missing_unit"),
        (["timestamp", "1"], "csv_missing_unit"),
        (["timestamp,traffic", "t,100"], "csv_unknown_unit"),
        (["timestamp,mibps", "t,100"], "csv_unknown_unit"),
        ([], "csv_empty"),
        (["timestamp,mbps"], "csv_no_samples"),
    ],
)
def test_missing_or_unknown_unit(lines: list[str], code: str) -> None:
    with pytest.raises(BillingError) as err:
        parse_samples_csv(lines)
    assert err.value.message.code == code
    assert err.value.message.en and err.value.message.zh


def test_bad_rows_are_reported_with_their_row_numbers() -> None:
    lines = ["timestamp,mbps", "t1,10", "t2,abc", "t3,", "t4,-5", "t5", "t6,nan", "t7,20"]
    with pytest.raises(BillingError) as err:
        parse_samples_csv(lines)
    assert err.value.bad_rows == (3, 4, 5, 6, 7)
    assert err.value.message.code == "csv_bad_rows"
    assert "3, 4, 5, 6, 7" in err.value.message.en
    assert "第 3、4、5、6、7 行" in err.value.message.zh
    many = ["timestamp,mbps"] + ["t,x"] * 12
    with pytest.raises(BillingError) as err:
        parse_samples_csv(many)
    assert len(err.value.bad_rows) == 12 and "and 2 more" in err.value.message.en


def test_a_parsed_month_bills_like_the_hand_worked_one() -> None:
    lines = (
        ["timestamp,mbps"] + [f"{i},100" for i in range(8_208)] + [f"x{i},1000" for i in range(432)]
    )
    profile = TrafficProfile.from_samples(parse_samples_csv(lines))
    assert monthly_cost(Percentile95Plan(12.0), profile).cost == 1_200.0
