"""Counter increases: resets as Prometheus's increase() treats them, gaps left unknown."""

from __future__ import annotations

import numpy as np
import pytest

from domain.delivery.counters import (
    bytes_per_s_to_gbps,
    increases,
    spread_over_windows,
    total_increase,
)


def test_a_drop_is_a_restart_from_zero() -> None:
    # Hand-computed: 100 -> 160 (+60), 160 -> 40 (reset: +40), 40 -> 90 (+50), 90 -> 95 (+5).
    ts = np.array([0.0, 60.0, 120.0, 180.0, 240.0])
    values = np.array([100.0, 160.0, 40.0, 90.0, 95.0])
    inc = increases(ts, values, max_gap_s=300)
    assert list(inc.increase) == [60.0, 40.0, 50.0, 5.0]
    assert inc.resets == 1 and inc.gaps == 0
    assert total_increase(ts, values) == 155.0
    # Prometheus's raw increase is last - first plus the value before each reset.
    assert total_increase(ts, values) == values[-1] - values[0] + 160.0


def test_a_gap_longer_than_the_maximum_is_not_interpolated() -> None:
    ts = np.array([0.0, 60.0, 1000.0, 1060.0])
    values = np.array([0.0, 600.0, 5000.0, 5600.0])
    inc = increases(ts, values, max_gap_s=300)
    assert inc.gaps == 1
    assert np.isnan(inc.increase[1])
    assert total_increase(ts, values, max_gap_s=300) == 1200.0


def test_a_reset_across_a_gap_is_not_counted_as_a_reset() -> None:
    inc = increases(np.array([0.0, 1000.0]), np.array([500.0, 10.0]), max_gap_s=300)
    assert inc.resets == 0 and inc.gaps == 1


def test_bytes_per_second_to_gigabits() -> None:
    assert bytes_per_s_to_gbps(50e9) == pytest.approx(400.0)


def test_increases_spread_over_windows_by_time() -> None:
    # 1,000 bytes/s from t=30 to t=150, then a gap, then 2,000 bytes/s from 400 to 460.
    ts = np.array([30.0, 90.0, 150.0, 400.0, 460.0])
    values = np.array([0.0, 60_000.0, 120_000.0, 500_000.0, 620_000.0])
    inc = increases(ts, values, max_gap_s=100)
    total, covered = spread_over_windows(inc, window_start=0.0, window_s=100.0, count=5)
    assert list(covered) == pytest.approx([70.0, 50.0, 0.0, 0.0, 60.0])
    assert list(total) == pytest.approx([70_000.0, 50_000.0, 0.0, 0.0, 120_000.0])
    assert sum(total) == pytest.approx(total_increase(ts, values, max_gap_s=100))


def test_nan_and_infinite_samples_make_their_steps_unknown() -> None:
    ts = np.array([0.0, 60.0, 120.0, 180.0])
    values = np.array([0.0, np.inf, 120.0, 180.0])
    inc = increases(ts, values, max_gap_s=300)
    assert np.isnan(inc.increase[0]) and np.isnan(inc.increase[1])
    assert inc.increase[2] == 60.0 and inc.resets == 0
    assert total_increase(ts, values) == 60.0
