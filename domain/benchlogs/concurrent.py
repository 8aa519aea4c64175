"""Summary of logs from server pairs that ran at the same time (DOMAIN.md §4).

A single pair at full speed proves nothing about congestion; the figure the cost model takes is
the 5th percentile of every pair's interval throughput pooled together (COST-MODEL.md step 3),
because an all-reduce runs at the pace of its slowest link at its slowest moments. TCP warm-up
(slow start) is not such a moment: it is left out of the pool by the rule in warmup.py, and
what was dropped is recorded (``warmup_intervals``, ``warmup_s`` and a warning).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.benchlogs import catalogue_checks as msg
from domain.benchlogs import fidelity
from domain.benchlogs.measures import inside_one_host, jain_index, percentile
from domain.benchlogs.result import COLLECTIVE, LINK, BenchResult
from domain.benchlogs.warmup import Warmup, warmup
from domain.messages import Message


@dataclass(frozen=True)
class RunSummary:
    """Concurrent-run figures, all Gbit/s; ``measured_gbps`` feeds the cost model."""

    pairs: int
    excluded: int
    aggregate_gbps: float | None
    min_pair_gbps: float | None
    max_pair_gbps: float | None
    jain_index: float | None
    aggregate_efficiency: float | None
    tail_p5_gbps: float | None
    p50_gbps: float | None
    measured_kind: str
    warnings: tuple[Message, ...]
    warmup_intervals: int = 0
    warmup_s: float = 0.0

    @property
    def measured_gbps(self) -> float | None:
        return self.tail_p5_gbps

    @property
    def spread_gbps(self) -> tuple[float | None, float | None]:
        """P5…P50: the range the cost report shows for cost per ETH."""
        return (self.tail_p5_gbps, self.p50_gbps)


def summarise_run(results: Sequence[BenchResult], *, line_rate_gbps: float | None) -> RunSummary:
    measured = [r for r in results if r.error is None and r.throughput_gbps is not None]
    warnings: list[Message] = []
    if len(measured) < len(results):
        warnings.append(msg.run_excluded(len(results) - len(measured)))
    usable = [r for r in measured if not inside_one_host(r)]
    if len(usable) < len(measured):
        warnings.append(msg.run_one_host(len(measured) - len(usable)))
    rates = [r.throughput_gbps for r in usable if r.throughput_gbps is not None]
    pool, warm = _pooled_intervals(usable, warnings)
    kinds = {r.measured_kind for r in usable}
    if len(kinds) > 1:
        warnings.append(msg.run_mixed_kinds())
    if not _overlapping(usable):
        warnings.append(msg.run_not_concurrent())
    aggregate = sum(rates) if rates else None
    capacity = line_rate_gbps * len(rates) if line_rate_gbps and rates else None
    return RunSummary(
        pairs=len(usable),
        excluded=len(results) - len(usable),
        aggregate_gbps=aggregate,
        min_pair_gbps=min(rates) if rates else None,
        max_pair_gbps=max(rates) if rates else None,
        jain_index=jain_index(rates),
        aggregate_efficiency=aggregate / capacity if aggregate is not None and capacity else None,
        tail_p5_gbps=percentile(pool, 0.05),
        p50_gbps=percentile(pool, 0.5),
        measured_kind=COLLECTIVE if kinds == {COLLECTIVE} else LINK,
        warnings=tuple(warnings),
        warmup_intervals=sum(w.intervals for w in warm),
        warmup_s=sum(w.seconds or 0.0 for w in warm),
    )


def _pooled_intervals(
    results: list[BenchResult], warnings: list[Message]
) -> tuple[list[float], list[Warmup]]:
    """Every pair's steady intervals pooled; TCP warm-up is left out (warmup.py)."""
    pool: list[float] = []
    warm: list[Warmup] = []
    without = 0
    for result in results:
        if result.interval_gbps:
            found = warmup(result)
            if found.intervals:
                warm.append(found)
            pool.extend(result.interval_gbps[found.dropped :])
        elif result.throughput_gbps is not None:
            # perftest and nccl-tests print one figure per run: it stands in for its intervals.
            pool.append(result.throughput_gbps)
            without += 1
    if without:
        warnings.append(msg.run_without_intervals(without))
    if warm:
        intervals = sum(w.intervals for w in warm)
        seconds = sum(w.seconds or 0.0 for w in warm)
        warnings.append(fidelity.warmup_dropped(len(warm), intervals, seconds))
    return pool, warm


def _overlapping(results: list[BenchResult]) -> bool:
    """True unless the logs' own clocks show windows that do not all overlap.

    perftest and nccl-tests print no timestamp, so their logs cannot contradict concurrency.
    """
    windows = [
        (r.start_time_s, r.start_time_s + r.duration_s)
        for r in results
        if r.start_time_s is not None and r.duration_s is not None
    ]
    if len(windows) < 2:
        return True
    return max(start for start, _ in windows) < min(end for _, end in windows)
