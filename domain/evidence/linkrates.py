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

Never more than a clean test of the port type shows. The header arithmetic above is an upper
bound: where a real, clean test of a port type shows less, that test is what the port type is
credited at (a claim is worth no more, and no evidence is credited above it). One row so far:

- QDR (ConnectX-3, mlx4): ``ib_write_bw -a --iter 20000``, MTU 2048, 3665.25 MiB/s at 8 MiB =
  30.75 Gbit/s, 96.1 % of QDR's 32 Gbit/s of data where the headers alone leave 98-99 %: the
  8b/10b generations' framing (start/end delimiters, SKIP ordered sets, flow-control packets)
  and the HCA take the rest. Source: the evidence corpus, ``ib_write_bw/cx3_ib_a_MBsec.txt``
  (tests/domain/data/corpus, SOURCES.md). Later generations' clean tests agree with the header
  arithmetic within 0.5 % (NDR ib_write_bw 394.4 of 395.9 Gbit/s; a 400G RoCE NIC 389.6 of
  390.7 per direction: ``ru_cloud_numa_table_only_gbits.txt``, ``ainic_bidir_q4_a_server_then_
  client.txt``), so they keep it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

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
# ConnectX-3 QDR, ib_write_bw 8 MiB average 3665.25 MiB/s (perftest's MB is 2^20 bytes).
_QDR_CLEAN_GBPS = 3665.25 * 1048576 * 8 / 1e9


@dataclass(frozen=True)
class IbGeneration:
    name: str
    advertised_gbps: float  # 4x, as sold
    encoding: str
    data_gbps: float  # 4x, after line encoding
    # What a clean RDMA write on such a port has shown, as a share of the data rate (None: no
    # clean test below the header arithmetic is held; see the module docstring).
    clean_share: float | None = None


IB_GENERATIONS = (
    IbGeneration("SDR", 10.0, "8b/10b", 8.0),
    IbGeneration("DDR", 20.0, "8b/10b", 16.0),
    IbGeneration("QDR", 40.0, "8b/10b", 32.0, _QDR_CLEAN_GBPS / 32.0),
    IbGeneration("FDR", 56.0, "64b/66b", 56.25 * 64 / 66),
    IbGeneration("EDR", 100.0, "64b/66b", 100.0),
    IbGeneration("HDR", 200.0, "64b/66b", 200.0),
    IbGeneration("NDR", 400.0, "64b/66b", 400.0),
    IbGeneration("XDR", 800.0, "64b/66b", 800.0),
)


def ib_generation(nominal_gbps: float) -> IbGeneration | None:
    """The IB generation sold at ``nominal_gbps`` per port (4x), or per 1x/2x/8x/12x multiple
    of one (an HDR100 port is a 2x HDR): None for a rate no generation is sold at."""
    for width in (4, 2, 1, 8, 12):  # 4x first: 40 is a QDR port, not an 8x DDR one
        for gen in IB_GENERATIONS:
            if abs(gen.advertised_gbps * width / 4 - nominal_gbps) < 1e-6:
                return IbGeneration(
                    gen.name, nominal_gbps, gen.encoding, gen.data_gbps * width / 4, gen.clean_share
                )
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
    share = rdma_payload_share(fabric, mtu or _RDMA_MTU)
    gen = ib_generation(nominal_gbps) if fabric == IB else None
    if gen is not None and gen.clean_share is not None:
        share = min(share, gen.clean_share)  # never more than a clean test of the port shows
    return data * share


@lru_cache(maxsize=1024)
def port_achievable_gbps(fabric: str, nominal_gbps: float) -> float:
    """``achievable_gbps`` at the defaults (RDMA on IB and RoCE, TCP at MTU 1500 otherwise):
    what one port of an offer is credited at most, claimed or measured (the ranking's figure)."""
    return achievable_gbps(fabric if fabric in FABRICS else TCP, nominal_gbps)


def ceiling_gbps(fabric: str, nominal_gbps: float) -> float:
    """The data rate after line encoding: a measured figure above it (beyond measurement
    error) did not run on such a port."""
    return data_rate_gbps(fabric, nominal_gbps)
