"""Alpha-beta link model: a collective costs latency per ring step plus per-rank volume over the
bandwidth of the slowest link it crosses (docs/MODEL.md §Links).

Placement follows Megatron's rank order (tp innermost, then cp, dp, pp): a group of `n` ranks whose
members are `stride` ranks apart stays inside a server when `n * stride <= gpus_per_node`.
Inside a server the NVLink/PCIe bandwidth of the GPU table applies; across servers each rank gets
its share of the server's NICs (Calculon's per-processor network bandwidth), unless nccl-tests
evidence gives the busbw per rank, which then wins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from domain.trainmodel.inputs import Cluster

# Ring busbw reached as a share of the wire. RDMA: NCCL maintainers quote ~24 GB/s busbw per HDR
# 200G NIC (0.96) and 46-48 GB/s per 400G NIC (0.92-0.96); RoCE takes the lower end. NCCL over
# TCP sockets reaches 10-45% of a 100G line (NVIDIA/nccl#209, #450); 0.35 is taken.
FABRIC_EFFICIENCY = {"ib": 0.96, "roce": 0.92, "tcp": 0.35}
# Latency per ring step, seconds: microseconds on RDMA, tens of microseconds on TCP sockets.
FABRIC_ALPHA_S = {"ib": 5e-6, "roce": 8e-6, "tcp": 50e-6}
# NVLink: ~370 of 450 GB/s effective ring busbw on H100 (NCCL maintainers, nccl-tests#290), 0.82.
# PCIe and HCCS: the same share assumed (no published figure in the validation set).
# One ring step across servers with NCCL's Simple protocol (the one large transfers use): NCCL's
# own tuning model puts it at 9.6 us per step over the network (src/graph/tuning.cc, hwLat NET,
# Ring, Simple), above the one-hop alpha of small messages.
RING_STEP_ALPHA_S = 9.6e-6
INTRA_EFFICIENCY = {"nvlink": 0.82, "pcie": 0.80, "hccs": 0.80}
INTRA_ALPHA_S = {"nvlink": 3e-6, "pcie": 5e-6, "hccs": 5e-6}

# Rails (MODEL.md §Links, rail-optimised fabrics). With rail-optimised servers (NVIDIA DGX
# SuperPOD reference architecture; Wang et al., "Rail-only", arXiv:2307.12169) NIC i of every
# server sits on leaf i, so NCCL's inter-node ring of local rank i stays on rail i: one switch
# hop, no spine, whatever the number of servers. Without rails all NICs of a server go to its
# rack's switch; a group spanning more servers than one rack holds crosses the spine: two more
# switch hops per ring step and flows hashed onto spine uplinks by ECMP, which collide (Meta,
# Gangidi et al., SIGCOMM 2024, "RDMA over Ethernet for distributed AI training at Meta scale":
# more ECMP entropy per connection improved AllReduce by up to 40% over plain ECMP). Assumption:
# the spine path delivers 0.8 of the rail path (between plain ECMP's ~1/1.4 and 1). Unknown rails
# are taken as rails (shown as an assumption); measured busbw already includes the topology.
NON_RAIL_SPINE_EFFICIENCY = 0.8
# One switch traversal: ~0.1-0.2 us on InfiniBand, ~0.5 us cut-through Ethernet, 1 us TCP path.
SWITCH_HOP_S = {"ib": 0.15e-6, "roce": 0.5e-6, "tcp": 1e-6}
# Servers per rack switch when the quote does not say: 4 eight-GPU servers per rack (DGX
# SuperPOD H100 reference architecture).
DEFAULT_SERVERS_PER_RACK = 4
NO_SPINE = 1 << 30

# NCCL's own latency model (NVIDIA/nccl src/graph/tuning.cc, the table NCCL uses to choose a
# protocol per call; docs/MODEL.md §21.1): per-step latency of the ring algorithm by link kind for
# the protocols (LL, LL128, Simple), and the base latency of a ring call. A Reduce runs the ring as
# a pipelined chain of nRanks steps; across servers NCCL charges each Simple step the 50 us
# "chunk latency" of its tree table. LL moves 4 data bytes per 8-byte line and NCCL models it at
# 1/4 of the ring's bus bandwidth across servers (1/3 inside one); LL128 at 120/128 (0.92).
NCCL_RING_HOP_S = {
    "nvlink": (0.47e-6, 1.9e-6, 3.4e-6),
    "pcie": (1.0e-6, 2.5e-6, 5.7e-6),
    "net": (2.7e-6, 4.0e-6, 9.6e-6),
}
NCCL_RING_BASE_S = (3.6e-6, 10.0e-6, 8.4e-6)
NCCL_CHAIN_SIMPLE_NET_HOP_S = 50e-6
NCCL_PROTOCOL_BW_SHARE_NET = (0.25, 0.92, 1.0)
NCCL_PROTOCOL_BW_SHARE_INTRA = (1.0 / 3.0, 0.92, 1.0)

# Volume factor per rank (x S) and ring steps (x (n-1)) per collective kind.
_VOLUME = {"ar": 2.0, "ag": 1.0, "rs": 1.0, "a2a": 1.0}
_STEPS = {"ar": 2.0, "ag": 1.0, "rs": 1.0, "a2a": 1.0}


@dataclass(frozen=True, slots=True)
class Links:
    """Bandwidths (bytes/s per rank) and latencies (s) of one offer, computed once."""

    intra_bps: float
    intra_alpha_s: float
    inter_bps: float
    inter_alpha_s: float
    gpus_per_node: int
    basis: str  # "measured" or "nominal"
    table: tuple[tuple[float, float], ...] = ()
    # A cross-node group over more than `spine_after` servers crosses the spine (no rails).
    spine_after: int = NO_SPINE
    spine_factor: float = 1.0
    spine_alpha_s: float = 0.0
    # Hopper-class GPUs over NVLink run Megatron's --tp-comm-overlap (steptime).
    tp_comm_overlap: bool = False
    # Storage read bandwidth into one server, bytes/s (0: not stated; steptime data loading).
    ingress_bps: float = 0.0
    # The server's GPU link kind ("nvlink", "pcie", "hccs"): NCCL's per-hop latency table.
    intra_kind: str = "nvlink"

    def inter_at(self, message_bytes: float) -> float:
        """Inter-node bytes/s per rank at a message size (evidence table when given)."""
        if not self.table:
            return self.inter_bps
        return min(_interpolate(self.table, message_bytes), self.intra_bps)

    def intra_only(self) -> Links:
        """These links with everything beyond the server set to one canonical value: what a
        group inside one server sees (its figures, and a cache keyed by it, are then shared
        by offers whose servers are alike and whose networks differ)."""
        return Links(
            self.intra_bps, self.intra_alpha_s, 0.0, 0.0, self.gpus_per_node, "",
            tp_comm_overlap=self.tp_comm_overlap, intra_kind=self.intra_kind,
        )  # fmt: skip

    def flattened(self) -> Links:
        """These links with every message size at the best inter-node bandwidth of the evidence
        table: no collective over them is slower than over the real links (a lower bound)."""
        if not self.table:
            return self
        best = min(max(bps for _size, bps in self.table), self.intra_bps)
        return replace(self, table=(), inter_bps=best)


def links_for(cluster: Cluster) -> Links:
    gpu = cluster.gpu
    intra = gpu.intra_gbyte_s * 1e9 * INTRA_EFFICIENCY.get(gpu.intra_kind, 0.8)
    share = cluster.nic_gbps * cluster.nics_per_node / max(cluster.gpus_per_node, 1) / 8 * 1e9
    inter = share * FABRIC_EFFICIENCY.get(cluster.fabric, 0.35)
    basis = "nominal"
    table: tuple[tuple[float, float], ...] = ()
    if cluster.busbw_table:
        table = tuple(sorted((float(s), float(g) / 8 * 1e9) for s, g in cluster.busbw_table))
        basis = "measured"
    elif cluster.measured_busbw_gbps:
        inter = cluster.measured_busbw_gbps / 8 * 1e9
        basis = "measured"
    elif cluster.measured_link_gbps:
        # One link, one direction, per NIC (item 7): the collective still pays the fabric
        # efficiency on top; a bidirectional test counted both directions.
        link = cluster.measured_link_gbps / (2 if cluster.link_bidirectional else 1)
        per_gpu = link * cluster.nics_per_node / max(cluster.gpus_per_node, 1) / 8 * 1e9
        inter = per_gpu * FABRIC_EFFICIENCY.get(cluster.fabric, 0.35)
        basis = "measured"
    spine: dict[str, float | int] = {}
    if cluster.rail_optimised is False and basis == "nominal":
        spine = {
            "spine_after": cluster.servers_per_rack or DEFAULT_SERVERS_PER_RACK,
            "spine_factor": NON_RAIL_SPINE_EFFICIENCY,
            "spine_alpha_s": 2 * SWITCH_HOP_S.get(cluster.fabric, 1e-6),
        }
    return Links(
        intra_bps=intra,
        intra_alpha_s=INTRA_ALPHA_S.get(gpu.intra_kind, 5e-6),
        inter_bps=min(inter, intra) if intra > 0 else inter,
        inter_alpha_s=FABRIC_ALPHA_S.get(cluster.fabric, 50e-6),
        gpus_per_node=cluster.gpus_per_node,
        basis=basis,
        table=table,
        tp_comm_overlap=bool(gpu.fp8_tflops) and gpu.intra_kind == "nvlink",
        ingress_bps=(cluster.storage_ingress_gbyte_s or 0.0) * 1e9,
        intra_kind=gpu.intra_kind,
        **spine,  # type: ignore[arg-type]
    )


def _interpolate(table: tuple[tuple[float, float], ...], size: float) -> float:
    """Busbw at `size`, linear in log(size) between the measured points, flat outside."""
    if size <= table[0][0]:
        return table[0][1]
    for (s0, b0), (s1, b1) in zip(table, table[1:], strict=False):
        if size <= s1:
            f = (math.log(size) - math.log(s0)) / (math.log(s1) - math.log(s0))
            return b0 + f * (b1 - b0)
    return table[-1][1]


def placement(n: int, stride: int, gpus_per_node: int) -> tuple[int, int]:
    """(ranks of the group per server, servers the group spans)."""
    if n * stride <= gpus_per_node:
        return n, 1
    local = max(1, gpus_per_node // stride) if stride < gpus_per_node else 1
    local = min(local, n)
    return local, max(
        1, -(-n // local)
    )  # a group that does not fill its last server still spans it


def collective_s(kind: str, size_bytes: float, n: int, stride: int, links: Links) -> float:
    """Seconds for one collective of `size_bytes` (the full buffer S) among `n` ranks."""
    if n <= 1 or size_bytes <= 0:
        return 0.0
    return collective_latency_s(kind, n, stride, links) + transfer_s(
        kind, size_bytes, n, stride, links
    )


def transfer_s(kind: str, size_bytes: float, n: int, stride: int, links: Links) -> float:
    """The bandwidth part of one collective: its per-rank volume over the slowest link."""
    if n <= 1 or size_bytes <= 0:
        return 0.0
    local, nodes = placement(n, stride, links.gpus_per_node)
    volume = _VOLUME[kind] * (n - 1) / n * size_bytes
    if nodes == 1:
        return volume / links.intra_bps
    inter_bps = links.inter_at(size_bytes)
    if nodes > links.spine_after:  # no rails and more servers than one rack: the spine
        inter_bps *= links.spine_factor
    if kind == "a2a":
        # Every rank sends its own share to the other servers at once: each gets its share of
        # the NICs. Peers inside the server go over NVLink, the rest over the NICs, together.
        intra = (local - 1) / n * size_bytes / links.intra_bps
        inter = (n - local) / n * size_bytes / inter_bps
        return max(intra, inter)
    return volume / group_bps(inter_bps, local, links)


def collective_latency_s(kind: str, n: int, stride: int, links: Links) -> float:
    """The latency part of one collective: what it costs whatever its size."""
    if n <= 1:
        return 0.0
    local, nodes = placement(n, stride, links.gpus_per_node)
    if nodes == 1:
        return _STEPS[kind] * (local - 1) * links.intra_alpha_s
    inter_alpha = links.inter_alpha_s
    if nodes > links.spine_after:
        inter_alpha += links.spine_alpha_s
    if kind == "a2a":
        return _STEPS[kind] * ((local - 1) * links.intra_alpha_s + (nodes - 1) * inter_alpha)
    return ring_latency_s(kind, local, nodes, inter_alpha, links)


def group_bps(per_gpu_bps: float, local: int, links: Links) -> float:
    """Per-rank bus bandwidth of a ring crossing servers with `local` ranks in each server.

    NCCL runs one channel per NIC and drives every NIC of the server (NVIDIA/nccl#412: one HDR
    NIC under eight GPUs gives 24 GB/s busbw per rank; nccl-tests#309: eight 400G NICs give
    ~470 GB/s busbw per rank on two servers). In a ring only one edge per channel leaves a
    server, so a group's busbw per rank is the network share of the server its `local` ranks
    hold: the other gpus_per_node/local groups of the same kind (one per tensor-parallel
    rank) run at the same time and share the NICs. A group with one rank per server gets one
    GPU's share; a group holding the whole server gets all its NICs, up to the NVLink busbw
    the intra-server edges of the ring allow."""
    return min(per_gpu_bps * local, links.intra_bps)


def ring_latency_s(kind: str, local: int, nodes: int, inter_alpha: float, links: Links) -> float:
    """Latency of a collective crossing servers. All-gather and reduce-scatter run NCCL's
    ring: each of its n - 1 steps waits for the slowest edge, an inter-server one, so every
    step pays the network's alpha. All-reduce runs NCCL's tree across servers (the default at
    scale), whose depth grows with log2 of the servers, inside a server a chain."""
    if kind in ("ag", "rs"):
        return (local * nodes - 1) * max(inter_alpha, RING_STEP_ALPHA_S)
    depth = math.ceil(math.log2(nodes)) if nodes > 1 else 0
    return _STEPS[kind] * ((local - 1) * links.intra_alpha_s + depth * inter_alpha)


def reduce_s(size_bytes: float, n: int, stride: int, links: Links) -> float:
    """One NCCL Reduce of `size_bytes` onto one rank of `n` (docs/MODEL.md §21.1). NCCL runs it as
    a pipelined chain through every rank: the data crosses each link once (S over the ring's bus
    bandwidth per rank) and the pipeline fills over nRanks steps, each paying the per-hop latency
    of NCCL's tuning table (every hop at the network's figure once the group spans servers, as
    NCCL models it). NCCL picks the protocol with the least modelled time, so the least of the
    three is taken. A fabric slower to answer than InfiniBand (RoCE, TCP sockets) adds its extra
    per-step latency (FABRIC_ALPHA_S) to every network hop."""
    if n <= 1 or size_bytes <= 0:
        return 0.0
    local, nodes = placement(n, stride, links.gpus_per_node)
    if nodes == 1:
        bps = links.intra_bps
        hops = NCCL_RING_HOP_S["nvlink" if links.intra_kind == "nvlink" else "pcie"]
        shares = NCCL_PROTOCOL_BW_SHARE_INTRA
        extra = 0.0
    else:
        inter_bps = links.inter_at(size_bytes)
        if nodes > links.spine_after:
            inter_bps *= links.spine_factor
        bps = group_bps(inter_bps, local, links)
        ll, ll128, _simple = NCCL_RING_HOP_S["net"]
        hops = (ll, ll128, NCCL_CHAIN_SIMPLE_NET_HOP_S)
        shares = NCCL_PROTOCOL_BW_SHARE_NET
        extra = max(0.0, links.inter_alpha_s - FABRIC_ALPHA_S["ib"])
        if nodes > links.spine_after:
            extra += links.spine_alpha_s
    return min(
        base + n * (hop + extra) + size_bytes / (bps * share)
        for base, hop, share in zip(NCCL_RING_BASE_S, hops, shares, strict=True)
    )


def p2p_s(size_bytes: float, crosses_nodes: bool, links: Links) -> float:
    """One point-to-point send between neighbouring pipeline stages."""
    if size_bytes <= 0:
        return 0.0
    if crosses_nodes:
        return links.inter_alpha_s + size_bytes / links.inter_at(size_bytes)
    return links.intra_alpha_s + size_bytes / links.intra_bps
