"""What a link can carry: its data rate after line encoding, and TCP goodput after headers.

A link's advertised figure is not always the rate at which it moves data (DOMAIN.md §9, "What a
link can carry"). One table, with its sources:

InfiniBand (InfiniBand Architecture Specification vol. 2, Physical Layer, release 1.3/1.4/1.5,
"Signaling rates"; NVIDIA/Mellanox "InfiniBand Data Rates" in the ConnectX and Quantum manuals):

===========  ============  =========  ==============  ======================================
generation   4x advertised  encoding   4x data rate    why
===========  ============  =========  ==============  ======================================
SDR          10            8b/10b     8               2.5 Gbaud/lane, 8 of every 10 bits data
DDR          20            8b/10b     16              5 Gbaud/lane
QDR          40            8b/10b     32              10 Gbaud/lane
FDR10        40            64b/66b    40              10.3125 Gbaud/lane (signalling 41.25)
FDR          56            64b/66b    54.55           14.0625 Gbaud/lane: 56.25 × 64/66
EDR          100           64b/66b    100             25.78125 Gbaud/lane: 103.125 × 64/66
HDR          200           64b/66b    200             50 Gb/s PAM4 lane data, FEC on top
NDR          400           64b/66b    400             100 Gb/s PAM4 lane data
XDR          800           64b/66b    800             200 Gb/s PAM4 lane data
===========  ============  =========  ==============  ======================================

From EDR on, the advertised figure is already the data rate (the signalling carries the 64b/66b
overhead and the FEC); SDR/DDR/QDR advertise the signalling rate, and FDR the 64b/66b signalling.

Ethernet (IEEE 802.3: 10GBASE-R and faster run 64b/66b at 10.3125 Gbaud and up, so the
advertised 10/25/40/100/200/400/800G is the MAC data rate). What TCP delivers over it is the data
rate less per-frame overhead (RFC 6349 §3.3.1, "maximum achievable TCP throughput"): each frame
of MTU bytes costs MTU + 38 on the wire (14 header, 4 FCS, 8 preamble, 12 inter-frame gap) and
carries MTU − 52 bytes of TCP payload (20 IPv4, 20 TCP, 12 TCP timestamps option, RFC 7323):
1448 / 1538 = 94.1 % at 1500 bytes, 8948 / 9038 = 99.0 % at 9000.

RDMA over a link moves payload in packets of the path MTU (4096 bytes usual for IB and RoCE):
InfiniBand adds LRH 8 + BTH 12 + RETH 16 + ICRC 4 + VCRC 2 bytes per packet (IBTA vol. 1 §5),
RoCEv2 Ethernet 14 + FCS 4 + preamble/IFG 20 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4
(IBTA Annex A17). These give the share of the data rate an RDMA write can show.
"""

from __future__ import annotations

from dataclasses import dataclass

IB = "ib"
ROCE = "roce"
TCP = "tcp"
FABRICS = (IB, ROCE, TCP)

# RFC 6349 §3.3.1 (see the module docstring): wire overhead and header bytes per frame.
_ETH_WIRE_OVERHEAD = 38
_TCP_IP_HEADERS = 52
_IB_RDMA_HEADERS = 42
_ROCE_RDMA_HEADERS = 98
_RDMA_MTU = 4096


@dataclass(frozen=True)
class IbGeneration:
    name: str
    advertised_gbps: float  # 4x, as sold
    encoding: str
    data_gbps: float  # 4x, after line encoding


IB_GENERATIONS = (
    IbGeneration("SDR", 10.0, "8b/10b", 8.0),
    IbGeneration("DDR", 20.0, "8b/10b", 16.0),
    IbGeneration("QDR", 40.0, "8b/10b", 32.0),
    IbGeneration("FDR", 56.0, "64b/66b", 56.25 * 64 / 66),
    IbGeneration("EDR", 100.0, "64b/66b", 100.0),
    IbGeneration("HDR", 200.0, "64b/66b", 200.0),
    IbGeneration("NDR", 400.0, "64b/66b", 400.0),
    IbGeneration("XDR", 800.0, "64b/66b", 800.0),
)


def ib_generation(nominal_gbps: float) -> IbGeneration | None:
    """The IB generation sold at ``nominal_gbps`` per port (4x), or per 1x/2x/8x/12x multiple
    of one (an HDR100 port is a 2x HDR): None for a rate no generation is sold at."""
    for gen in IB_GENERATIONS:
        for width in (1, 2, 4, 8, 12):
            if abs(gen.advertised_gbps * width / 4 - nominal_gbps) < 1e-6:
                return IbGeneration(gen.name, nominal_gbps, gen.encoding, gen.data_gbps * width / 4)
    return None


def data_rate_gbps(fabric: str, nominal_gbps: float) -> float:
    """The link's data rate after line encoding (the most any test of it can show)."""
    if fabric == IB:
        gen = ib_generation(nominal_gbps)
        return gen.data_gbps if gen is not None else nominal_gbps
    return nominal_gbps  # Ethernet: the advertised rate is the MAC data rate (64b/66b)


def tcp_goodput_share(mtu: int = 1500) -> float:
    """The share of an Ethernet link's data rate TCP payload gets at ``mtu`` (RFC 6349)."""
    return (mtu - _TCP_IP_HEADERS) / (mtu + _ETH_WIRE_OVERHEAD)


def rdma_payload_share(fabric: str, mtu: int = _RDMA_MTU) -> float:
    """The share of the data rate an RDMA write's payload gets at path MTU ``mtu``."""
    headers = _IB_RDMA_HEADERS if fabric == IB else _ROCE_RDMA_HEADERS
    return mtu / (mtu + headers)


def achievable_gbps(
    fabric: str, nominal_gbps: float, *, mtu: int | None = None, transport: str | None = None
) -> float:
    """What a clean test of one port of ``fabric`` sold at ``nominal_gbps`` can show at best.

    ``transport``: "rdma" (ib_*_bw, the default on IB and RoCE) or "tcp" (iperf3, the default
    on TCP/Ethernet); ``mtu``: 4096 for RDMA, 1500 for TCP unless given (9000 for jumbo frames).
    A claim is never worth more than this.
    """
    if nominal_gbps <= 0:
        return 0.0
    data = data_rate_gbps(fabric, nominal_gbps)
    kind = transport or ("tcp" if fabric not in (IB, ROCE) else "rdma")
    if kind == "tcp":
        if fabric == IB:  # IPoIB: the IB data rate less IP/TCP headers at its MTU
            size = mtu or 2044
            return data * (size - _TCP_IP_HEADERS) / (size + _IB_RDMA_HEADERS)
        return data * tcp_goodput_share(mtu or 1500)
    return data * rdma_payload_share(fabric, mtu or _RDMA_MTU)


def ceiling_gbps(fabric: str, nominal_gbps: float) -> float:
    """The data rate after line encoding: a measured figure above it (beyond measurement
    error) did not run on such a port."""
    return data_rate_gbps(fabric, nominal_gbps)
