"""Measured traffic samples from CSV: layouts, hostile input, a hand-worked 8,640-sample month."""

from __future__ import annotations

import codecs
import subprocess
import sys
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import billing
from domain import traffic_samples as ts

START = datetime(2026, 11, 1)


def month_csv(values: list[float], *, header: str = "timestamp,Mbit/s", sep: str = ",") -> str:
    rows = [header] if header else []
    rows += [f"{START + timedelta(minutes=5 * i):%Y-%m-%d %H:%M}{sep}{v:g}"
             for i, v in enumerate(values)]  # fmt: skip
    return "\n".join(rows) + "\n"


def parse(text: str | bytes) -> ts.TrafficSamples:
    data = text.encode() if isinstance(text, str) else text
    return ts.parse_bytes(data[i : i + 1000] for i in range(0, len(data), 1000))


def error_of(text: str | bytes) -> ts.TrafficSamplesError:
    with pytest.raises(ts.TrafficSamplesError) as caught:
        parse(text)
    assert caught.value.message.en and caught.value.message.zh
    return caught.value


def test_the_domain_module_does_not_load_django() -> None:
    code = "import sys, domain.traffic_samples; assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_hand_worked_month_of_8640_five_minute_samples() -> None:
    # 30 days * 288 samples. Each day: 20 samples at 800 Mbit/s, 4 at 500, the rest (264) at 100.
    # Over the month: 600 at 800, 120 at 500, 7,920 at 100. The top 5 % is 8,640 * 5 // 100 = 432
    # samples, all at 800; the highest remaining (the 8,208th from the bottom) is still 800,
    # because 600 > 432. Make only 15 a day at 800 (450 in the month): 432 dropped, 18 left -> 800.
    # Make 14 a day (420): all dropped plus 12 of the 500s -> the 95th percentile is 500.
    day = [800.0] * 14 + [500.0] * 10 + [100.0] * 264
    samples = parse(month_csv(day * 30))
    assert samples.count == 8_640 and samples.interval_s == 300 and samples.missing_samples == 0
    assert samples.percentile95_mbps == 500.0
    assert samples.peak_mbps == 800.0
    # volume: per day (14*800 + 10*500 + 264*100) Mbit/s * 300 s = 42,600 * 300 Mbit
    # = 12,780,000 Mbit = 1,597.5 GB a day; 30 days = 47,925 GB
    assert samples.monthly_gb == pytest.approx(47_925.0)
    assert samples.mean_mbps == pytest.approx(42_600 / 288)
    assert samples.days_covered == pytest.approx(30.0)
    profile = samples.profile()
    p95 = billing.monthly_cost(billing.Percentile95Plan(price_per_mbps_month=25.0), profile)
    assert p95.cost == pytest.approx(12_500.0)  # 500 Mbit/s * 25 CNY
    per_gb = billing.monthly_cost(billing.PerGbPlan(price_per_gb=0.8), profile)
    assert per_gb.cost == pytest.approx(38_340.0)  # 47,925 GB * 0.8 CNY


def test_semicolons_decimal_commas_and_gbit_header() -> None:
    text = "Zeit;Gbit/s\n2026-11-01 00:00;1,5\n2026-11-01 00:05;0,25\n"
    samples = parse(text)
    assert samples.samples_mbps == (1500.0, 250.0) and samples.unit == "Gbit/s"


def test_a_header_less_single_column_is_five_minute_mbit_with_a_warning() -> None:
    samples = parse("10\n20\n30.5\n")
    assert samples.samples_mbps == (10.0, 20.0, 30.5) and samples.interval_s == 300
    assert not samples.has_timestamps
    assert [w.code for w in samples.warnings] == ["traffic_unit_assumed"]


def test_bom_utf16_gb18030_and_crlf_are_read() -> None:
    text = "时间,带宽(Mbps)\r\n2026-11-01 00:00,10\r\n2026-11-01 00:05,12\r\n"
    assert parse(codecs.BOM_UTF8 + text.encode()).samples_mbps == (10.0, 12.0)
    assert parse(text.encode("utf-16")).samples_mbps == (10.0, 12.0)
    assert parse(text.encode("gb18030")).samples_mbps == (10.0, 12.0)


def test_unix_seconds_and_aware_timestamps() -> None:
    samples = parse("ts,kbps\n1764547200,1000\n1764547500,3000\n")
    assert samples.samples_mbps == (1.0, 3.0) and samples.interval_s == 300
    aware = parse("time,Mbps\n2026-11-01T08:00:00+08:00,1\n2026-11-01T00:05:00Z,2\n")
    assert aware.samples_mbps == (1.0, 2.0) and aware.interval_s == 300


def test_byte_rates_are_converted_to_bits() -> None:
    assert parse("time,MB/s\n2026-11-01 00:00,10\n").samples_mbps == (80.0,)


def test_rows_out_of_order_are_sorted() -> None:
    samples = parse("time,Mbps\n2026-11-01 00:05,2\n2026-11-01 00:00,1\n")
    assert samples.samples_mbps == (1.0, 2.0)


