"""The one place the benchmarks app talks to ``domain.benchlogs``.

Every rule (detection, parsing, zip safety, statistics, fairness, verdicts, the concurrent-run
summary) lives in the domain package; this module only translates between it and what the app
stores: a JSON-ready dict per log (``BenchmarkLog.result``), the team's thresholds
(``AcceptanceThresholds``) and the summary fields of ``TestRun``.

Stored results are JSON, so ``log_verdict`` and ``run_summary`` rebuild the few ``BenchResult``
fields the domain needs from them (``result_from_json``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import IO, Any

from domain.benchlogs import (
    BenchLogError,
    BenchResult,
    LatencyStats,
    Series,
    SizeRow,
    error_to_json,
    parse_stream,
    result_to_json,
)
from domain.benchlogs.archive import iter_zip_members
from domain.benchlogs.concurrent import evidence_of
from domain.benchlogs.result import StreamSummary
from domain.benchlogs.stats import PASS, Thresholds, summarise_run, verdict
from domain.benchlogs.verdict import DEFAULT_THRESHOLDS as _DEFAULTS
from domain.evidence.offer import OfferPorts, derive
from domain.messages import Message

__all__ = [
    "BenchLogError",
    "Limits",
    "Member",
    "Message",
    "RunSummary",
    "error_json",
    "log_verdict",
    "parse_upload",
    "result_from_json",
    "result_json",
    "run_summary",
    "zip_members",
]


# ---------------------------------------------------------------- parsing

UNEXPECTED = Message(
    code="benchlog.unexpected",
    en="The parser failed on this file unexpectedly; the file is kept and the team was notified.",
    zh="解析此文件时发生意外错误；文件已保留，已通知团队。",
)


def parse_upload(stream: IO[bytes], filename: str) -> BenchResult:
    """Parse one log; raises ``BenchLogError`` (and only that) when it cannot be read."""
    return parse_stream(stream, filename)  # type: ignore[arg-type]


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _finite_list(values: Sequence[float]) -> list[float | None]:
    return [_finite(v) for v in values]


def result_json(result: BenchResult, filename: str = "", *, charts: bool = True) -> dict[str, Any]:
    """The domain's ``result_to_json`` shape, plus what the pages and summaries need.

    Extras: per-stream ``series`` and interval times for the charts, and the fields
    ``result_from_json`` needs to rebuild the result for verdicts and summaries (direction,
    measured kind, fabric, start time, truncation). ``warnings`` and ``error`` are kept
    bilingual (``{code, en, zh}``) so the pages can show the user's language. Without
    ``charts`` (``parse_log``), the per-stream series and interval end times are left out.
    """
    data: dict[str, Any] = dict(result_to_json(result, filename))
    data["warnings"] = [w.as_dict() for w in result.warnings]
    data["error"] = result.error.as_dict() if result.error else None
    if charts:
        data["series"] = [{"label": s.label, "gbps": _finite_list(s.gbps)} for s in result.series]
    data["interval_start_s"] = _finite_list(result.interval_start_s)
    if charts:
        data["interval_end_s"] = _finite_list(result.interval_end_s)
    data["direction"] = result.direction
    data["measured_kind"] = result.measured_kind
    data["fabric"] = result.fabric
    data["start_time_s"] = _finite(result.start_time_s)
    data["truncated"] = result.truncated
    data.update(_evidence_fields(result))
    if result.latency is not None and data.get("latency_us") is not None:
        data["latency_us"]["max"] = _finite(result.latency.max_us)
    return data


def _evidence_fields(result: BenchResult) -> dict[str, Any]:
    """What ``domain.evidence.scope`` needs to tell links apart and UDP rates: the peer address,
    the device, the collective and the ``-b`` rate the log printed."""
    return {
        "peer": result.peer,
        "role": result.role,
        "device": result.device,
        "collective": result.collective,
        "target_bitrate": dict(result.header).get("target_bitrate"),
    }


def error_json(filename: str, message: Message) -> dict[str, Any]:
    """The object ``parse_log`` prints for a file that failed: every key, error bilingual."""
    data: dict[str, Any] = dict(error_to_json(filename, message))
    data["error"] = message.as_dict()
    return data


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


def result_from_json(data: dict[str, Any]) -> BenchResult:
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


# ---------------------------------------------------------------- archives


@dataclass(frozen=True)
class Member:
    """One zip member: its path inside the archive and its bytes (``refusal`` is always None
    for members; an unsafe archive raises ``BenchLogError`` instead, see ``zip_members``)."""

    name: str
    data: bytes | None
    refusal: Message | None = None


def zip_members(stream: IO[bytes], *, max_bytes: int) -> Iterator[Member]:
    """Every regular file of a zip, named by its path inside the archive.

    The safety rules are ``domain.benchlogs.archive``'s: one ``../`` or absolute path, link,
    encrypted member, too many members or compression bomb refuses the whole archive with a
    ``BenchLogError``. All members are read before the first is yielded, so a bomb found while
    inflating the last member leaves nothing half-stored. ``max_bytes`` caps the total inflated.
    """
    members = [
        Member(name=name, data=member.read())
        for name, member in iter_zip_members(stream, max_total_bytes=max_bytes)  # type: ignore[arg-type]
    ]
    yield from members


# ---------------------------------------------------------------- thresholds and verdicts


@dataclass(frozen=True)
class Limits:
    """The team's thresholds as plain values: the field names of ``AcceptanceThresholds``.

    Defaults are the domain's (``DEFAULT_THRESHOLDS``), the single source of them.
    """

    rdma_min_line_fraction: float = _DEFAULTS.rdma_min_efficiency
    tcp_min_line_fraction: float = _DEFAULTS.tcp_min_efficiency
    max_cv: float = _DEFAULTS.max_cv
    warn_margin: float = _DEFAULTS.efficiency_fail_margin
    p99_latency_ib_us: float = _DEFAULTS.p99_limit_us_ib
    p99_latency_roce_us: float = _DEFAULTS.p99_limit_us_roce
    p99_latency_tcp_us: float = _DEFAULTS.p99_limit_us_tcp

    def thresholds(self) -> Thresholds:
        """The domain's thresholds; what the team does not edit keeps the domain's default.

        ``warn_margin`` ("a figure within this share below a limit warns") is the domain's
        ``efficiency_fail_margin``.
        """
        return Thresholds(
            rdma_min_efficiency=self.rdma_min_line_fraction,
            tcp_min_efficiency=self.tcp_min_line_fraction,
            efficiency_fail_margin=self.warn_margin,
            max_cv=self.max_cv,
            p99_limit_us_ib=self.p99_latency_ib_us,
            p99_limit_us_roce=self.p99_latency_roce_us,
            p99_limit_us_tcp=self.p99_latency_tcp_us,
        )


def log_verdict(
    data: dict[str, Any],
    *,
    limits: Limits,
    line_rate_gbps: float | None,
    fabric: str | None,
    tail: bool = False,
) -> tuple[str, list[dict[str, str]]]:
    """Pass / warn / fail of one stored result (a ``result_json`` dict), with bilingual reasons.

    The domain gives one status for the result; each reason carries it (the closing "passed"
    reason is always ``pass``).
    """
    outcome = verdict(
        result_from_json(data),
        line_rate_gbps=line_rate_gbps,
        fabric=fabric or None,
        thresholds=limits.thresholds(),
        tail=tail,
    )
    reasons = [
        reason.as_dict() | {"status": PASS if reason.code == "verdict_pass" else outcome.status}
        for reason in outcome.reasons
    ]
    return outcome.status, reasons


# ---------------------------------------------------------------- concurrent runs


@dataclass(frozen=True)
class RunSummary:
    """The domain's run summary under ``TestRun``'s field names (every field is one)."""

    pairs: int
    aggregate_gbps: float | None
    min_pair_gbps: float | None
    max_pair_gbps: float | None
    jain_index: float | None
    aggregate_vs_line: float | None
    tail_p5_gbps: float | None
    p50_gbps: float | None
    measured_kind: str
    run_notes: list[dict[str, str]]  # the domain's notes on the run, bilingual
    # The test kind the run's figures come from (kinds are never pooled): not a stored field.
    lead_test: str = ""


LEAD_TESTS = {"rdma_bw": "rdma_bw", "tcp_throughput": "tcp", "collective_busbw": "nccl"}
RUN_FIELDS = tuple(f.name for f in fields(RunSummary) if f.name != "lead_test")


def run_summary(results: Sequence[dict[str, Any]], *, line_rate_gbps: float | None) -> RunSummary:
    """Aggregate, fairness and tail of the pairs that ran together (bandwidth logs only)."""
    rebuilt = [result_from_json(r) for r in results if r.get("test") != "rdma_lat"]
    summary = summarise_run(rebuilt, line_rate_gbps=line_rate_gbps)
    return RunSummary(
        pairs=summary.pairs,
        aggregate_gbps=summary.aggregate_gbps,
        min_pair_gbps=summary.min_pair_gbps,
        max_pair_gbps=summary.max_pair_gbps,
        jain_index=summary.jain_index,
        aggregate_vs_line=summary.aggregate_efficiency,
        tail_p5_gbps=summary.tail_p5_gbps,
        p50_gbps=summary.p50_gbps,
        measured_kind=summary.measured_kind if summary.pairs else "",
        run_notes=[w.as_dict() for w in summary.warnings],
        lead_test=LEAD_TESTS.get(summary.kind, ""),
    )


def offer_figure(
    results: Sequence[tuple[str, dict[str, Any]]],
    *,
    ports: int,
    port_gbps: float,
    gpus_per_server: int,
) -> dict[str, Any] | None:
    """An offer's per-server figure from its stored log results, each with its run's id
    (``domain.evidence.offer``), as the quote stores it; None when no log measured capacity."""
    rebuilt = [result_from_json(result) for _, result in results]
    evidence = evidence_of(rebuilt, [batch for batch, _ in results])
    offer = OfferPorts(ports=ports, port_gbps=port_gbps, gpus_per_server=gpus_per_server)
    figure = derive(evidence, offer)
    if figure is None:
        return None
    return {
        **figure.explanation.as_dict(),
        "notes": [note.as_dict() for note in figure.notes],
        "gbps": figure.gbps,
        "low_gbps": figure.low_gbps,
        "high_gbps": figure.high_gbps,
        "kind": figure.kind,
        "evidence_kind": figure.evidence_kind,
        "ports": figure.ports,
        "ports_tested": figure.ports_tested,
        "tested_together": figure.tested_together,
        "capped": figure.capped,
    }


def run_warnings(
    results: Sequence[dict[str, Any]], *, line_rate_gbps: float | None
) -> list[dict[str, str]]:
    """The domain's notes on a run (logs left out, no intervals, not concurrent, mixed kinds)."""
    rebuilt = [result_from_json(r) for r in results if r.get("test") != "rdma_lat"]
    summary = summarise_run(rebuilt, line_rate_gbps=line_rate_gbps)
    return [w.as_dict() for w in summary.warnings]
