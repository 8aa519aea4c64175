"""The JSON shape a management command or API prints for a parsed log.

Keys are fixed (callers and stored reports depend on them); every float is finite or null, so
the output is strict JSON.
"""

from __future__ import annotations

import math

from domain.benchlogs.measures import coefficient_of_variation, percentile
from domain.benchlogs.result import BenchResult, LatencyStats, StreamSummary
from domain.benchlogs.warmup import warmup
from domain.messages import Message

KEYS = (
    "file",
    "tool",
    "test",
    "throughput_gbps",
    "sender_gbps",
    "retransmits",
    "streams",
    "duration_s",
    "intervals",
    "interval_gbps",
    "cv",
    "p5_gbps",
    "lost_percent",
    "jitter_ms",
    "latency_us",
    "sizes",
    "link_type",
    "warnings",
    "error",
    # Added after the first release; stored results without them still load (missing = not
    # measured).
    "avg_busbw_gbps",
    "bidir_total_gbps",
    "direction_used",
    "directions",
    "interval_sent_gbps",
    "omitted_intervals",
    "warmup",
    "latency_sizes",
    "hosts",
    "ranks",
)


def _f(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def result_to_json(result: BenchResult, file: str) -> dict[str, object]:
    latency = result.latency
    series = result.interval_gbps
    return {
        "file": file,
        "tool": result.tool,
        "test": result.test,
        "throughput_gbps": _f(result.throughput_gbps),
        "sender_gbps": _f(result.sender_gbps),
        "retransmits": result.retransmits,
        "streams": result.streams,
        "duration_s": _f(result.duration_s),
        "intervals": len(series),
        "interval_gbps": [_f(value) for value in series],
        "cv": _f(coefficient_of_variation(series)) if len(series) > 1 else None,
        "p5_gbps": _f(percentile(series, 0.05)) if series else None,
        "lost_percent": _f(result.lost_percent),
        "jitter_ms": _f(result.jitter_ms),
        "latency_us": None
        if latency is None
        else {
            "min": _f(latency.min_us),
            "typical": _f(latency.typical_us),
            "avg": _f(latency.avg_us),
            "p99": _f(latency.p99_us),
            "p999": _f(latency.p999_us),
        },
        "sizes": [
            {
                "bytes": row.bytes,
                "bw_avg_gbps": _f(row.bw_avg_gbps),
                "bw_peak_gbps": _f(row.bw_peak_gbps),
            }
            for row in result.sizes
            if row.latency is None
        ],
        "link_type": result.link_type,
        "warnings": [warning.en for warning in result.warnings],
        "error": result.error.en if result.error else None,
        **fidelity_fields(result),
    }


def fidelity_fields(result: BenchResult) -> dict[str, object]:
    """Per-direction figures, the latency size table, warm-up and the nccl-tests average."""
    found = warmup(result)
    return {
        "avg_busbw_gbps": _f(result.avg_busbw_gbps),
        "bidir_total_gbps": _f(result.bidir_total_gbps),
        "direction_used": result.direction_used,
        "directions": [_direction(summary) for summary in result.per_direction],
        "interval_sent_gbps": [_f(value) for value in result.interval_sent_gbps],
        "omitted_intervals": result.omitted_intervals,
        "warmup": None
        if not found.intervals
        else {
            "dropped": found.dropped,
            "omitted": found.omitted,
            "seconds": _f(found.seconds),
            "rule": found.rule,
        },
        "latency_sizes": [
            {"bytes": row.bytes, "iterations": row.iterations, **_latency(row.latency)}
            for row in result.sizes
            if row.latency is not None
        ],
        "hosts": result.hosts,
        "ranks": result.ranks,
    }


def _direction(summary: StreamSummary) -> dict[str, object]:
    return {
        "label": summary.label,
        "receiver_gbps": _f(summary.receiver_gbps),
        "sender_gbps": _f(summary.sender_gbps),
        "bytes_received": _f(summary.bytes_received),
        "bytes_sent": _f(summary.bytes_sent),
        "retransmits": summary.retransmits,
    }


def _latency(stats: LatencyStats) -> dict[str, float | None]:
    return {
        "min": _f(stats.min_us),
        "typical": _f(stats.typical_us),
        "avg": _f(stats.avg_us),
        "max": _f(stats.max_us),
        "stdev": _f(stats.stdev_us),
        "p99": _f(stats.p99_us),
        "p999": _f(stats.p999_us),
    }


def error_to_json(file: str, message: Message) -> dict[str, object]:
    """The same shape for a file that could not be parsed at all."""
    shape: dict[str, object] = dict.fromkeys(KEYS)
    shape.update(file=file, intervals=0, interval_gbps=[], sizes=[], warnings=[], error=message.en)
    shape.update(directions=[], interval_sent_gbps=[], omitted_intervals=0, latency_sizes=[])
    return shape