def test_gaps_are_counted_and_warned() -> None:
    values = [10.0] * 288
    text = month_csv(values).splitlines()
    kept = [text[0], *text[1:100], *text[136:]]  # drop samples 99..134: 3 hours
    samples = parse("\n".join(kept))
    assert samples.count == 252 and samples.missing_samples == 36
    gap = next(w for w in samples.warnings if w.code == "traffic_gaps")
    assert "3.1 h" in gap.en and "36" in gap.en  # 37 intervals of 5 minutes between kept rows


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("time,GB\n2026-11-01 00:00,1\n", "traffic_volume_unit"),
        ("time,furlongs\n2026-11-01 00:00,1\n", "traffic_unknown_unit"),
        ("time,Mbps\n2026-11-01 00:00,-5\n", "traffic_negative"),
        ("time,Mbps\n2026-11-01 00:00,lots\n2026-11-01 00:05,\n", "traffic_not_a_number"),
        ("time,Mbps\n2026-11-01 00:00,nan\n", "traffic_not_a_number"),
        ("time,Mbps\n2026-11-01 00:00,inf\n", "traffic_not_a_number"),
        ("time,Mbps\nyesterday,5\n", "traffic_bad_timestamp"),
        ("time,Mbps\n2026-11-01 00:00,1\n2026-11-01 00:00,2\n", "traffic_duplicate_timestamps"),
        ("time,Mbps\n2026-11-01 00:00,1\n2026-11-01T00:05Z,2\n", "traffic_mixed_time_zones"),
        ("time,Mbps\n2026-11-01 00:00,2500000000\n", "traffic_implausible_rate"),
        ("time,Mbps\n", "traffic_no_samples"),
        ("", "traffic_no_samples"),
        ("a,b,c\n1,2,3\n", "traffic_unknown_unit"),
        ("1,2,3\n", "traffic_columns"),
        ("time,Mbps\n2026-11-01 00:00,1\n2026-11-01 03:00,2\n", "traffic_interval"),
        ("x" * 10_000, "traffic_line_too_long"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "traffic_not_text"),
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "traffic_not_text"),
    ],
)
def test_hostile_input_gets_a_clear_message(text: str | bytes, code: str) -> None:
    assert error_of(text).message.code == code


def test_bad_rows_are_named_by_line() -> None:
    text = "time,Mbps\n2026-11-01 00:00,1\n2026-11-01 00:05,x\n2026-11-01 00:10,y\n"
    err = error_of(text)
    assert err.rows == (3, 4) and "3, 4" in err.message.en and "3, 4" in err.message.zh


def test_more_than_a_month_is_refused() -> None:
    err = error_of(month_csv([1.0] * (32 * 288)))
    assert err.message.code == "traffic_more_than_a_month" and "32.0 days" in err.message.en
    assert error_of("\n".join(["1"] * (31 * 288 + 1))).message.code == "traffic_more_than_a_month"


def test_a_50_mb_stream_stops_at_the_row_limit_without_reading_it_all() -> None:
    read = []

    def chunks():  # 50 MB of plausible rows, 1 MB at a time
        line = b"2026-11-01 00:00,1\n"
        block = line * (1_000_000 // len(line))
        for _ in range(50):
            read.append(len(block))
            yield block

    with pytest.raises(ts.TrafficSamplesError) as caught:
        ts.parse_bytes(chunks())
    assert caught.value.message.code == "traffic_too_many_rows"
    assert sum(read) < 5_000_000


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000))
def test_any_bytes_give_samples_or_a_clear_error(data: bytes) -> None:
    try:
        samples = parse(data)
    except ts.TrafficSamplesError as exc:
        assert exc.message.code.startswith("traffic_") and exc.message.en and exc.message.zh
    else:
        assert samples.count > 0 and all(v >= 0 for v in samples.samples_mbps)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789.,;-: \n\tTZe+abMGbit/s时间")),
               max_size=400))  # fmt: skip
def test_any_csv_like_text_gives_samples_or_a_clear_error(text: str) -> None:
    try:
        samples = parse(text)
    except ts.TrafficSamplesError as exc:
        assert exc.message.code.startswith("traffic_")
    else:
        assert all(0 <= v <= ts.MAX_PLAUSIBLE_MBPS for v in samples.samples_mbps)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=100_000, allow_nan=False), min_size=1,
                max_size=600))  # fmt: skip
def test_written_samples_read_back_and_bill_like_the_profile(values: list[float]) -> None:
    text = month_csv([float(f"{v:g}") for v in values])
    samples = parse(text)
    expected = tuple(float(f"{v:g}") for v in values)
    assert samples.samples_mbps == expected
    profile = billing.TrafficProfile.from_samples(expected)
    assert samples.percentile95_mbps == profile.percentile95_mbps()
    assert samples.monthly_gb == pytest.approx(profile.monthly_gb)
