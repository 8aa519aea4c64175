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
    error_to_json,
    parse_stream,
    result_to_json,
)
from domain.benchlogs.archive import iter_zip_members
from domain.benchlogs.stats import PASS, Thresholds, summarise_run, verdict
from domain.benchlogs.stored import result_from_stored
from domain.benchlogs.verdict import DEFAULT_THRESHOLDS as _DEFAULTS
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


def result_from_json(data: dict[str, Any]) -> BenchResult:
    """A stored result rebuilt by the domain's one reader (``domain.benchlogs.stored``)."""
    return result_from_stored(data)


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


def run_summary(
    results: Sequence[dict[str, Any]],
    *,
    line_rate_gbps: float | None,
    declared_together: bool = False,
) -> RunSummary:
    """Aggregate, fairness and tail of the pairs that ran together (bandwidth logs only);
    ``declared_together``: the run is declared simultaneous (untimed logs are one set)."""
    rebuilt = [result_from_json(r) for r in results if r.get("test") != "rdma_lat"]
    summary = summarise_run(
        rebuilt, line_rate_gbps=line_rate_gbps, declared_together=declared_together
    )
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


def run_warnings(
    results: Sequence[dict[str, Any]],
    *,
    line_rate_gbps: float | None,
    declared_together: bool = False,
) -> list[dict[str, str]]:
    """The domain's notes on a run (logs left out, no intervals, not concurrent, unplaced,
    mixed kinds)."""
    rebuilt = [result_from_json(r) for r in results if r.get("test") != "rdma_lat"]
    summary = summarise_run(
        rebuilt, line_rate_gbps=line_rate_gbps, declared_together=declared_together
    )
    return [w.as_dict() for w in summary.warnings]
