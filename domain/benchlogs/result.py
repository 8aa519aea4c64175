"""The single result shape every parser returns.

All rates are Gbit/s (10^9 bit/s), all latencies µs, all times seconds: the parsers convert from
whatever unit the log printed, so callers never see a tool's own units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.messages import Message

# Test kinds.
TCP = "tcp"
UDP = "udp"
RDMA_BW = "rdma_bw"
RDMA_LAT = "rdma_lat"
NCCL = "nccl"

# Directions.
FORWARD = "forward"
REVERSE = "reverse"
BIDIR = "bidir"

# What the cost model should treat ``throughput_gbps`` as (COST-MODEL.md step 3).
LINK = "link"
COLLECTIVE = "collective"


@dataclass(frozen=True)
class Series:
    """One per-interval series for plots: a stream (``stream 5``) or a direction (``reverse``)."""

    label: str
    gbps: tuple[float, ...]


@dataclass(frozen=True)
class StreamSummary:
    """End-of-test figures of one stream (``stream 5``) or one direction (``reverse``)."""

    label: str
    receiver_gbps: float | None = None
    sender_gbps: float | None = None
    bytes_received: float | None = None
    bytes_sent: float | None = None
    retransmits: int | None = None


@dataclass(frozen=True)
class LatencyStats:
    """perftest latency statistics for one message size, in µs; None where the log has none."""

    min_us: float | None = None
    max_us: float | None = None
    typical_us: float | None = None
    avg_us: float | None = None
    stdev_us: float | None = None
    p99_us: float | None = None
    p999_us: float | None = None


@dataclass(frozen=True)
class NcclTiming:
    """One half (out-of-place or in-place) of an nccl-tests row."""

    time_us: float
    algbw_gbps: float
    busbw_gbps: float
    wrong: float | None  # `#wrong` count or old `error` value; None for N/A


@dataclass(frozen=True)
class NcclRow:
    count: int
    dtype: str
    redop: str | None
    root: int | None
    out_of_place: NcclTiming
    in_place: NcclTiming


@dataclass(frozen=True)
class SizeRow:
    """One message-size row of a perftest or nccl-tests table.

    For nccl-tests, ``bw_avg_gbps`` is the mean of the out-of-place and in-place busbw (the same
    averaging nccl-tests uses for its own "Avg bus bandwidth") and ``bw_peak_gbps`` the higher.
    """

    bytes: int
    iterations: int | None = None
    bw_peak_gbps: float | None = None
    bw_avg_gbps: float | None = None
    msg_rate_mpps: float | None = None
    latency: LatencyStats | None = None
    nccl: NcclRow | None = None


@dataclass(frozen=True)
class BenchResult:
    """A parsed benchmark log.

    ``throughput_gbps`` is the receiver-side figure that counts, always one direction (for
    nccl-tests: the bus bandwidth at the largest message size, with ``measured_kind`` =
    ``collective``; nccl-tests' own average over all sizes is ``avg_busbw_gbps``). It is None
    when the log cannot vouch for it, e.g. after an iperf3 error; ``error`` then says why.

    Bidirectional tests (iperf3 ``--bidir``, perftest ``-b``) keep each direction in
    ``per_direction`` and the sum in ``bidir_total_gbps``; ``throughput_gbps`` and
    ``interval_gbps`` are the lower direction, named by ``direction_used`` (see directions.py).
    UDP: ``interval_gbps`` is what the receiver got; the client's sending rate per interval,
    when that is what the log printed, is ``interval_sent_gbps``.
    """

    tool: str
    test: str | None
    direction: str = FORWARD
    streams: int | None = None
    duration_s: float | None = None
    throughput_gbps: float | None = None
    sender_gbps: float | None = None
    measured_kind: str = LINK
    avg_busbw_gbps: float | None = None
    bidir_total_gbps: float | None = None
    direction_used: str | None = None
    interval_sent_gbps: tuple[float, ...] = ()
    interval_start_s: tuple[float, ...] = ()
    interval_end_s: tuple[float, ...] = ()
    interval_gbps: tuple[float, ...] = ()
    interval_bytes: tuple[float, ...] = ()
    interval_retransmits: tuple[int, ...] = ()
    interval_packets: tuple[int, ...] = ()
    omitted_intervals: int = 0
    zero_length_intervals: int = 0
    series: tuple[Series, ...] = ()
    per_stream: tuple[StreamSummary, ...] = ()
    per_direction: tuple[StreamSummary, ...] = ()
    bytes_sent: float | None = None
    bytes_received: float | None = None
    retransmits: int | None = None
    lost_percent: float | None = None
    lost_packets: int | None = None
    packets: int | None = None
    packets_sent: int | None = None
    out_of_order: int | None = None
    jitter_ms: float | None = None
    latency: LatencyStats | None = None
    sizes: tuple[SizeRow, ...] = ()
    link_type: str | None = None
    fabric: str | None = None
    device: str | None = None
    version: str | None = None
    role: str | None = None
    peer: str | None = None
    peer_port: int | None = None
    start_time_s: float | None = None
    collective: str | None = None
    ranks: int | None = None
    # nccl-tests: how many distinct hosts its rank lines name (None when it prints none).
    hosts: int | None = None
    header: tuple[tuple[str, str], ...] = ()
    server: BenchResult | None = None
    warnings: tuple[Message, ...] = field(default=())
    error: Message | None = None
    truncated: bool = False

    @property
    def intervals(self) -> int:
        return len(self.interval_gbps)
