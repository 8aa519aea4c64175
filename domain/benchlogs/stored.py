"""A stored parse result (the JSON ``benchmarks`` keeps per log) rebuilt as a ``BenchResult``.

The one place stored results become domain objects again: the evidence record
(``domain.evidence.record``) and every summary read them through ``result_from_stored``.
Keys added later (directions, size tables, warm-up) may be missing from older results: each then
takes the value "not in the log", so old results load and judge as before.
"""

from __future__ import annotations

import math
from typing import Any

from domain.benchlogs.result import (
    BenchResult,
    LatencyStats,
    Series,
    SizeRow,
    StreamSummary,
)
from domain.messages import Message


def _message(value: Any) -> Message | None:
    if isinstance(value, dict) and value.get("en"):
        return Message(code=str(value.get("code") or ""), en=value["en"], zh=value.get("zh") or "")
    if isinstance(value, str) and value:
        return Message(code="", en=value, zh=value)
    return None


def _floats(values: Any) -> tuple[float, ...]:
    """A stored series as floats; a null (non-finite at parse time) becomes NaN, which the
    domain's measures skip."""
    return tuple(math.nan if v is None else float(v) for v in values or ())


def _timing(values: Any, count: int) -> tuple[float, ...]:
    times = _floats(values)
    return times if len(times) == count and all(math.isfinite(t) for t in times) else ()


def _opt_float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _directions(values: Any) -> tuple[StreamSummary, ...]:
    return tuple(
        StreamSummary(
            label=str(d.get("label") or ""),
            receiver_gbps=_opt_float(d.get("receiver_gbps")),
            sender_gbps=_opt_float(d.get("sender_gbps")),
            bytes_received=_opt_float(d.get("bytes_received")),
            bytes_sent=_opt_float(d.get("bytes_sent")),
            retransmits=d.get("retransmits") if isinstance(d.get("retransmits"), int) else None,
        )
        for d in values or ()
        if isinstance(d, dict)
    )


def _sizes(data: dict[str, Any]) -> tuple[SizeRow, ...]:
    """The size tables: bandwidth rows (``sizes``) and latency rows (``latency_sizes``).

    Results stored before the parsers kept them have no ``latency_sizes``; their bandwidth
    rows still load.
    """
    rows = [
        SizeRow(
            bytes=int(r["bytes"]),
            bw_avg_gbps=_opt_float(r.get("bw_avg_gbps")),
            bw_peak_gbps=_opt_float(r.get("bw_peak_gbps")),
        )
        for r in data.get("sizes") or ()
        if isinstance(r, dict) and isinstance(r.get("bytes"), int)
    ]
    rows += [
        SizeRow(
            bytes=int(r["bytes"]),
            iterations=r.get("iterations") if isinstance(r.get("iterations"), int) else None,
            latency=LatencyStats(
                min_us=_opt_float(r.get("min")),
                max_us=_opt_float(r.get("max")),
                typical_us=_opt_float(r.get("typical")),
                avg_us=_opt_float(r.get("avg")),
                stdev_us=_opt_float(r.get("stdev")),
                p99_us=_opt_float(r.get("p99")),
                p999_us=_opt_float(r.get("p999")),
            ),
        )
        for r in data.get("latency_sizes") or ()
        if isinstance(r, dict) and isinstance(r.get("bytes"), int)
    ]
    return tuple(rows)


def result_from_stored(data: dict[str, Any]) -> BenchResult:
    """Rebuild, from a stored ``result_json`` dict, the fields verdicts and summaries read.

    Keys added later (directions, size tables, warm-up) may be missing from older results:
    each then takes the value "not in the log", so old results load and judge as before.
    """
    gbps = _floats(data.get("interval_gbps"))
    latency = data.get("latency_us")
    error = _message(data.get("error"))
    return BenchResult(
        avg_busbw_gbps=_opt_float(data.get("avg_busbw_gbps")),
        bidir_total_gbps=_opt_float(data.get("bidir_total_gbps")),
        direction_used=data.get("direction_used") or None,
        per_direction=_directions(data.get("directions")),
        interval_sent_gbps=_floats(data.get("interval_sent_gbps")),
        omitted_intervals=int(data.get("omitted_intervals") or 0),
        sizes=_sizes(data),
        tool=str(data.get("tool") or ""),
        test=data.get("test"),
        direction=data.get("direction") or "forward",
        streams=data.get("streams"),
        duration_s=data.get("duration_s"),
        throughput_gbps=data.get("throughput_gbps"),
        sender_gbps=data.get("sender_gbps"),
        measured_kind=data.get("measured_kind") or "link",
        interval_start_s=_timing(data.get("interval_start_s"), len(gbps)),
        interval_end_s=_timing(data.get("interval_end_s"), len(gbps)),
        interval_gbps=gbps,
        series=tuple(
            Series(label=s.get("label", ""), gbps=_floats(s.get("gbps")))
            for s in data.get("series") or ()
        ),
        retransmits=data.get("retransmits"),
        lost_percent=data.get("lost_percent"),
        jitter_ms=data.get("jitter_ms"),
        latency=None
        if not latency
        else LatencyStats(
            min_us=latency.get("min"),
            max_us=latency.get("max"),
            avg_us=latency.get("avg"),
            p99_us=latency.get("p99"),
            p999_us=latency.get("p999"),
        ),
        link_type=data.get("link_type"),
        fabric=data.get("fabric"),
        start_time_s=data.get("start_time_s"),
        error=error,
        truncated=bool(data.get("truncated")),
        hosts=_opt_int(data.get("hosts")),
        ranks=_opt_int(data.get("ranks")),
        peer=data.get("peer") or None,
        role=data.get("role") or None,
        device=data.get("device") or None,
        collective=data.get("collective") or None,
        header=(("target_bitrate", str(data["target_bitrate"])),)
        if data.get("target_bitrate") is not None
        else (),
    )
