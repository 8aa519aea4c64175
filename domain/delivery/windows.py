"""Per-host time windows: what each server delivered, whether it was up, and how much is known.

Two sources make windows:

- monitoring (:func:`aggregate`): node_exporter's ``node_network_transmit_bytes_total`` and
  ``node_network_receive_bytes_total`` per data device, summed per host and direction; the
  delivered figure is the busier direction (links are committed per direction), in Gbit/s. This
  is *traffic*: it proves the capacity when it reaches the committed figure, but low traffic may be
  an idle job, so these windows are ``saturating=False`` unless the caller knows a saturating test
  ran then;
- the delivery kit (:func:`windows_from_tests`): all pairs tested at once (iperf3, ib_write_bw),
  which fills the links — ``saturating=True``: these windows prove a shortfall.

Windows are aligned on multiples of ``window_s`` since the Unix epoch (an hour: also whole hours in
Asia/Shanghai, whose offset is whole hours).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from domain.delivery.counters import (
    BITS_PER_BYTE,
    DEFAULT_MAX_GAP_S,
    increases,
    spread_over_windows,
)
from domain.delivery.series import Ingest, Series

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

TX = "node_network_transmit_bytes_total"
RX = "node_network_receive_bytes_total"
UP = "up"
DEFAULT_WINDOW_S = 3600

#: Devices that carry no traffic between servers: loopback, container and VM plumbing, bridges,
#: tunnels, bonding/team masters (their slaves are counted; counting both would double it) and
#: ifb devices (traffic shaping mirrors a link's ingress through them: counted twice otherwise).
_NOT_DATA = re.compile(
    r"^(lo|docker\d*|veth.*|br-.*|virbr.*|cni.*|flannel.*|cali.*|vxlan.*|tun\d*|tap.*|"
    r"kube-.*|weave.*|genev_sys.*|ovs-.*|bond\d+|team\d+|dummy.*|ip6tnl.*|sit\d*|tunl\d*|"
    r"nodelocaldns|lxcbr\d*|lxc.*|vnet\d*|wg\d*|ifb\d*)$"
)


def is_data_device(device: str) -> bool:
    """Whether a node_exporter ``device`` carries server-to-server traffic (see module doc)."""
    return bool(device) and _NOT_DATA.match(device) is None


@dataclass(frozen=True)
class Window:
    """One host during one window (``start`` inclusive, ``end`` exclusive; aware UTC)."""

    host: str
    start: datetime
    end: datetime
    delivered_gbps: float | None
    up_fraction: float | None
    samples: int
    coverage: float
    p99_latency_us: float | None = None
    saturating: bool = False
    source: str = "monitoring"

    @property
    def duration_s(self) -> float:
        return (self.end - self.start).total_seconds()


@dataclass(frozen=True)
class KitTest:
    """One pair test of the delivery kit: ``host_a`` sent to ``host_b`` at ``gbps``."""

    host_a: str
    host_b: str
    start: datetime
    end: datetime
    gbps: float
    latency_us: float | None
    tool: str


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def _grid(span: tuple[float, float], window_s: float) -> tuple[float, int]:
    first = math.floor(span[0] / window_s) * window_s
    count = max(1, math.ceil((span[1] - first) / window_s))
    return first, count


def _direction(
    series: Iterable[Series], first: float, window_s: float, count: int, max_gap_s: float
) -> tuple[FloatArray, FloatArray]:
    """Summed mean rate (bytes/s) over a host's devices per window, and the covered share."""
    rate = np.zeros(count)
    cover = np.full(count, np.inf)
    any_series = False
    for s in series:
        any_series = True
        inc = increases(s.ts, s.values, max_gap_s=max_gap_s)
        total, covered = spread_over_windows(
            inc, window_start=first, window_s=window_s, count=count
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            rate += np.where(covered > 0, total / covered, 0.0)
        # A host's window is known as far as its least-covered device is.
        cover = np.minimum(cover, covered / window_s)
    if not any_series:
        cover = np.zeros(count)
    return rate, cover


def _per_window(
    series: Iterable[Series], first: float, window_s: float, count: int
) -> tuple[FloatArray, IntArray]:
    """Sum of the (non-NaN) sample values and the sample count per window."""
    sums = np.zeros(count)
    counts = np.zeros(count, dtype=np.int64)
    for s in series:
        k = np.floor((s.ts - first) / window_s).astype(np.int64)
        ok = (k >= 0) & (k < count) & np.isfinite(s.values)
        np.add.at(sums, k[ok], s.values[ok])
        np.add.at(counts, k[ok], 1)
    return sums, counts


def aggregate(
    ingest: Ingest,
    *,
    window_s: float = DEFAULT_WINDOW_S,
    committed_hosts: Collection[str],
    max_gap_s: float = DEFAULT_MAX_GAP_S,
    saturating: bool = False,
) -> list[Window]:
    """Windows per committed host over the ingest's span (a host without any series gets windows
    with no data). See the module doc for which devices count and what "delivered" is."""
    span = ingest.span()
    if span is None:
        return []
    first, count = _grid(span, window_s)
    by_host: dict[str, dict[str, list[Series]]] = defaultdict(lambda: defaultdict(list))
    for (host, device, metric), s in ingest.series.items():
        if metric in (TX, RX) and not is_data_device(device):
            continue
        by_host[host][metric].append(s)
    out: list[Window] = []
    for host in sorted(committed_hosts):
        metrics = by_host.get(host, {})
        tx, tx_cover = _direction(metrics.get(TX, []), first, window_s, count, max_gap_s)
        rx, rx_cover = _direction(metrics.get(RX, []), first, window_s, count, max_gap_s)
        coverage = np.clip(np.maximum(tx_cover, rx_cover), 0.0, 1.0)
        delivered = np.maximum(tx, rx) * BITS_PER_BYTE / 1e9
        up_sum, up_n = _per_window(metrics.get(UP, []), first, window_s, count)
        _, n_traffic = _per_window(
            metrics.get(TX, []) + metrics.get(RX, []), first, window_s, count
        )
        for k in range(count):
            start = first + k * window_s
            out.append(
                Window(
                    host=host,
                    start=_utc(start),
                    end=_utc(start + window_s),
                    delivered_gbps=float(delivered[k]) if coverage[k] > 0 else None,
                    up_fraction=float(up_sum[k] / up_n[k]) if up_n[k] else None,
                    samples=int(n_traffic[k] + up_n[k]),
                    coverage=float(coverage[k]),
                    saturating=saturating,
                    source="monitoring",
                )
            )
    return out


def windows_from_tests(
    tests: Iterable[KitTest], *, window_s: float = DEFAULT_WINDOW_S
) -> list[Window]:
    """Kit results as saturating windows, one per host and window that holds a test.

    A test whose figure is not a finite, non-negative number is left out. Tests that overlap in
    time form one round (all pairs at once); per host and round the sent and
    received rates are summed over its pairs and the busier direction is what the host delivered.
    Several rounds in one window: their mean. P99 latency per host and window: the 99th percentile
    of the latencies of its pairs' tests (``None`` when no test measured latency).
    """
    per_cell: dict[tuple[str, int], list[float]] = defaultdict(list)
    latencies: dict[tuple[str, int], list[float]] = defaultdict(list)
    counts: dict[tuple[str, int], int] = defaultdict(int)
    tools: dict[tuple[str, int], set[str]] = defaultdict(set)
    usable = [t for t in tests if math.isfinite(t.gbps) and t.gbps >= 0]
    for batch in _rounds(usable):
        k = math.floor(min(t.start.timestamp() for t in batch) / window_s)
        sent: dict[str, float] = defaultdict(float)
        received: dict[str, float] = defaultdict(float)
        for t in batch:
            sent[t.host_a] += t.gbps
            received[t.host_b] += t.gbps
            for host in (t.host_a, t.host_b):
                counts[(host, k)] += 1
                tools[(host, k)].add(t.tool)
                if t.latency_us is not None and math.isfinite(t.latency_us):
                    latencies[(host, k)].append(t.latency_us)
        for host in set(sent) | set(received):
            per_cell[(host, k)].append(max(sent[host], received[host]))
    out = []
    for (host, k), figures in sorted(per_cell.items()):
        lat = latencies.get((host, k))
        out.append(
            Window(
                host=host,
                start=_utc(k * window_s),
                end=_utc((k + 1) * window_s),
                delivered_gbps=sum(figures) / len(figures),
                up_fraction=None,
                samples=counts[(host, k)],
                coverage=1.0,
                p99_latency_us=float(np.percentile(lat, 99)) if lat else None,
                saturating=True,
                source="kit:" + ",".join(sorted(tools[(host, k)])),
            )
        )
    return out


def _rounds(tests: Iterable[KitTest]) -> list[list[KitTest]]:
    """Tests grouped into rounds: a test that starts before the round's last end joins it."""
    rounds: list[list[KitTest]] = []
    end = None
    for t in sorted(tests, key=lambda t: (t.start, t.end)):
        if end is not None and t.start < end:
            rounds[-1].append(t)
            end = max(end, t.end)
        else:
            rounds.append([t])
            end = t.end
    return rounds
