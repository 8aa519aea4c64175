"""Summary of a test run's logs (DOMAIN.md §4 and §9).

The run's figures come from one kind of test (kinds are never pooled: RDMA bandwidth first, then
TCP throughput, then a multi-host collective; UDP at a set rate and latency never count), sorted
by ``domain.evidence.sets``: tests whose windows overlap on distinct links are one concurrent set
(aggregate, fairness, tail); tests one after another on one link are repeats (never summed).
Logs without a clock are unplaced (counted link by link, never summed) unless the run is declared
simultaneous by its uploader (``declared_together``), and the notes say which.

The tail is the 5th percentile of every link's steady intervals pooled together (COST-MODEL.md
step 3), because an all-reduce runs at the pace of its slowest link at its slowest moments. TCP
warm-up (slow start) is left out of the pool by the rule in warmup.py, and what was dropped is
recorded (``warmup_intervals``, ``warmup_s`` and a warning).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.benchlogs import catalogue_checks as msg
from domain.benchlogs import fidelity
from domain.benchlogs.measures import percentile
from domain.benchlogs.result import COLLECTIVE, LINK, BenchResult
from domain.benchlogs.warmup import warmup
from domain.evidence import texts
from domain.evidence.scope import (
    COLLECTIVE_BUSBW,
    ONE_HOST,
    RDMA_BANDWIDTH,
    RDMA_LATENCY,
    TCP_THROUGHPUT,
    UDP_AT_RATE,
    Evidence,
    describe,
)
from domain.evidence.sets import Grouped, group, link_of, pooled_intervals
from domain.messages import Message

# The kind a run's figures come from, in this order: link tests are what a port's line rate is
# compared with; a collective heads the run only when it holds no link test.
RUN_KINDS = (RDMA_BANDWIDTH, TCP_THROUGHPUT, COLLECTIVE_BUSBW)


@dataclass(frozen=True)
class RunSummary:
    """Run figures, all Gbit/s, of the run's leading kind (``kind``)."""

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
    kind: str = ""

    @property
    def measured_gbps(self) -> float | None:
        return self.tail_p5_gbps

    @property
    def spread_gbps(self) -> tuple[float | None, float | None]:
        """P5…P50: the range the cost report shows for cost per ETH."""
        return (self.tail_p5_gbps, self.p50_gbps)


def evidence_of(
    results: Sequence[BenchResult], batches: Sequence[str] = (), *, declared_together: bool = False
) -> list[Evidence]:
    """Each result that gave a figure, described (labels are the results' positions; ``batches``
    names each result's test run, when they come from several; ``declared_together``: the run's
    tests were declared started at the same time)."""
    found = [
        describe(
            r, str(i), batches[i] if i < len(batches) else "", declared_together=declared_together
        )
        for i, r in enumerate(results)
    ]
    return [e for e in found if e is not None]


def summarise_run(
    results: Sequence[BenchResult],
    *,
    line_rate_gbps: float | None,
    declared_together: bool = False,
) -> RunSummary:
    """The run's figures; ``declared_together``: its uploader declared the tests were started at
    the same time (only then are untimed logs on distinct links one concurrent set)."""
    evidence = evidence_of(results, declared_together=declared_together)
    bandwidth = [e for e in evidence if e.kind != RDMA_LATENCY]
    warnings: list[Message] = []
    measured = [r for r in results if r.error is None and r.throughput_gbps is not None]
    if len(measured) < len(results):
        warnings.append(msg.run_excluded(len(results) - len(measured)))
    inside = sum(e.scope == ONE_HOST for e in bandwidth)
    if inside:
        warnings.append(msg.run_one_host(inside))
    udp = [e for e in bandwidth if e.kind == UDP_AT_RATE]
    if udp:
        warnings.append(texts.udp_not_capacity(len(udp), _one_target(udp)))
    usable = [e for e in bandwidth if e.counts_as_capacity]
    kinds = {e.kind for e in usable}
    kind = next((k for k in RUN_KINDS if k in kinds), "")
    for other in sorted(kinds - {kind}):
        warnings.append(_kept_apart(other, kind, sum(e.kind == other for e in usable)))
    grouped = group(kind, usable, honour_declaration=kind != COLLECTIVE_BUSBW)
    return _summary(grouped, results, line_rate_gbps, warnings)


def _summary(
    grouped: Grouped,
    results: Sequence[BenchResult],
    line_rate_gbps: float | None,
    warnings: list[Message],
) -> RunSummary:
    largest = grouped.largest_set
    aggregate: float | None
    jain: float | None
    if largest is not None:
        means = largest.means
        pairs, aggregate, jain = largest.links, largest.aggregate_gbps, largest.jain
    else:
        means = [r.typical_mean_gbps for r in grouped.repeats]
        pairs, jain = len(means), None
        aggregate = means[0] if pairs == 1 else None
    if _not_concurrent(grouped):
        warnings.append(msg.run_not_concurrent())
    if grouped.unplaced_matters:
        warnings.append(texts.unplaced(len(grouped.unplaced)))
    if largest is not None and largest.declared:
        warnings.append(texts.declared_set(largest.links, largest.links))
    for repeats in grouped.repeats:
        if len(repeats.logs) > 1:
            warnings.append(
                texts.repeats(len(repeats.logs), repeats.typical_gbps, repeats.worst_gbps)
            )
    logs = grouped.logs
    pool = pooled_intervals(logs)
    without = sum(not e.intervals for e in logs)
    if without:
        warnings.append(msg.run_without_intervals(without))
    warm = [warmup(results[int(e.label)]) for e in logs]
    warm = [w for w in warm if w.intervals]
    if warm:
        seconds = sum(w.seconds or 0.0 for w in warm)
        warnings.append(fidelity.warmup_dropped(len(warm), sum(w.intervals for w in warm), seconds))
    capacity = line_rate_gbps * pairs if line_rate_gbps and pairs else None
    return RunSummary(
        pairs=pairs,
        excluded=len(results) - len(logs),
        aggregate_gbps=aggregate,
        min_pair_gbps=min(means) if means else None,
        max_pair_gbps=max(means) if means else None,
        jain_index=jain,
        aggregate_efficiency=aggregate / capacity if aggregate is not None and capacity else None,
        tail_p5_gbps=percentile(pool, 0.05),
        p50_gbps=percentile(pool, 0.5),
        measured_kind=COLLECTIVE if grouped.kind == COLLECTIVE_BUSBW else LINK,
        warnings=tuple(warnings),
        warmup_intervals=sum(w.intervals for w in warm),
        warmup_s=sum(w.seconds or 0.0 for w in warm),
        kind=grouped.kind,
    )


def _not_concurrent(grouped: Grouped) -> bool:
    """Timed logs on distinct links that the largest set leaves out: their clocks show they did
    not all run at the same time (unplaced logs are said so on their own)."""
    largest = grouped.largest_set
    covered = {link_of(e) for e in largest.logs} if largest is not None else set()
    unplaced = {link_of(e) for e in grouped.unplaced}
    left = {link_of(e) for e in grouped.logs} - covered - unplaced
    return bool(left) if largest is not None else len(left) >= 2


def _one_target(udp: list[Evidence]) -> float | None:
    targets = {e.target_gbps for e in udp}
    return targets.pop() if len(targets) == 1 else None


def _kept_apart(kind: str, used: str, count: int) -> Message:
    """Named ``run_mixed_kinds``, as before: the run holds kinds that are never pooled."""
    found = texts.kind_kept_apart(kind, used, count)
    return Message("run_mixed_kinds", found.en, found.zh)
