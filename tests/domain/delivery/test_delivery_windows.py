"""Windows: delivered bandwidth per server from counters, coverage, up, and kit rounds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from domain.delivery.series import Ingest, IngestCounts, Series
from domain.delivery.windows import RX, TX, KitTest, aggregate, is_data_device, windows_from_tests

H = 3600.0
T0 = 1_795_000_000 - 1_795_000_000 % 3600  # on the hour


def counter(gbps: float, hours: float, *, start: float = T0, step: float = 60.0) -> Series:
    ts = np.arange(start, start + hours * H + step / 2, step)
    return Series(ts, (ts - start) * gbps * 1e9 / 8)


def ingest(series: dict[tuple[str, str, str], Series]) -> Ingest:
    return Ingest(series=series, counts=IngestCounts(series=len(series)))


@pytest.mark.parametrize(
    ("device", "counts"),
    [
        ("eth0", True),
        ("ib0", True),
        ("enp65s0f0", True),
        ("mlx5_0", True),
        ("lo", False),
        ("docker0", False),
        ("veth1a2b3c", False),
        ("br-1234abcd", False),
        ("virbr0", False),
        ("cni0", False),
        ("bond0", False),
        ("", False),
    ],
)
def test_which_devices_carry_data(device: str, counts: bool) -> None:
    assert is_data_device(device) is counts


def test_devices_are_summed_per_direction_and_the_busier_direction_counts() -> None:
    data = ingest(
        {
            ("gpu01", "ib0", TX): counter(200, 3),
            ("gpu01", "ib1", TX): counter(150, 3),
            ("gpu01", "ib0", RX): counter(100, 3),
            ("gpu01", "lo", TX): counter(900, 3),  # loopback: never counted
            ("gpu01", "docker0", RX): counter(900, 3),
        }
    )
    windows = aggregate(data, window_s=H, committed_hosts=["gpu01", "gpu02"])
    mine = [w for w in windows if w.host == "gpu01"]
    assert len(mine) == 3
    assert [w.delivered_gbps for w in mine] == pytest.approx([350.0] * 3)
    assert all(w.coverage == pytest.approx(1.0) and not w.saturating for w in mine)
    others = [w for w in windows if w.host == "gpu02"]
    assert [w.delivered_gbps for w in others] == [None] * 3
    assert [w.coverage for w in others] == [0.0] * 3


def test_a_counter_reset_does_not_make_a_negative_or_huge_rate() -> None:
    s = counter(100, 2)
    values = s.values.copy()
    values[60:] -= values[60]  # the host restarted at the hour: its counter starts again from 0
    data = ingest({("gpu01", "eth0", TX): Series(s.ts, values)})
    windows = aggregate(data, window_s=H, committed_hosts=["gpu01"])
    # The reset step (59 → 60 min) counts the new value, 0: that minute's bytes are lost, as in
    # Prometheus's increase(), and nothing is negative or huge.
    assert [w.delivered_gbps for w in windows] == pytest.approx([100.0 * 59 / 60, 100.0])


def test_a_gap_lowers_the_coverage_not_the_rate() -> None:
    s = counter(100, 2)
    keep = (s.ts < T0 + 1800) | (s.ts >= T0 + 3000)  # 20 minutes missing in the first hour
    data = ingest({("gpu01", "eth0", TX): Series(s.ts[keep], s.values[keep])})
    first, second = aggregate(data, window_s=H, committed_hosts=["gpu01"], max_gap_s=300)
    assert first.delivered_gbps == pytest.approx(100.0)
    # Samples at minutes 0-29 and 50-60: the 21-minute step is a gap, 29 + 10 minutes are known.
    assert first.coverage == pytest.approx(39 / 60)
    assert second.coverage == pytest.approx(1.0)


def test_up_is_the_share_of_up_samples() -> None:
    ts = np.arange(T0, T0 + H, 60.0)
    up = np.ones_like(ts)
    up[:15] = 0
    data = ingest({("gpu01", "eth0", TX): counter(10, 1), ("gpu01", "", "up"): Series(ts, up)})
    (window,) = [w for w in aggregate(data, window_s=H, committed_hosts=["gpu01"]) if w.samples]
    assert window.up_fraction == pytest.approx(0.75)
    assert window.samples == 60 + 60  # the counter's 61st sample opens the next window


def test_kit_rounds_give_each_server_its_busier_direction() -> None:
    start = datetime(2026, 11, 3, 2, 5, tzinfo=UTC)
    end = start + timedelta(seconds=30)
    tests = [
        KitTest("gpu01", "gpu02", start, end, 180.0, None, "iperf3"),
        KitTest("gpu01", "gpu03", start, end, 170.0, 3.0, "ib_write_bw"),
        KitTest("gpu02", "gpu03", start + timedelta(seconds=1), end, 150.0, 5.0, "ib_write_bw"),
        # A second round in the same hour: its figure is averaged with the first.
        KitTest(
            "gpu01",
            "gpu02",
            start + timedelta(minutes=30),
            end + timedelta(minutes=30),
            250.0,
            None,
            "iperf3",
        ),
    ]
    windows = {w.host: w for w in windows_from_tests(tests, window_s=H)}
    assert windows["gpu01"].delivered_gbps == pytest.approx((350.0 + 250.0) / 2)
    assert windows["gpu02"].delivered_gbps == pytest.approx((180.0 + 250.0) / 2)
    assert windows["gpu03"].delivered_gbps == pytest.approx(320.0)
    assert windows["gpu03"].p99_latency_us == pytest.approx(np.percentile([3.0, 5.0], 99))
    assert windows["gpu02"].saturating and windows["gpu02"].start == datetime(
        2026, 11, 3, 2, tzinfo=UTC
    )
    assert windows["gpu01"].source == "kit:ib_write_bw,iperf3"
