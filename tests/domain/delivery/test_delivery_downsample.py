"""The chart's timeline is merged to at most N points without hiding a dip or inventing data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from domain.delivery.report import TimelinePoint, downsample_timeline

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _point(i: int, value: float | None, measured: int = 4) -> TimelinePoint:
    known = value is not None
    return TimelinePoint(
        start=T0 + timedelta(hours=i), end=T0 + timedelta(hours=i + 1),
        delivered_gbps_min=value, delivered_gbps_mean=value, p99_latency_us_max=None,
        hosts_measured=measured if known else 0, hosts_below=0, hosts_no_data=0 if known else 4,
    )  # fmt: skip


def test_a_90_day_term_becomes_at_most_1000_points_and_keeps_its_span_and_dip() -> None:
    points = [_point(i, 100.0) for i in range(2160)]
    points[1501] = _point(1501, 12.5)
    out = downsample_timeline(points, 1000)
    assert len(out) <= 1000 and out[0].start == T0 and out[-1].end == points[-1].end
    assert min(p.delivered_gbps_min for p in out if p.delivered_gbps_min is not None) == 12.5
    assert all(out[i].end == out[i + 1].start for i in range(len(out) - 1))


def test_short_timelines_are_unchanged_and_a_merged_point_has_no_data_only_if_none_had() -> None:
    points = [_point(i, None if i in (2, 3, 5) else 50.0) for i in range(8)]
    assert downsample_timeline(points, 8) == points
    out = downsample_timeline(points, 4)  # pairs: (0,1) (2,3) (4,5) (6,7)
    assert [p.hosts_measured for p in out] == [4, 0, 4, 4]
    assert out[1].delivered_gbps_mean is None and out[2].delivered_gbps_mean == 50.0
    with pytest.raises(ValueError):
        downsample_timeline(points, 0)
