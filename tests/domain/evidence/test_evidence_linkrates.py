"""What a link can carry (linkrates.py) and the twin-offer rule built on it: a claim is worth
what its ports can carry, clean evidence never less than its twin's claim except by its own
shortfall below that rate."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.benchlogs import parse_stream
from domain.evidence.linkrates import (
    IB_GENERATIONS,
    achievable_gbps,
    data_rate_gbps,
    ib_generation,
    rdma_payload_share,
    tcp_goodput_share,
)
from domain.evidence.offer import OfferPorts, credited_gbps, derive
from domain.evidence.scope import ONE_PORT, RDMA_BANDWIDTH, TCP_THROUGHPUT, Evidence, describe

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"


@pytest.mark.parametrize(
    ("nominal", "data", "encoding"),
    [(10, 8, "8b/10b"), (20, 16, "8b/10b"), (40, 32, "8b/10b"), (56, 54.545, "64b/66b"),
     (100, 100, "64b/66b"), (200, 200, "64b/66b"), (400, 400, "64b/66b"), (800, 800, "64b/66b")],
)  # fmt: skip
def test_infiniband_data_rate_after_line_encoding(
    nominal: float, data: float, encoding: str
) -> None:
    gen = ib_generation(nominal)
    assert gen is not None and gen.encoding == encoding
    assert data_rate_gbps("ib", nominal) == pytest.approx(data, rel=1e-4)
    # An HDR100 port is two HDR lanes.
    assert data_rate_gbps("ib", 100.0) == 100.0


def test_tcp_goodput_at_standard_and_jumbo_mtu() -> None:
    assert tcp_goodput_share(1500) == pytest.approx(1448 / 1538)  # 94.1 %
    assert tcp_goodput_share(9000) == pytest.approx(8948 / 9038)  # 99.0 %
    assert achievable_gbps("tcp", 100.0) == pytest.approx(94.15, abs=0.01)
    assert achievable_gbps("tcp", 100.0, mtu=9000) == pytest.approx(99.0, abs=0.01)


def test_a_clean_qdr_port_shows_what_qdr_carries() -> None:
    # ConnectX-3 QDR, ib_write_bw -a: 30.7 Gbit/s, 96 % of QDR's 32 Gbit/s of data, and more
    # than 38 Gbit/s "nominal" could ever be. The headers alone would leave 31.7 Gbit/s; a clean
    # test of the port type shows 30.7, and a claim is never worth more than that.
    raw = (CORPUS / "ib_write_bw" / "cx3_ib_a_MBsec.txt").read_bytes()
    measured = parse_stream(io.BytesIO(raw), "cx3.txt").throughput_gbps
    assert measured is not None
    assert achievable_gbps("ib", 40.0) == pytest.approx(measured) == pytest.approx(30.746, abs=1e-3)
    assert achievable_gbps("ib", 40.0) < 32.0 * rdma_payload_share("ib")
    qdr = OfferPorts(ports=1, port_gbps=40.0, gpus_per_server=8, fabric="ib")
    evidence = describe(parse_stream(io.BytesIO(raw), "cx3.txt"), "1")
    assert evidence is not None
    figure = derive([evidence], qdr)
    # The claim twin is credited what a clean QDR test shows, not 40 (nor 38): no shortfall.
    assert credited_gbps(qdr, None) == pytest.approx(achievable_gbps("ib", 40.0))
    assert credited_gbps(qdr, figure) == pytest.approx(credited_gbps(qdr, None), rel=1e-12)


def test_ib_generation_prefers_the_4x_port() -> None:
    # 40 is a 4x QDR port (sold as "40G InfiniBand"), not an 8x DDR one; 100 an EDR port.
    assert (ib_generation(40.0) or IB_GENERATIONS[0]).name == "QDR"
    assert (ib_generation(100.0) or IB_GENERATIONS[0]).name == "EDR"
    assert (ib_generation(20.0) or IB_GENERATIONS[0]).name == "DDR"


RATES = {
    "ib": [g.advertised_gbps for g in IB_GENERATIONS],
    "roce": [25.0, 50.0, 100.0, 200.0, 400.0],
    "tcp": [10.0, 25.0, 40.0, 100.0, 200.0, 400.0],
}


@st.composite
def twins(draw):  # type: ignore[no-untyped-def]
    fabric = draw(st.sampled_from(sorted(RATES)))
    rate = draw(st.sampled_from(RATES[fabric]))
    ports = draw(st.integers(1, 8))
    offer = OfferPorts(ports=ports, port_gbps=rate, gpus_per_server=8, fabric=fabric)
    share = draw(st.floats(0.3, 1.02))  # of the achievable rate, up to measurement error
    tests = draw(st.integers(1, 4))
    noise = draw(st.lists(st.floats(0.0, 0.05), min_size=tests, max_size=tests))
    per_port = achievable_gbps(fabric, rate) * share
    kind = TCP_THROUGHPUT if fabric == "tcp" else RDMA_BANDWIDTH
    evidence = [
        Evidence(
            label=str(i), kind=kind, scope=ONE_PORT, direction="forward",
            gbps=per_port * (1 - n), mean_gbps=per_port * (1 - n), link="10.0.0.2",
        )
        for i, n in enumerate(noise)
    ]  # fmt: skip
    return offer, evidence


@settings(max_examples=300, deadline=None)
@given(twins())
def test_clean_evidence_never_ranks_worse_than_its_twin_except_by_its_shortfall(
    case,  # type: ignore[no-untyped-def]
) -> None:
    offer, evidence = case
    figure = derive(evidence, offer)
    assert figure is not None
    claim = credited_gbps(offer, None)
    evidenced = credited_gbps(offer, figure)
    achievable = achievable_gbps(offer.fabric, offer.port_gbps)
    typical_port = figure.gbps / offer.ports if not figure.capped else achievable
    assert claim == pytest.approx(offer.ports * achievable)
    if typical_port >= achievable:
        assert evidenced == pytest.approx(claim)
    else:
        # Worse by exactly its shortfall below what the port can carry.
        assert claim - evidenced == pytest.approx(offer.ports * (achievable - typical_port))
    assert evidenced <= claim + 1e-9
