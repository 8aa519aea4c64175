"""Bidirectional tests read as one direction.

iperf3 ``--bidir`` and perftest ``-b`` move data both ways at once; adding the two directions
gives a figure up to twice one port's line rate, which is not what one node can send. The
result keeps each direction (``per_direction``) and their sum (``bidir_total_gbps``), and the
figure that counts, ``throughput_gbps`` with its ``interval_gbps``, is **the lower of the two
receiver-side directions**: a ring all-reduce sends and receives at once and runs at the pace of
the slower way. A tie, or a log with only the client→server receiver figure (the server's own
log), uses client→server (``forward``). ``direction_used`` names the direction taken.

perftest ``-b`` prints only the sum; its one-direction figure is half of it (both directions are
taken to carry the same), said by a warning.
"""

from __future__ import annotations

from dataclasses import replace

from domain.benchlogs import catalogue, fidelity
from domain.benchlogs.result import BIDIR, FORWARD, REVERSE, BenchResult


def one_direction(result: BenchResult) -> BenchResult:
    """The result with its headline figures reduced to one direction (see the module doc)."""
    if result.direction != BIDIR or not result.per_direction:
        return result
    received = {
        summary.label: summary.receiver_gbps
        for summary in result.per_direction
        if summary.receiver_gbps is not None and summary.label in (FORWARD, REVERSE)
    }
    if not received:
        return result
    label = min(received, key=lambda name: (received[name], name != FORWARD))
    chosen = next(summary for summary in result.per_direction if summary.label == label)
    both = len(received) == 2
    series = {item.label: item.gbps for item in result.series}
    warnings = [w for w in result.warnings if w.code != catalogue.receiver_figures_missing().code]
    warnings.append(
        fidelity.bidir_one_direction(label, received.get(FORWARD), received.get(REVERSE))
    )
    return replace(
        result,
        throughput_gbps=None if result.error is not None else received[label],
        sender_gbps=chosen.sender_gbps,
        bidir_total_gbps=sum(received.values()) if both else None,
        direction_used=label,
        interval_gbps=series.get(label, result.interval_gbps),
        warnings=tuple(warnings),
    )


def perftest_one_direction(result: BenchResult) -> BenchResult:
    """perftest ``-b``: the printed sum is kept as the total, the throughput is half of it."""
    if result.direction != BIDIR or result.throughput_gbps is None:
        return result
    return replace(
        result,
        throughput_gbps=result.throughput_gbps / 2,
        bidir_total_gbps=result.throughput_gbps,
        warnings=(*result.warnings, fidelity.perftest_bidir_halved()),
    )
