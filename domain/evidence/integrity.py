"""Does a log's arithmetic add up? Each tool's own figures checked against each other.

Every tool prints figures that are computed from one another, so a log edited by hand (a rate
multiplied, bytes left as they were) contradicts itself:

- iperf3 (iperf_api.c): ``bits_per_second = bytes * 8 / seconds`` for every stream and interval;
  the ``[SUM]`` of an interval is the sum of its streams; intervals follow each other without gap;
  a TCP receiver cannot have received more than its sender sent.
- nccl-tests (src/common.cu and doc/PERFORMANCE.md): ``algbw = size / time`` (GB/s = 1e9 B/s) and
  ``busbw = algbw * factor`` with factor 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
  reduce-scatter and all-to-all, 1 for broadcast, reduce and send/receive.
- perftest (perftest_parameters.c, print_report_bw / print_report_lat): the average bandwidth and
  the message rate come from the same iterations and cycles, so ``MsgRate * size = BW``; the peak
  is the best single interval, so never below the average; latency statistics are ordered
  (min <= typical, average <= 99 % <= 99.9 % <= max).

Tolerances come from what the tool prints, never from a file: iperf3 JSON writes doubles
(start/end to the microsecond), iperf3 text three significant digits and two decimals of time,
nccl-tests two decimals of GB/s and at least four significant digits of time, perftest two
decimals of bandwidth and latency and six of MsgRate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from domain.benchlogs.result import BIDIR, FORWARD, TCP, BenchResult, NcclTiming, SizeRow
from domain.evidence import integrity_messages as msg
from domain.messages import Message

CONSISTENT = "consistent"
INCONSISTENT = "inconsistent"
UNCHECKED = "unchecked"

# Printed precision (see the module docstring).
# iperf3 JSON: 3.1+ writes full doubles, 3.0's cJSON six significant digits (950062000.0,
# 1.00007): half a unit of the sixth digit, relative, and of the time's sixth digit.
_JSON_REL = 5e-6
_JSON_TIME_S = 5e-6
_JSON_STREAM_SKEW_S = 1e-3  # streams' intervals end within one 1 ms timer tick of the sum's
_TEXT_REL = 0.005  # iperf3 text: three significant digits, at worst half a unit in 1.00
_TEXT_TIME_S = 0.005  # iperf3 text: "0.00-1.00 sec", two decimals
_NCCL_GBS = 0.005  # nccl-tests: GB/s with two decimals
_NCCL_TIME_REL = 5e-4  # nccl-tests: time with at least four significant digits
_PERF_BW_GBPS = 0.005  # perftest: two decimals; Gb/sec is the coarsest unit it prints
_PERF_RATE_MPPS = 5e-7  # perftest: MsgRate with six decimals
_PERF_LAT_US = 0.005  # perftest: latency with two decimals
_MAX_FINDINGS = 6


@dataclass(frozen=True)
class Integrity:
    """The outcome: ``status`` is consistent, inconsistent or unchecked (nothing to check)."""

    status: str
    findings: tuple[Message, ...] = ()
    checks: int = 0
    # Checks that could not be made, with why (never counted as inconsistent).
    unchecked: tuple[Message, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "status": self.status,
            "findings": [m.as_dict() for m in self.findings],
            "checks": self.checks,
            "unchecked": [m.as_dict() for m in self.unchecked],
        }


@dataclass
class _Tally:
    checks: int = 0
    findings: list[Message] = field(default_factory=list)
    more: int = 0
    unchecked: list[Message] = field(default_factory=list)

    def check(self, ok: bool, finding: Message | None = None) -> None:
        self.checks += 1
        if ok or finding is None:
            return
        if len(self.findings) < _MAX_FINDINGS:
            self.findings.append(finding)
        else:
            self.more += 1


def _close(value: float, expected: float, tolerance: float) -> bool:
    return abs(value - expected) <= tolerance


# A log may not say its test started after it was uploaded (DOMAIN.md §9: a log outside the
# window it claims is not admitted). Five minutes cover an unsynchronised test host's clock.
FUTURE_SLACK_S = 300.0


def check_integrity(
    result: BenchResult | None,
    *,
    exact: bool = True,
    start_s: float | None = None,
    uploaded_s: float | None = None,
) -> Integrity:
    """Check one parsed log. ``exact`` says the tool printed full precision (iperf3 JSON).
    ``uploaded_s`` (epoch s): when the log reached the portal; a start (``start_s``, the raw
    log's clock, else the parsed start time) more than ``FUTURE_SLACK_S`` after it fails."""
    if result is None or result.error is not None and result.throughput_gbps is None:
        return Integrity(UNCHECKED)
    tally = _Tally()
    start = start_s or result.start_time_s
    if uploaded_s is not None and start is not None and start > 1e9:
        tally.check(
            start <= uploaded_s + FUTURE_SLACK_S, msg.started_after_upload(start, uploaded_s)
        )
    if result.tool == "iperf3":
        _iperf3(result, tally, exact)
    elif result.collective is not None or result.tool.endswith("_perf"):
        _nccl(result, tally)
    elif result.tool.startswith("ib_"):
        _perftest(result, tally)
    if tally.checks == 0:
        return Integrity(UNCHECKED, unchecked=tuple(tally.unchecked))
    findings = list(tally.findings)
    if tally.more:
        findings.append(msg.more_findings(tally.more))
    return Integrity(
        INCONSISTENT if findings else CONSISTENT,
        tuple(findings),
        tally.checks,
        tuple(tally.unchecked),
    )


# --- iperf3 ------------------------------------------------------------------------------------


def _iperf3(result: BenchResult, tally: _Tally, exact: bool) -> None:
    if result.direction != BIDIR:
        _iperf3_intervals(result, tally, exact)
        _iperf3_streams(result, tally, exact)
    _iperf3_continuity(result, tally, exact)
    _iperf3_end(result, tally, exact)
    _iperf3_intervals_against_summary(result, tally, exact)


def _interval_rate_tolerance(gbps: float, start: float, end: float, exact: bool) -> float:
    seconds = end - start
    if exact:
        # six significant digits of each end: at most half a unit, 5e-6 of its magnitude
        time_error = _JSON_TIME_S * (max(abs(start), 1.0) + max(abs(end), 1.0))
        return gbps * (2 * _JSON_REL + time_error / seconds) + 1e-9
    # bytes and rate each within half a unit of three digits, both interval ends within 0.005 s
    return gbps * (2 * _TEXT_REL + 2 * _TEXT_TIME_S / seconds)


def _iperf3_intervals(result: BenchResult, tally: _Tally, exact: bool) -> None:
    # UDP: the bytes are what the client sent; the rate they make is the sending rate, printed
    # beside the receiver's (iperf3 text) or not at all (then there is nothing to compare).
    rates = result.interval_gbps if result.test == TCP else result.interval_sent_gbps
    rows = zip(
        result.interval_start_s,
        result.interval_end_s,
        result.interval_bytes,
        rates,
        strict=False,
    )
    for index, (start, end, moved, gbps) in enumerate(rows):
        seconds = end - start
        if seconds <= 0 or moved <= 0:
            continue
        expected = moved * 8 / 1e9 / seconds
        tolerance = _interval_rate_tolerance(max(gbps, expected), start, end, exact)
        if index == 0 and result.omitted_intervals and exact:
            # After ``-O`` iperf3 resets its clock; the first kept interval prints a start a few
            # microseconds off the one its rate was taken over (3.12: start 2.8e-05, rate over
            # end + 2.8e-05 s): up to twice the printed start either way.
            tolerance += max(gbps, expected) * 2 * abs(start) / seconds
        tally.check(
            _close(gbps, expected, tolerance),
            msg.iperf3_interval_rate(index, start, end, moved, gbps, expected),
        )


def _iperf3_streams(result: BenchResult, tally: _Tally, exact: bool) -> None:
    streams = [s for s in result.series if s.label.startswith("stream")]
    if len(streams) < 2 or result.direction != FORWARD and result.test != TCP:
        return
    count = min(len(s.gbps) for s in streams)
    for index in range(min(count, len(result.interval_gbps))):
        total = result.interval_gbps[index]
        summed = sum(s.gbps[index] for s in streams)
        seconds = _seconds(result, index)
        rel = (_JSON_STREAM_SKEW_S / seconds) if exact else 2 * _TEXT_REL
        tally.check(
            _close(summed, total, max(total, summed) * rel + 1e-9),
            msg.iperf3_streams_sum(index, summed, total, len(streams)),
        )


def _seconds(result: BenchResult, index: int) -> float:
    if index < len(result.interval_end_s) and index < len(result.interval_start_s):
        seconds = result.interval_end_s[index] - result.interval_start_s[index]
        if seconds > 0:
            return seconds
    return 1.0


def _iperf3_continuity(result: BenchResult, tally: _Tally, exact: bool) -> None:
    pairs = zip(result.interval_end_s, result.interval_start_s[1:], strict=False)
    for index, (end, next_start) in enumerate(pairs):
        unit = _JSON_TIME_S * max(abs(end), 1.0) if exact else _TEXT_TIME_S
        tally.check(
            _close(next_start, end, 2 * unit), msg.iperf3_interval_gap(index + 1, end, next_start)
        )


def _iperf3_end(result: BenchResult, tally: _Tally, exact: bool) -> None:
    sent, received = result.bytes_sent, result.bytes_received
    if result.test == TCP and sent and received and result.direction != BIDIR:
        slack = 0.0 if exact else sent * 2 * _TEXT_REL
        tally.check(received <= sent + slack, msg.iperf3_received_more(sent, received))
    duration, gbps = result.duration_s, result.throughput_gbps
    if (
        result.test == TCP
        and result.direction == FORWARD
        and received
        and duration
        and gbps
        and duration > 0
    ):
        expected = received * 8 / 1e9 / duration
        rel = (_JSON_STREAM_SKEW_S / duration) if exact else 2 * _TEXT_REL + 2 * _TEXT_TIME_S
        tally.check(
            _close(gbps, expected, max(gbps, expected) * rel + 1e-9),
            msg.iperf3_total_rate(received, duration, gbps, expected),
        )
    receivers = [s.receiver_gbps for s in result.per_stream if s.receiver_gbps is not None]
    if len(receivers) >= 2 and gbps and result.direction == FORWARD:
        summed = sum(receivers)
        rel = (_JSON_STREAM_SKEW_S / (duration or 1.0)) if exact else 2 * _TEXT_REL
        tally.check(
            _close(summed, gbps, max(summed, gbps) * rel + 1e-9),
            msg.iperf3_streams_total(summed, gbps, len(receivers)),
        )


def _uncovered(result: BenchResult) -> float:
    """The share of the summary's duration no printed interval covers: iperf3 leaves out a last
    interval shorter than a tenth of the reporting interval (its bytes are in the summary), and
    an interrupted test's summary may run past its last interval. Omitted (``-O``) intervals are
    outside both: iperf3 resets its counters when the omitted seconds end."""
    duration = result.duration_s
    if not duration or duration <= 0 or not result.interval_end_s or not result.interval_start_s:
        return 0.0
    span = result.interval_end_s[-1] - result.interval_start_s[0]
    return max(0.0, duration - span) / duration


def _iperf3_intervals_against_summary(result: BenchResult, tally: _Tally, exact: bool) -> None:
    """The intervals and the end summary count the same bytes (iperf_api.c: each interval's
    bytes are the stream counters' growth; the summary is their total after the omitted
    seconds), so their sum equals the summary's sent or received bytes (the side the log's
    intervals count: the sender's on a forward client, the receiver's on a server or ``-R``),
    and their length-weighted mean rate equals a summary rate. A log whose intervals were
    multiplied and summary left alone (or the reverse) contradicts itself here.

    Tolerance: printed precision (JSON bytes are integers, rates 6+ digits: 0.1 %; text three
    significant digits on both sides: 1 %), plus the share of the duration no interval covers
    (the short last interval iperf3 does not print)."""
    moved = result.interval_bytes
    if result.truncated or not moved or len(moved) != len(result.interval_gbps):
        return
    rel = 1e-3 if exact else 4 * _TEXT_REL
    slack = _uncovered(result)
    summed = float(sum(moved))
    sides = [b for b in (result.bytes_sent, result.bytes_received) if b and b > 0]
    if sides:
        if result.direction == BIDIR:
            # --bidir: the client's intervals add its sent bytes one way to its received bytes
            # the other way, so their sum lies between the summary's sent and received totals;
            # iperf3 text prints each direction's summary on its own (their sum is the test's).
            if not exact and len(sides) == 2:
                sides.append(sides[0] + sides[1])
            fits = min(sides) * (1 - rel - slack) <= summed <= max(sides) * (1 + rel)
        else:
            fits = any(total * (1 - rel - slack) <= summed <= total * (1 + rel) for total in sides)
        tally.check(
            fits,
            msg.iperf3_interval_bytes_total(
                len(moved), summed, result.bytes_sent, result.bytes_received
            ),
        )
    if result.test != TCP or result.direction == BIDIR:
        return
    seconds = [
        end - start
        for start, end in zip(result.interval_start_s, result.interval_end_s, strict=False)
    ]
    if len(seconds) != len(result.interval_gbps) or sum(seconds) <= 0:
        return
    mean = sum(g * s for g, s in zip(result.interval_gbps, seconds, strict=True)) / sum(seconds)
    rates = [r for r in (result.throughput_gbps, result.sender_gbps) if r and r > 0]
    if not rates or mean <= 0:
        return
    bound = rel + slack / (1 - slack) if slack < 1 else 1.0
    tally.check(
        any(abs(mean - rate) <= rate * bound + 1e-9 for rate in rates),
        msg.iperf3_interval_mean_rate(len(moved), mean, result.throughput_gbps, result.sender_gbps),
    )


# --- nccl-tests --------------------------------------------------------------------------------


def nccl_bus_factor(collective: str | None, ranks: int) -> float | None:
    """nccl-tests' bus-bandwidth factor for a collective over ``ranks`` ranks (PERFORMANCE.md)."""
    name = (collective or "").lower().replace("_", "").replace("perf", "")
    n = ranks
    if n < 1:
        return None
    factors = {
        "allreduce": 2 * (n - 1) / n,
        "allgather": (n - 1) / n,
        "reducescatter": (n - 1) / n,
        "alltoall": (n - 1) / n,
        "gather": (n - 1) / n,
        "scatter": (n - 1) / n,
        "hypercube": (n - 1) / n,
        "broadcast": 1.0,
        "reduce": 1.0,
        "sendrecv": 1.0,
    }
    return factors.get(name)


def _nccl_halves(rows: tuple[SizeRow, ...]) -> Iterator[tuple[int, str, NcclTiming]]:
    for row in rows:
        if row.nccl is None:
            continue
        yield row.bytes, "out-of-place", row.nccl.out_of_place
        yield row.bytes, "in-place", row.nccl.in_place


_MAX_RANKS = 65536


def _nccl_ranks(result: BenchResult) -> tuple[int | None, Message | None]:
    """The rank count the busbw factor is checked for, or None and why it is not established.

    Sources, in the log's own words: the ``#  Rank`` lines (their count and the rank numbers
    seen), ``nThread`` × ``nGpus`` of one process, and the processes (pids) the lines name. A
    listing from several processes can be cut (rank 0 prints what it gathered); when the figures
    fit a larger rank count than the lines list, the count is not established."""
    listed = result.ranks
    if not listed:
        return None, None
    head = dict(result.header)
    top = head.get("rank_max")
    if top is not None and int(top) + 1 != listed:
        return None, msg.nccl_ranks_unsettled(listed, None, "numbers")
    if int(head.get("processes") or 1) <= 1:
        return listed, None
    fits = _ranks_fitting(result)
    if fits is not None and fits != listed and fits > listed:
        return None, msg.nccl_ranks_unsettled(listed, fits, "listing")
    return listed, None


def _ranks_fitting(result: BenchResult) -> int | None:
    """The rank count whose busbw factor the largest row's busbw / algbw matches, if any."""
    rows = [r for r in result.sizes if r.nccl is not None and r.nccl.out_of_place.algbw_gbps > 0]
    if not rows:
        return None
    timing = rows[-1].nccl.out_of_place  # type: ignore[union-attr]
    algbw, busbw = timing.algbw_gbps / 8, timing.busbw_gbps / 8
    best: int | None = None
    for n in range(2, _MAX_RANKS + 1):
        factor = nccl_bus_factor(result.collective, n)
        if factor is None:
            return None
        if _close(busbw, algbw * factor, _NCCL_GBS * (1 + factor)):
            best = n
            break
        if algbw * factor > busbw + _NCCL_GBS * (1 + factor):
            break
    return best


def _nccl_rows(result: BenchResult, tally: _Tally) -> None:
    """Rows in ascending size, none beyond the header's maxBytes."""
    head = dict(result.header)
    most = int(head["maxBytes"]) if head.get("maxBytes", "").isdigit() else None
    sizes = [r.bytes for r in result.sizes if r.nccl is not None]
    # Equal sizes are the tool's own rounding (tiny all_gather sizes round to 0 several times).
    for before, size in zip(sizes, sizes[1:], strict=False):
        tally.check(size >= before, msg.nccl_rows_order(size, before))
    if most is not None:
        for size in sizes:
            tally.check(size <= most, msg.nccl_beyond_max(size, most))


def _nccl(result: BenchResult, tally: _Tally) -> None:
    _nccl_rows(result, tally)
    ranks, why = _nccl_ranks(result)
    if why is not None:
        tally.unchecked.append(why)
    factor = nccl_bus_factor(result.collective, ranks) if ranks else None
    for size, half, timing in _nccl_halves(result.sizes):
        algbw = timing.algbw_gbps / 8  # back to the GB/s it printed
        busbw = timing.busbw_gbps / 8
        if timing.time_us > 0 and size > 0 and algbw > 0:
            expected = size / timing.time_us / 1e3
            tolerance = _NCCL_GBS + expected * _NCCL_TIME_REL
            tally.check(
                _close(algbw, expected, tolerance),
                msg.nccl_algbw(size, half, timing.time_us, algbw, expected),
            )
        if factor is not None and algbw > 0:
            expected_bus = algbw * factor
            tally.check(
                _close(busbw, expected_bus, _NCCL_GBS * (1 + factor)),
                msg.nccl_busbw(size, half, algbw, busbw, expected_bus, factor, result.ranks or 0),
            )


# --- perftest ----------------------------------------------------------------------------------


def _perftest(result: BenchResult, tally: _Tally) -> None:
    for row in result.sizes:
        peak, avg, rate = row.bw_peak_gbps, row.bw_avg_gbps, row.msg_rate_mpps
        if peak is not None and avg is not None and peak > 0:
            tally.check(peak + 2 * _PERF_BW_GBPS >= avg, msg.perftest_peak(row.bytes, peak, avg))
        if rate is not None and avg is not None and rate > 0 and result.direction != BIDIR:
            expected = rate * row.bytes * 8 / 1e3  # Mpps x bytes -> Gbit/s
            tolerance = _PERF_BW_GBPS + _PERF_RATE_MPPS * row.bytes * 8 / 1e3
            tally.check(
                _close(avg, expected, tolerance),
                msg.perftest_msgrate(row.bytes, rate, avg, expected),
            )
        if row.latency is not None:
            _latency_order(row, tally)


def _latency_order(row: SizeRow, tally: _Tally) -> None:
    lat = row.latency
    assert lat is not None
    chain = [
        ("min", lat.min_us),
        ("typical", lat.typical_us),
        ("99%", lat.p99_us),
        ("99.9%", lat.p999_us),
        ("max", lat.max_us),
    ]
    present = [(name, value) for name, value in chain if value is not None]
    if lat.avg_us is not None and lat.min_us is not None and lat.max_us is not None:
        present_avg = [("min", lat.min_us), ("average", lat.avg_us), ("max", lat.max_us)]
        _ordered(row.bytes, present_avg, tally)
    _ordered(row.bytes, present, tally)


def _ordered(size: int, values: list[tuple[str, float]], tally: _Tally) -> None:
    for (low_name, low), (high_name, high) in zip(values, values[1:], strict=False):
        tally.check(
            low <= high + 2 * _PERF_LAT_US,
            msg.perftest_latency_order(size, low_name, low, high_name, high),
        )
