"""Series measures over parsed results: percentiles, variation, dips, fairness, efficiency.

Conventions, fixed here so every screen and report agrees:
- percentiles interpolate linearly between closest ranks (numpy's default ``linear`` method);
- the coefficient of variation is the population standard deviation over the mean;
- a dip is a run of consecutive intervals below 90% of the median interval.
NaN values (a stream absent from an interval) are ignored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from domain.benchlogs.result import BIDIR, COLLECTIVE, BenchResult

DIP_FRACTION = 0.9


def _finite(values: Sequence[float]) -> list[float]:
    return [value for value in values if math.isfinite(value)]


def _scaled(values: list[float]) -> list[float]:
    """Values over their largest magnitude: ratios are unchanged and squares cannot overflow."""
    largest = max((abs(value) for value in values), default=0.0)
    return [value / largest for value in values] if largest > 0 else values


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """The ``fraction`` (0…1) percentile, linearly interpolated; None for no values."""
    ordered = sorted(_finite(values))
    if not ordered:
        return None
    position = (len(ordered) - 1) * min(max(fraction, 0.0), 1.0)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    weight = position - low
    return ordered[low] * (1 - weight) + ordered[high] * weight


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    data = _scaled(_finite(values))
    if not data:
        return None
    mean = sum(data) / len(data)
    if mean == 0:
        return None
    variance = sum((value - mean) ** 2 for value in data) / len(data)
    return math.sqrt(variance) / mean


def inside_one_host(result: BenchResult) -> bool:
    """A collective test (nccl-tests) whose ranks all ran on one host, by its own rank lines.

    Its bus bandwidth is that of the links inside the server (NVLink, xGMI or PCIe), so it is
    neither compared with a NIC port's line rate nor taken as the network's measured figure.
    A log that names no host (an older header) is not presumed to be one.
    """
    return result.measured_kind == COLLECTIVE and result.hosts == 1


def line_rate_efficiency(result: BenchResult, line_rate_gbps: float | None) -> float | None:
    """Throughput ÷ line rate, one direction against one port.

    A parsed bidirectional result's throughput is already one direction (directions.py). A
    result stored before that rule (bidir with neither ``bidir_total_gbps`` nor
    ``direction_used``) holds the sum of both, so it is compared with twice the line rate.
    """
    if result.throughput_gbps is None or not line_rate_gbps or line_rate_gbps <= 0:
        return None
    summed = result.bidir_total_gbps is None and result.direction_used is None
    directions = 2 if result.direction == BIDIR and summed else 1
    return result.throughput_gbps / (line_rate_gbps * directions)


@dataclass(frozen=True)
class Stability:
    intervals: int
    mean_gbps: float
    min_gbps: float
    max_gbps: float
    cv: float | None
    p5_gbps: float
    p50_gbps: float
    p95_gbps: float
    longest_dip_s: float
    longest_dip_intervals: int


def stability(result: BenchResult) -> Stability | None:
    """Stability of the interval series; None when the log has no intervals."""
    return series_stability(result.interval_gbps, result.interval_start_s, result.interval_end_s)


def series_stability(
    gbps: Sequence[float], start_s: Sequence[float] = (), end_s: Sequence[float] = ()
) -> Stability | None:
    data = _finite(gbps)
    if not data:
        return None
    p5, p50, p95 = (percentile(data, q) for q in (0.05, 0.5, 0.95))
    assert p5 is not None and p50 is not None and p95 is not None  # data is not empty
    dip_s, dip_n = longest_dip(gbps, start_s, end_s, DIP_FRACTION * p50)
    return Stability(
        intervals=len(data),
        mean_gbps=sum(data) / len(data),
        min_gbps=min(data),
        max_gbps=max(data),
        cv=coefficient_of_variation(data),
        p5_gbps=p5,
        p50_gbps=p50,
        p95_gbps=p95,
        longest_dip_s=dip_s,
        longest_dip_intervals=dip_n,
    )


def longest_dip(
    gbps: Sequence[float], start_s: Sequence[float], end_s: Sequence[float], below: float
) -> tuple[float, int]:
    """Longest run of consecutive intervals under ``below``: (seconds, intervals).

    Without interval times each interval counts as one second, iperf3's default.
    """
    timed = len(start_s) == len(gbps) == len(end_s)
    best_s, best_n, run_s, run_n = 0.0, 0, 0.0, 0
    for index, value in enumerate(gbps):
        if math.isfinite(value) and value < below:
            run_n += 1
            run_s += (end_s[index] - start_s[index]) if timed else 1.0
            if (run_s, run_n) > (best_s, best_n):
                best_s, best_n = run_s, run_n
        else:
            run_s, run_n = 0.0, 0
    return best_s, best_n


def jain_index(values: Sequence[float]) -> float | None:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all equal, 1/n when one takes all."""
    data = _scaled(_finite(values))
    squares = sum(value * value for value in data)
    if not data or squares == 0:
        return None
    return sum(data) ** 2 / (len(data) * squares)
