"""Pass / warn / fail for one result, against thresholds a buyer can edit.

Policy: **fail** means the log is evidence that the link does not deliver (the test failed, the
rate is far below line rate, the rate swings wildly, loss or tail latency far above the limit).
**warn** means the log cannot fully vouch for the link or is borderline (no line rate known, no
receiver figure, truncated log, a modest shortfall, a long dip, a tail somewhat above the limit).
A result is never passed silently when it cannot be judged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from domain.benchlogs import catalogue_checks as msg
from domain.benchlogs.measures import inside_one_host, line_rate_efficiency, stability
from domain.benchlogs.result import NCCL, RDMA_BW, RDMA_LAT, TCP, UDP, BenchResult
from domain.messages import Message

PASS = "pass"  # noqa: S105 - a verdict status, not a password
WARN = "warn"
FAIL = "fail"
_RANK = {PASS: 0, WARN: 1, FAIL: 2}


@dataclass(frozen=True)
class Thresholds:
    """Acceptance thresholds; every default is a starting point the admin may change.

    - ``rdma_min_efficiency`` 0.90: perftest on a healthy IB/RoCE port reaches 92–98% of the
      nominal rate after PCIe and protocol overhead (FORMATS.md §2.3).
    - ``tcp_min_efficiency`` 0.85: iperf3 with enough parallel streams fills 90%+ of a port;
      below 85% points at the host or the path.
    - ``collective_rdma_min_efficiency`` 0.80 and ``collective_tcp_min_efficiency`` 0.40:
      NCCL busbw reaches 85–96% of the wire over RDMA but only 40–60% over TCP sockets
      (COST-MODEL.md step 3). An nccl result with no fabric given is held to the RDMA figure.
    - ``efficiency_fail_margin`` 0.10: a shortfall of up to 10 points warns (tuning, a busy
      host); beyond that it fails.
    - ``max_cv`` 0.05: intervals of a clean link vary by a few percent; above 5% warns, above
      twice that fails. ``max_dip_s`` 10: a dip below 90% of the median lasting longer warns.
    - P99 latency at the smallest message size (perftest, half round trip): ``ib`` 5 µs
      (healthy HDR/NDR ports sit at 1–2 µs, even old QDR at ~1.2 µs), ``roce`` 10 µs (switch
      hops and PFC/ECN add microseconds), ``tcp`` 100 µs (kernel TCP ping-pong inside a data
      centre). Above the limit warns, above twice the limit fails.
    - UDP loss: above 0.1% warns, above 1% fails (training traffic suffers at either).
    """

    rdma_min_efficiency: float = 0.90
    tcp_min_efficiency: float = 0.85
    collective_rdma_min_efficiency: float = 0.80
    collective_tcp_min_efficiency: float = 0.40
    efficiency_fail_margin: float = 0.10
    max_cv: float = 0.05
    max_dip_s: float = 10.0
    p99_limit_us_ib: float = 5.0
    p99_limit_us_roce: float = 10.0
    p99_limit_us_tcp: float = 100.0
    max_loss_warn_percent: float = 0.1
    max_loss_fail_percent: float = 1.0

    def p99_limit_us(self, fabric: str) -> float:
        limits = {"ib": self.p99_limit_us_ib, "roce": self.p99_limit_us_roce}
        return limits.get(fabric, self.p99_limit_us_tcp)

    def min_efficiency(self, test: str | None, fabric: str | None) -> float:
        if test == RDMA_BW:
            return self.rdma_min_efficiency
        if test == NCCL:
            if fabric == "tcp":
                return self.collective_tcp_min_efficiency
            return self.collective_rdma_min_efficiency
        return self.tcp_min_efficiency


# The one source of default thresholds: ``benchmarks.parsing.Limits`` and the
# ``AcceptanceThresholds`` model defaults read their values from here.
DEFAULT_THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Verdict:
    status: str
    reasons: tuple[Message, ...]
    efficiency: float | None = None


def worst(statuses: Iterable[str]) -> str:
    """The most severe of pass / warn / fail (pass for none)."""
    return max(statuses, key=_RANK.__getitem__, default=PASS)


class _Findings:
    def __init__(self) -> None:
        self.status = PASS
        self.reasons: list[Message] = []

    def add(self, status: str, reason: Message) -> None:
        if _RANK[status] > _RANK[self.status]:
            self.status = status
        self.reasons.append(reason)


def verdict(
    result: BenchResult,
    *,
    line_rate_gbps: float | None,
    fabric: str | None = None,
    thresholds: Thresholds | None = None,
    tail: bool = False,
) -> Verdict:
    """Pass, warn or fail, with reasons; ``tail`` when the result is a run's P5 (the messages
    then name that figure instead of a log's throughput)."""
    limits = thresholds or Thresholds()
    if result.error is not None:
        reason = msg.verdict_result_error(result.error.en, result.error.zh)
        return Verdict(FAIL, (reason,))
    findings = _Findings()
    if result.truncated:
        findings.add(WARN, msg.verdict_truncated())
    resolved = fabric or result.fabric or ("tcp" if result.test in (TCP, UDP) else None)
    efficiency = None
    if result.test == RDMA_LAT:
        _check_latency(result, resolved or "tcp", limits, findings)
    elif inside_one_host(result):
        findings.add(WARN, msg.verdict_one_host(result.ranks))
    else:
        efficiency = _check_bandwidth(result, line_rate_gbps, resolved, limits, findings, tail)
        _check_stability(result, limits, findings)
        _check_loss(result, limits, findings)
    if findings.status == PASS:
        findings.reasons.append(msg.verdict_pass(efficiency, tail=tail))
    return Verdict(findings.status, tuple(findings.reasons), efficiency)


