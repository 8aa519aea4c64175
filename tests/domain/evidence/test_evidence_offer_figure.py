"""The one rule from an offer's evidence to its per-server figure (domain/evidence/offer.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pytest import approx

from domain.benchlogs import parse_path
from domain.evidence.offer import COLLECTIVE, LINK, OfferPorts, derive
from domain.evidence.scope import Evidence, describe

DATA = Path(__file__).resolve().parents[1] / "data"
IB_400G = DATA / "corpus" / "ib_write_bw" / "ru_cloud_numa_table_only_gbits.txt"
NCCL_2_HOSTS = (
    DATA / "corpus" / "nccl-tests" / "nccl_2.18.3_alltoall_16rank_mpi_warnings_inplace_na.txt"
)
ONE_HOST = DATA / "corpus" / "nccl-tests" / "superbench_nccl_allreduce.log"
LATENCY = DATA / "corpus" / "ib_write_lat"
RECORDED = DATA / "recorded"
H800_IB = OfferPorts(ports=8, port_gbps=400.0, gpus_per_server=8)


def _evidence(path: Path, label: str = "x") -> Evidence:
    found = describe(parse_path(path), label)
    assert found is not None
    return found


def test_one_clean_port_is_scaled_to_the_offers_ports() -> None:
    log = _evidence(IB_400G)
    figure = derive([log], H800_IB)
    assert figure is not None
    assert log.gbps == approx(394.4)
    assert figure.gbps == approx(8 * 394.4)
    assert (figure.kind, figure.ports, figure.ports_tested, figure.tested_together) == (
        LINK,
        8,
        1,
        False,
    )
    assert figure.explanation.en == "8 ports × 394 Gbit/s measured on 1 port, not tested together"
    assert "8 个端口" in figure.explanation.zh and "未同时测试" in figure.explanation.zh
    # Extrapolated from one port: the low end is wider than the measurement itself.
    assert figure.low_gbps < figure.gbps == figure.high_gbps


def test_a_port_measured_above_its_line_rate_is_capped_at_the_quote() -> None:
    figure = derive([_evidence(IB_400G)], OfferPorts(ports=8, port_gbps=200.0, gpus_per_server=8))
    assert figure is not None and figure.capped
    assert figure.gbps == figure.high_gbps == 1600.0
    assert "evidence.capped" in [n.code for n in figure.notes]


def test_ports_tested_together_bound_a_one_port_extrapolation() -> None:
    together = [_evidence(RECORDED / f"simultaneous_pair{k}.json", str(k)) for k in range(1, 5)]
    alone = _evidence(RECORDED / "sequential_pair0_run1.json", "alone")
    offer = OfferPorts(ports=4, port_gbps=2.0, gpus_per_server=8)
    figure = derive([alone, *together], offer)
    only_alone = derive([alone], offer)
    assert figure is not None and only_alone is not None
    assert only_alone.gbps == approx(4 * (alone.gbps or 0))
    # The four 1 Gbit/s pairs that ran together bind the figure below 4 × the lone 1.87.
    assert figure.gbps < 4.0 < only_alone.gbps
    assert figure.tested_together and figure.ports_tested == 4
    assert "tested together" in figure.explanation.en


def test_all_ports_tested_together_narrow_the_range() -> None:
    together = [_evidence(RECORDED / f"simultaneous_pair{k}.json", str(k)) for k in range(1, 5)]
    offer = OfferPorts(ports=4, port_gbps=1.0, gpus_per_server=8)
    full = derive(together, offer)
    one = derive(together[:1], offer)
    assert full is not None and one is not None
    assert (full.gbps - full.low_gbps) / full.gbps < (one.gbps - one.low_gbps) / one.gbps


def test_repeats_that_disagree_widen_the_range_and_are_never_summed() -> None:
    first = _evidence(RECORDED / "sequential_pair0_run1.json", "1")
    runs = [first, replace(first, label="2", gbps=1.0, start_s=(first.start_s or 0) + 100)]
    offer = OfferPorts(ports=1, port_gbps=2.0, gpus_per_server=8)
    agreeing = derive([first], offer)
    disagreeing = derive(runs, offer)
    assert agreeing is not None and disagreeing is not None
    assert disagreeing.gbps < (first.gbps or 0) + 1.0  # the typical repeat, not a sum
    assert disagreeing.low_gbps == approx(1.0)
    assert disagreeing.high_gbps - disagreeing.low_gbps > agreeing.high_gbps - agreeing.low_gbps


def test_a_multi_host_collective_is_the_strongest_evidence() -> None:
    nccl = _evidence(NCCL_2_HOSTS)
    figure = derive([_evidence(IB_400G, "ib"), nccl], H800_IB)
    assert figure is not None
    assert (figure.kind, figure.evidence_kind) == (COLLECTIVE, "collective_busbw")
    # 16 ranks on 2 hosts: every GPU of each server took part, so the busbw per rank is already
    # the server's whole network figure (a ring crossing servers runs one channel per NIC).
    assert (nccl.hosts, nccl.ranks) == (2, 16)
    assert figure.gbps == approx(min(nccl.gbps or 0, 3200.0))
    assert figure.tested_together
    assert "all 8 GPUs of each server" in figure.explanation.en
    assert "evidence.kind_kept_apart" in [n.code for n in figure.notes]


def test_a_collective_on_fewer_gpus_per_host_is_scaled_and_not_tested_together() -> None:
    # The same figures, run with one rank per host: it drove one NIC of each server.
    nccl = replace(_evidence(NCCL_2_HOSTS), ranks=2)
    whole = derive([_evidence(NCCL_2_HOSTS)], H800_IB)
    one = derive([nccl], H800_IB)
    assert whole is not None and one is not None
    assert one.gbps == approx(min(8 * (nccl.gbps or 0), 3200.0))
    assert not one.tested_together and one.ports_tested == 1
    assert one.low_gbps < one.gbps
    assert "on 1 of 8 GPUs per server" in one.explanation.en and one.explanation.zh


def test_udp_latency_and_one_server_collectives_never_make_a_figure() -> None:
    udp = _evidence(RECORDED / "udp_b500M_pair0.json")
    latency = _evidence(next(LATENCY.iterdir()))
    inside = _evidence(ONE_HOST)
    assert derive([udp, latency, inside], H800_IB) is None
    with_port = derive([udp, latency, inside, _evidence(IB_400G, "ib")], H800_IB)
    assert with_port is not None and with_port.gbps == approx(8 * 394.4)
    codes = {n.code for n in with_port.notes}
    assert {
        "evidence.udp_not_capacity",
        "evidence.latency_not_bandwidth",
        "evidence.one_host",
    } <= codes


def test_kinds_are_never_pooled() -> None:
    tcp = _evidence(RECORDED / "sequential_pair0_run1.json", "tcp")
    rdma = _evidence(IB_400G, "ib")
    figure = derive([tcp, rdma], H800_IB)
    assert figure is not None and figure.evidence_kind == "rdma_bw"
    assert figure.gbps == approx(8 * 394.4)
