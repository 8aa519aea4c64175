"""Which logs ran together and which repeated one another (DOMAIN.md §9, "Concurrency").

Concurrency is by time, not by port. Logs of one kind whose time windows (the tool's own start
time and duration) overlap ran at the same time, whatever their ports:

- on one link (the same peer address) they shared it: their sum is what the link carried,
  second by second on the tools' clocks where the logs have interval times (``shared_link``);
  several iperf3 processes on ports 5401-5404 are one measurement of the link, never a quarter;
- across links they form one *concurrent set*: their figures add up, and fairness and tail say
  how they shared the fabric.

Logs on one link that did not overlap are *repeats* of one measurement: they give a typical and a
worst figure and are never summed.

A log without a start time (perftest, nccl-tests, iperf3 text without ``--timestamps``) cannot
show that it ran with another: it is *unplaced*, never guessed. Its link's logs are repeats on
their own: never summed with other links, no fairness, no tail across links
(``Grouped.unplaced``). Only the uploader's declaration that a run's tests were started at the
same time (``Evidence.declared_together``, one flag per test run) makes the untimed logs on
distinct links of that run one concurrent set, and that set says it rests on the declaration
(``ConcurrentSet.declared``), not on the logs' clocks.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from domain.benchlogs.measures import jain_index, percentile
from domain.evidence.scope import Evidence


@dataclass(frozen=True)
class Repeats:
    """Tests of one link one after another (or a single test): never summed."""

    link: str
    logs: tuple[Evidence, ...]

    @property
    def figures(self) -> list[float]:
        return [e.gbps for e in self.logs if e.gbps is not None]

    @property
    def typical_gbps(self) -> float:
        return float(statistics.median(self.figures))

    @property
    def typical_mean_gbps(self) -> float:
        """The median of the tests' own averages (what a pair's throughput is called)."""
        return float(statistics.median(e.mean_gbps or e.gbps or 0.0 for e in self.logs))

    @property
    def worst_gbps(self) -> float:
        return min(self.figures)

    @property
    def best_gbps(self) -> float:
        return max(self.figures)


@dataclass(frozen=True)
class ConcurrentSet:
    """Tests whose windows overlap on distinct links: one log per link. ``declared``: untimed
    logs taken as one set on their run's declaration, not on their clocks."""

    logs: tuple[Evidence, ...]
    declared: bool = False

    @property
    def links(self) -> int:
        return len(self.logs)

    @property
    def figures(self) -> list[float]:
        return [e.gbps for e in self.logs if e.gbps is not None]

    @property
    def means(self) -> list[float]:
        return [e.mean_gbps or e.gbps or 0.0 for e in self.logs]

    @property
    def aggregate_gbps(self) -> float:
        return sum(self.means)

    @property
    def jain(self) -> float | None:
        return jain_index(self.means)

    @property
    def pooled(self) -> list[float]:
        return pooled_intervals(self.logs)

    @property
    def tail_gbps(self) -> float | None:
        """P5 of every link's steady intervals pooled: the per-link figure under contention."""
        return percentile(self.pooled, 0.05)


@dataclass(frozen=True)
class Grouped:
    """The logs of one kind, sorted into concurrent sets and per-link repeats."""

    kind: str
    sets: tuple[ConcurrentSet, ...]
    repeats: tuple[Repeats, ...]
    # Untimed logs of runs not declared simultaneous: counted link by link among ``repeats``.
    unplaced: tuple[Evidence, ...] = ()

    @property
    def unplaced_matters(self) -> bool:
        """Unplaced logs where placing them would change the reading: the kind covers two or
        more links, so a simultaneous test cannot be told from tests one link at a time."""
        return bool(self.unplaced) and self.links >= 2

    @property
    def largest_set(self) -> ConcurrentSet | None:
        if not self.sets:
            return None
        return max(self.sets, key=lambda s: (s.links, s.aggregate_gbps))

    @property
    def links(self) -> int:
        """Distinct links this kind's logs cover."""
        found = {_key(e) for s in self.sets for e in s.logs} | {r.link for r in self.repeats}
        return len(found)

    @property
    def logs(self) -> list[Evidence]:
        return [e for s in self.sets for e in s.logs] + [e for r in self.repeats for e in r.logs]


def pooled_intervals(logs: Sequence[Evidence]) -> list[float]:
    """Every log's steady intervals; a log without intervals counts once with its figure."""
    pool: list[float] = []
    for log in logs:
        if log.intervals:
            pool.extend(log.intervals)
        elif log.gbps is not None:
            pool.append(log.gbps)
    return pool


