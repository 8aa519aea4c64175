"""Which intervals of a log are TCP warm-up, to be left out of pooled concurrent-run figures.

The rule, in order:

1. Intervals iperf3 itself marked omitted (``-O N``) are never in ``interval_gbps``; they are
   reported as dropped warm-up (rule ``omitted``) and nothing more is dropped.
2. Otherwise, for TCP (UDP has no slow start) with at least three intervals, the first one
   is dropped when it is below ``RAMP_FRACTION`` (80%) of the median of the others: TCP slow
   start visibly ramping (rule ``ramp``). A first interval within 20% of the rest is ordinary
   variation and is kept.

Only the first interval is ever judged: slow start is over within a second at data-centre
round-trip times, and a later dip is a finding, not warm-up. Results without intervals
(perftest, nccl-tests) have no warm-up to drop.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from domain.benchlogs.result import TCP, BenchResult

RAMP_FRACTION = 0.8
_MIN_INTERVALS = 3


@dataclass(frozen=True)
class Warmup:
    """Warm-up of one log: intervals dropped, their seconds, and the rule that dropped them.

    ``dropped`` counts intervals removed from ``interval_gbps`` here (0 or 1); ``omitted``
    counts the ones iperf3 left out itself (``-O``), which are already absent from the series.
    """

    dropped: int = 0
    omitted: int = 0
    seconds: float | None = None  # of the dropped interval; iperf3 -O logs do not say
    rule: str | None = None

    @property
    def intervals(self) -> int:
        return self.dropped + self.omitted


def warmup(result: BenchResult) -> Warmup:
    if result.omitted_intervals:
        return Warmup(omitted=result.omitted_intervals, rule="omitted")
    gbps = result.interval_gbps
    if (
        result.test != TCP
        or len(gbps) < _MIN_INTERVALS
        or not all(math.isfinite(value) for value in gbps[:1])
    ):
        return Warmup()
    rest = [value for value in gbps[1:] if math.isfinite(value)]
    if not rest or gbps[0] >= RAMP_FRACTION * statistics.median(rest):
        return Warmup()
    timed = len(result.interval_start_s) == len(result.interval_end_s) == len(gbps)
    seconds = result.interval_end_s[0] - result.interval_start_s[0] if timed else 1.0
    return Warmup(dropped=1, seconds=seconds, rule="ramp")


def steady_intervals(result: BenchResult) -> tuple[float, ...]:
    """The interval series without its warm-up."""
    return result.interval_gbps[warmup(result).dropped :]
