"""Byte counters to rates, with resets and gaps treated as Prometheus treats them.

A counter only goes up; when a sample is lower than the one before, the counter restarted from
zero (the exporter or the host restarted, the driver reloaded) and the increase over that step is
the new value itself, not the difference — the rule of Prometheus's ``increase()`` and ``rate()``
(docs: "Breaks in monotonicity (such as counter resets due to target restarts) are automatically
adjusted for"). Unlike those functions nothing is extrapolated to a window's edges: each increase
belongs to the interval between its two samples, and an interval longer than ``max_gap_s`` is not
interpolated at all — its increase is unknown (no data), so a host that was down or unscraped for
an hour is neither credited with an average rate nor counted as idle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Default longest step between two samples that is still read as one interval: five minutes, the
#: default lookback of Prometheus queries (a series unseen for longer is "stale" there too).
DEFAULT_MAX_GAP_S = 300.0
BITS_PER_BYTE = 8


@dataclass(frozen=True, eq=False)
class Increases:
    """Per interval between consecutive samples: its edges, the counter's increase (NaN when the
    interval is a gap) and whether the counter restarted at its end."""

    starts: FloatArray
    ends: FloatArray
    increase: FloatArray
    resets: int
    gaps: int

    def rate_per_s(self) -> FloatArray:
        return self.increase / (self.ends - self.starts)


def increases(
    ts: FloatArray, values: FloatArray, *, max_gap_s: float = DEFAULT_MAX_GAP_S
) -> Increases:
    """Per-interval increase of a counter sampled at ``ts`` (ascending, unique, seconds).

    A drop is a reset: the increase is the later value (the counter counted from zero). NaN samples
    make their neighbouring intervals unknown. Intervals longer than ``max_gap_s`` are gaps.
    """
    ts = np.asarray(ts, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if ts.size < 2:
        empty = np.empty(0, dtype=np.float64)
        return Increases(empty, empty.copy(), empty.copy(), 0, 0)
    diff = np.diff(values)
    dropped = diff < 0
    inc = np.where(dropped, values[1:], diff)
    steps = np.diff(ts)
    gap = steps > max_gap_s
    # NaN or infinite samples (Prometheus writes "NaN", "+Inf") make their steps unknown too.
    finite = np.isfinite(values)
    unknown = ~(finite[:-1] & finite[1:])
    inc = np.where(gap | unknown, np.nan, inc)
    return Increases(
        starts=ts[:-1].copy(),
        ends=ts[1:].copy(),
        increase=inc,
        resets=int(np.count_nonzero(dropped & ~gap & ~unknown)),
        gaps=int(np.count_nonzero(gap)),
    )


def total_increase(
    ts: FloatArray, values: FloatArray, *, max_gap_s: float = DEFAULT_MAX_GAP_S
) -> float:
    """Sum of the known increases (gaps skipped): Prometheus's raw increase before extrapolation."""
    inc = increases(ts, values, max_gap_s=max_gap_s).increase
    return float(np.nansum(inc))


def bytes_per_s_to_gbps(rate: FloatArray | float) -> FloatArray | float:
    """Bytes per second to Gbit/s (decimal giga, as link speeds are quoted)."""
    return rate * BITS_PER_BYTE / 1e9


def spread_over_windows(
    inc: Increases, *, window_start: float, window_s: float, count: int
) -> tuple[FloatArray, FloatArray]:
    """Spread each interval's increase over fixed windows in proportion to time overlap.

    Returns per window (the ``count`` windows from ``window_start``): the summed increase and the
    seconds of known (non-gap) intervals covering it. A window's mean rate is then
    ``increase / covered`` where ``covered`` > 0.
    """
    total = np.zeros(count, dtype=np.float64)
    covered = np.zeros(count, dtype=np.float64)
    known = ~np.isnan(inc.increase)
    starts, ends, amount = inc.starts[known], inc.ends[known], inc.increase[known]
    if starts.size == 0:
        return total, covered
    edges = window_start + window_s * np.arange(count + 1, dtype=np.float64)
    # Cumulative increase as a piecewise-linear function of time, read at every window edge.
    length = ends - starts
    rate = amount / length
    cum_amount = np.concatenate(([0.0], np.cumsum(amount)))
    cum_time = np.concatenate(([0.0], np.cumsum(length)))
    for cum, slope in ((cum_amount, rate), (cum_time, np.ones_like(rate))):
        at = _piecewise(edges, starts, ends, cum, slope)
        if cum is cum_amount:
            total = np.diff(at)
        else:
            covered = np.diff(at)
    return total, covered


def _piecewise(
    x: FloatArray, starts: FloatArray, ends: FloatArray, cum: FloatArray, slope: FloatArray
) -> FloatArray:
    """Value at each ``x`` of the running sum over intervals (linear inside each interval)."""
    i = np.searchsorted(starts, x, side="right") - 1  # interval starting at or before x
    out = np.zeros_like(x)
    before = i < 0
    j = np.clip(i, 0, starts.size - 1)
    inside = np.minimum(x, ends[j]) - starts[j]
    out = cum[j] + slope[j] * np.clip(inside, 0.0, None)
    out[before] = 0.0
    return out