def group(kind: str, logs: Sequence[Evidence], *, honour_declaration: bool = True) -> Grouped:
    """Sort the logs of one kind into concurrent sets and repeats (see the module doc).

    Logs without a clock on distinct links of one batch (a test run) are one set only when the
    run is declared simultaneous (``Evidence.declared_together``); otherwise they are unplaced.
    ``honour_declaration=False`` leaves every untimed log unplaced (a collective already covers
    the whole server: two of them are never one set).
    """
    same = [e for e in logs if e.kind == kind and e.gbps is not None]
    untimed = [e for e in same if e.window is None]
    declared = [e for e in untimed if e.declared_together and honour_declaration]
    unplaced = [e for e in untimed if not (e.declared_together and honour_declaration)]
    sets, singles = _declared_sets(declared)
    singles.extend(unplaced)
    for cluster in overlapping_clusters([e for e in same if e.window is not None]):
        per_link = _per_link(cluster)
        if len(per_link) >= 2:
            sets.append(ConcurrentSet(tuple(per_link)))
        else:
            singles.extend(per_link)
    by_link: dict[str, list[Evidence]] = {}
    for e in singles:
        by_link.setdefault(_key(e), []).append(e)
    repeats = tuple(Repeats(link, tuple(items)) for link, items in by_link.items())
    return Grouped(kind, tuple(sets), repeats, tuple(unplaced))


def _declared_sets(untimed: list[Evidence]) -> tuple[list[ConcurrentSet], list[Evidence]]:
    """One set per declared batch of untimed logs on two or more links (the first log of each
    link); the rest are repeats."""
    sets: list[ConcurrentSet] = []
    rest: list[Evidence] = []
    batches: dict[str, list[Evidence]] = {}
    for e in untimed:
        batches.setdefault(e.batch, []).append(e)
    for logs in batches.values():
        firsts: dict[str, Evidence] = {}
        for e in logs:
            firsts.setdefault(_key(e), e)
        if len(firsts) < 2:
            rest.extend(logs)
            continue
        sets.append(ConcurrentSet(tuple(firsts.values()), declared=True))
        chosen = {id(e) for e in firsts.values()}
        rest.extend(e for e in logs if id(e) not in chosen)
    return sets, rest


def link_of(e: Evidence) -> str:
    """The link a log stands for: its named link, else the log itself."""
    return e.link or f"log:{e.label}"


_key = link_of


def overlapping_clusters(logs: list[Evidence]) -> list[list[Evidence]]:
    """Logs chained by overlapping windows (start before the cluster's latest end)."""
    clusters: list[list[Evidence]] = []
    end = float("-inf")
    for e in sorted(logs, key=lambda e: e.window or (0.0, 0.0)):
        start, stop = e.window or (0.0, 0.0)
        if clusters and start < end:
            clusters[-1].append(e)
            end = max(end, stop)
        else:
            clusters.append([e])
            end = stop
    return clusters


def _per_link(cluster: list[Evidence]) -> list[Evidence]:
    """One evidence per link of a cluster of overlapping logs: tests sharing a link at the same
    time are summed (``shared_link``)."""
    links: dict[str, list[Evidence]] = {}
    for e in cluster:
        links.setdefault(_key(e), []).append(e)
    return [items[0] if len(items) == 1 else shared_link(items) for items in links.values()]


def shared_link(logs: Sequence[Evidence]) -> Evidence:
    """Tests that ran at the same time on one link, as one measurement of it: second by second,
    the sum of the rates of the tests running in that second (on the tools' clocks), so the
    link's figure is what it carried; without interval times, the sum of the tests' figures."""
    first = logs[0]
    windows = [e.window for e in logs if e.window is not None]
    start = min(w[0] for w in windows) if windows else first.start_s
    end = max(w[1] for w in windows) if windows else None
    timed = all(e.interval_at and len(e.interval_at) == len(e.intervals) for e in logs)
    if timed:
        seconds: dict[int, float] = {}
        for e in logs:
            for when, rate in zip(e.interval_at, e.intervals, strict=True):
                seconds[int(when)] = seconds.get(int(when), 0.0) + rate
        series = tuple(seconds[k] for k in sorted(seconds))
        gbps = percentile(series, 0.05)
        mean = float(statistics.fmean(series)) if series else None
        at = tuple(float(k) + 0.5 for k in sorted(seconds))
    else:
        series, at = (), ()
        gbps = sum(e.gbps or 0.0 for e in logs)
        mean = sum(e.mean_gbps or e.gbps or 0.0 for e in logs)
    return Evidence(
        label=first.label,
        kind=first.kind,
        scope=first.scope,
        direction=first.direction,
        gbps=gbps,
        mean_gbps=mean,
        intervals=series,
        link=first.link,
        hosts=first.hosts,
        ranks=first.ranks,
        start_s=start,
        duration_s=(end - start) if start is not None and end is not None else None,
        target_gbps=first.target_gbps,
        streams=sum(e.streams or 1 for e in logs),
        tool=first.tool,
        batch=first.batch,
        declared_together=first.declared_together,
        interval_at=at,
        tests=sum(e.tests for e in logs),
    )
