"""Is this the same test as one already held for another offer? A fingerprint per test.

A tool's output carries values that are random per run or tied to one moment, so two logs of
the same run share them and two different runs practically never do:

- iperf3: the 36-character ``cookie`` iperf3 draws per test (both client and server logs
  carry it); and, with or without one, the start time with the interval series to four
  significant digits (``series_fingerprint``): a cookie is one line of text, so a copy with only
  its cookie changed is still the same test (same second, same bytes in every interval);
- perftest: the queue-pair numbers and packet sequence numbers (PSN, 24 random bits per QP);
- nccl-tests: every rank's process id and host, with the times of the first rows.

A file re-saved, re-indented or renamed keeps its fingerprint; only logs of the same team are
ever compared (comparing across teams would tell one team what another holds).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from domain.benchlogs.result import BenchResult
from domain.evidence.trust_facts import RawFacts
from domain.messages import Message

_SERIES_POINTS = 32


def _digest(kind: str, parts: Iterable[str]) -> str:
    text = kind + "\n" + "\n".join(parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _sig(value: float) -> str:
    return f"{value:.4g}"


def fingerprint(result: BenchResult | None, facts: RawFacts) -> str | None:
    """A hex fingerprint of the test the log records, or None when it carries no identity."""
    if result is None:
        return None
    if result.tool == "iperf3":
        if facts.cookie:
            return _digest("iperf3-cookie", [facts.cookie])
        return series_fingerprint(result, facts.start_epoch_s)
    if result.tool.startswith("ib_") and facts.queue_pairs:
        return _digest("perftest", sorted(facts.queue_pairs))
    if result.collective is not None and facts.ranks:
        times = [
            f"{row.nccl.out_of_place.time_us:g}"
            for row in result.sizes[:_SERIES_POINTS]
            if row.nccl is not None
        ]
        # Rank, pid and device of every rank line, without its host name: a copy with the hosts
        # renamed keeps every pid, device and row time.
        ranks = sorted(" ".join(r.split()[:2] + r.split()[3:]) for r in facts.ranks)
        buses = sorted(bus for bus, _model in facts.gpus)
        return _digest("nccl", [*ranks, *buses, *times])
    return None


def series_fingerprint(result: BenchResult | None, start_s: float | None = None) -> str | None:
    """An iperf3 test by its clock and its intervals: the start second (``start_s``, else the
    parsed start time) and the first interval rates to four significant digits. Two tests that
    started in one second and moved the same bytes in each of three or more intervals are one
    test, whatever cookie or title each copy carries. None without a start time or intervals."""
    if result is None or result.tool != "iperf3":
        return None
    start = start_s or result.start_time_s
    series = [_sig(v) for v in result.interval_gbps[:_SERIES_POINTS]]
    if start is None or len(series) < 3:
        return None
    return _digest("iperf3-series", [str(int(start)), *series])


def identities(result: BenchResult | None, fingerprint_: str, start_s: float | None) -> set[str]:
    """Every identity of a log's test: its stored fingerprint and its iperf3 series print."""
    found = {fingerprint_} if fingerprint_ else set()
    series = series_fingerprint(result, start_s)
    if series:
        found.add(series)
    return found


@dataclass(frozen=True)
class Holder:
    """Where a log is held: its vendor, quote and RFQ (ids), and a name the team recognises."""

    vendor_id: int | None
    quote_id: int | None
    rfq_id: int | None
    where_en: str = ""
    where_zh: str = ""


def is_other_offer(own: Holder, other: Holder) -> bool:
    """Another vendor, or the same vendor's other quote or other RFQ."""
    if own.vendor_id != other.vendor_id:
        return True
    if own.quote_id and other.quote_id and own.quote_id != other.quote_id:
        return True
    return bool(own.rfq_id and other.rfq_id and own.rfq_id != other.rfq_id)


def reuse_findings(own: Holder, others: Iterable[Holder]) -> tuple[Message, ...]:
    """A ``reused`` finding per other offer that already holds the same test."""
    found: list[Message] = []
    seen: set[str] = set()
    for other in others:
        if not is_other_offer(own, other) or other.where_en in seen:
            continue
        seen.add(other.where_en)
        found.append(
            Message(
                "reused",
                f"The same test is already held as evidence for {other.where_en}: one run "
                "cannot prove two offers.",
                f"同一次测试已作为{other.where_zh}的证据：一次测试不能证明两个报价。",
            )
        )
    return tuple(found)
