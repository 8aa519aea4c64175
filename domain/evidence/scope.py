"""What one parsed log measured: its scope, kind, direction, hosts and time window (DOMAIN.md §9).

A parser's ``BenchResult`` holds the tool's figures; this module says what those figures are
evidence *of*, so that the rule in ``offer.py`` never treats one port as a server, a loss test as
capacity, or a latency as bandwidth:

- ``ib_*_bw`` measures one HCA port (the ``-d`` device) between two hosts;
- ``iperf3`` measures TCP (or UDP) between two addresses, which routing pins to one NIC: one port
  (``-P`` adds streams, not NICs);
- nccl-tests across N hosts and R ranks reports bus bandwidth per rank with NCCL driving every NIC
  of each server; on a single host it measures NVLink/PCIe, not the network;
- iperf3 UDP runs at the rate set with ``-b`` (1 Mbit/s when not set): a loss and jitter test.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.benchlogs.measures import percentile
from domain.benchlogs.result import COLLECTIVE, NCCL, RDMA_BW, RDMA_LAT, TCP, UDP, BenchResult
from domain.benchlogs.warmup import steady_intervals

# Kinds: what question a log answers. Never averaged or summed across kinds.
TCP_THROUGHPUT = "tcp_throughput"
UDP_AT_RATE = "udp_at_rate"
RDMA_BANDWIDTH = "rdma_bw"
RDMA_LATENCY = "rdma_latency"
COLLECTIVE_BUSBW = "collective_busbw"
# Kinds that can say how much a server's network carries (UDP at a set rate and latency cannot).
CAPACITY_KINDS = (COLLECTIVE_BUSBW, RDMA_BANDWIDTH, TCP_THROUGHPUT)

# Scopes: how much of a server one log covers.
ONE_PORT = "port"
HOST_PAIR = "host_pair"  # one host pair over all its NICs (a figure the tool already summed)
COLLECTIVE_HOSTS = "collective"  # a collective across N hosts and R ranks
ONE_HOST = "one_host"  # a collective inside one server: NVLink / PCIe, not the network

_KINDS = {TCP: TCP_THROUGHPUT, UDP: UDP_AT_RATE, RDMA_BW: RDMA_BANDWIDTH, RDMA_LAT: RDMA_LATENCY}


@dataclass(frozen=True)
class Evidence:
    """One log, described by what it measured. Rates Gbit/s, times s (the tool's own clock).

    ``gbps`` is the figure that counts for one link (or one rank, for a collective): the 5th
    percentile of the steady intervals when the log has intervals (an all-reduce runs at the pace
    of its slowest link at its slowest moments, COST-MODEL.md step 3), else the tool's one figure.
    ``mean_gbps`` is the tool's own average. ``link`` names the link tested (the iperf3 server
    address, the collective's shape) so tests on one link can be told from tests on distinct
    links; None when the log does not say (``_link``).
    """

    label: str
    kind: str
    scope: str
    direction: str
    gbps: float | None
    mean_gbps: float | None
    intervals: tuple[float, ...] = ()
    link: str | None = None
    hosts: int | None = None
    ranks: int | None = None
    start_s: float | None = None
    duration_s: float | None = None
    target_gbps: float | None = None
    streams: int | None = None
    tool: str = ""
    batch: str = ""  # the test run the log came in
    # The uploader declared that the tests of the log's run were started at the same time: only
    # then do untimed logs on distinct links of that run form one concurrent set (``sets.py``).
    declared_together: bool = False
    # The tool's clock (s) at the middle of each steady interval, when the log has a start time
    # and interval times: tests sharing one link are summed second by second on it.
    interval_at: tuple[float, ...] = ()
    tests: int = 1  # tests this evidence stands for (several sharing one link at once)

    @property
    def window(self) -> tuple[float, float] | None:
        """(start, end) on the tool's clock, or None when the log prints no start time."""
        if self.start_s is None or self.duration_s is None:
            return None
        return (self.start_s, self.start_s + self.duration_s)

    @property
    def counts_as_capacity(self) -> bool:
        return self.kind in CAPACITY_KINDS and self.scope != ONE_HOST and bool(self.gbps)


def describe(
    result: BenchResult, label: str = "", batch: str = "", *, declared_together: bool = False
) -> Evidence | None:
    """What ``result`` measured; None when the log gave no figure (an error, a failed test).
    ``declared_together``: the log's run is declared by its uploader to have started its tests
    at the same time (the batch-level declaration ``sets.group`` honours for untimed logs)."""
    if result.error is not None or (result.throughput_gbps is None and result.latency is None):
        return None
    kind = COLLECTIVE_BUSBW if result.measured_kind == COLLECTIVE else _KINDS.get(result.test or "")
    if kind is None:
        return None
    steady = steady_intervals(result) if result.interval_gbps else ()
    return Evidence(
        interval_at=_interval_at(result, len(steady)),
        label=label,
        kind=kind,
        scope=_scope(result, kind),
        direction=result.direction_used or result.direction,
        gbps=percentile(steady, 0.05) if steady else result.throughput_gbps,
        mean_gbps=result.throughput_gbps,
        intervals=tuple(steady),
        link=_link(result),
        hosts=result.hosts,
        ranks=result.ranks,
        start_s=result.start_time_s,
        duration_s=result.duration_s,
        target_gbps=_target_gbps(result) if kind == UDP_AT_RATE else None,
        streams=result.streams,
        tool=result.tool,
        batch=batch,
        declared_together=declared_together,
    )


def _scope(result: BenchResult, kind: str) -> str:
    if kind == COLLECTIVE_BUSBW or result.test == NCCL:
        return ONE_HOST if result.hosts == 1 else COLLECTIVE_HOSTS
    return ONE_PORT


def _link(result: BenchResult) -> str | None:
    """The link a test ran on, when the log names it: the peer address for iperf3 (its port is
    left out: a server log sees a new client port per test), the shape of a collective. A
    perftest log names only its device (``mlx5_0``), which every server has: two such logs
    may be one port twice or two servers, so each stands for itself (None)."""
    if result.measured_kind == COLLECTIVE:
        return f"{result.collective or 'collective'}:{result.hosts or '?'}x{result.ranks or '?'}"
    return result.peer or None


def _target_gbps(result: BenchResult) -> float | None:
    """The ``-b`` rate of an iperf3 UDP test (``target_bitrate`` in bit/s), when the log says."""
    raw = dict(result.header).get("target_bitrate")
    try:
        value = float(raw) if raw is not None else None
    except ValueError:
        return None
    return value / 1e9 if value else None


def _interval_at(result: BenchResult, steady: int) -> tuple[float, ...]:
    """Middle of each steady interval on the tool's clock; () when the log cannot say."""
    starts, ends = result.interval_start_s, result.interval_end_s
    total = len(result.interval_gbps)
    if result.start_time_s is None or not steady or len(starts) != total or len(ends) != total:
        return ()
    first = total - steady
    return tuple(
        result.start_time_s + (a + b) / 2 for a, b in zip(starts[first:], ends[first:], strict=True)
    )