def _check_bandwidth(
    result: BenchResult,
    line_rate_gbps: float | None,
    fabric: str | None,
    limits: Thresholds,
    findings: _Findings,
    tail: bool,
) -> float | None:
    if result.throughput_gbps is None:
        findings.add(WARN, msg.verdict_no_throughput())
        return None
    efficiency = line_rate_efficiency(result, line_rate_gbps)
    if efficiency is None:
        findings.add(WARN, msg.verdict_no_line_rate())
        return None
    minimum = limits.min_efficiency(result.test, fabric)
    if efficiency < minimum - limits.efficiency_fail_margin:
        findings.add(FAIL, msg.verdict_efficiency(efficiency, minimum, tail=tail))
    elif efficiency < minimum:
        findings.add(WARN, msg.verdict_efficiency(efficiency, minimum, tail=tail))
    return efficiency


def _check_stability(result: BenchResult, limits: Thresholds, findings: _Findings) -> None:
    figures = stability(result)
    # Two intervals say little about variation; iperf3's shortest useful run has three.
    if figures is None or figures.intervals < 3:
        return
    if figures.cv is not None and figures.cv > 2 * limits.max_cv:
        findings.add(FAIL, msg.verdict_unstable(figures.cv, limits.max_cv))
    elif figures.cv is not None and figures.cv > limits.max_cv:
        findings.add(WARN, msg.verdict_unstable(figures.cv, limits.max_cv))
    if figures.longest_dip_s > limits.max_dip_s:
        findings.add(WARN, msg.verdict_long_dip(figures.longest_dip_s, limits.max_dip_s))


def _check_loss(result: BenchResult, limits: Thresholds, findings: _Findings) -> None:
    loss = result.lost_percent
    if result.test != UDP or loss is None:
        return
    if loss > limits.max_loss_fail_percent:
        findings.add(FAIL, msg.verdict_loss_high(loss, limits.max_loss_fail_percent))
    elif loss > limits.max_loss_warn_percent:
        findings.add(WARN, msg.verdict_loss_high(loss, limits.max_loss_warn_percent))


def _check_latency(
    result: BenchResult, fabric: str, limits: Thresholds, findings: _Findings
) -> None:
    p99 = result.latency.p99_us if result.latency else None
    if p99 is None:
        findings.add(WARN, msg.verdict_no_p99())
        return
    limit = limits.p99_limit_us(fabric)
    if p99 > 2 * limit:
        findings.add(FAIL, msg.verdict_p99_high(p99, limit, fabric))
    elif p99 > limit:
        findings.add(WARN, msg.verdict_p99_high(p99, limit, fabric))
