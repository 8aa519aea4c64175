"""Untimed logs are unplaced unless their run is declared simultaneous (issue 35 item 2).

Real corpus logs without a clock: three perftest runs on ConnectX-3 QDR ports (ib_write_bw,
ib_send_bw, ib_read_bw: each names only its device, so each stands for its own link) and two
iperf3 text logs without ``--timestamps`` on one link.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from domain.benchlogs import parse_path, parse_stream
from domain.benchlogs.concurrent import summarise_run
from domain.evidence.admission import offer_evidence
from domain.evidence.offer import OfferPorts, derive
from domain.evidence.record import Checks, EvidenceRecord
from domain.evidence.scope import describe
from domain.evidence.sets import group

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
PERFTEST = [
    CORPUS / "ib_write_bw/cx3_ib_a_MBsec.txt",
    CORPUS / "ib_send_bw/cx3_ib_a_MBsec.txt",
    CORPUS / "ib_read_bw/cx3_ib_a_cpufreq_warning.txt",
]
IPERF_TEXT = [
    CORPUS / "iperf3-text/local_3.12_tcp_P2.txt",
    CORPUS / "iperf3-text/local_3.12_tcp_f_G.txt",
]
QDR_3 = OfferPorts(ports=3, port_gbps=40.0, gpus_per_server=8, gpu="H100-SXM", fabric="ib")


def records(declared: bool) -> list[EvidenceRecord]:
    found = []
    for i, path in enumerate(PERFTEST, start=1):
        result = parse_stream(io.BytesIO(path.read_bytes()), path.name)
        found.append(
            EvidenceRecord(i, path.name, "7", result, Checks(), declared_together=declared)
        )
    return found


def evidence(declared: bool) -> list:  # type: ignore[type-arg]
    return [
        describe(parse_path(p), str(i), "7", declared_together=declared)
        for i, p in enumerate(PERFTEST)
    ]


def test_untimed_logs_on_distinct_links_are_unplaced_not_a_set() -> None:
    grouped = group("rdma_bw", evidence(False))
    assert grouped.sets == () and len(grouped.repeats) == 3
    assert len(grouped.unplaced) == 3 and grouped.unplaced_matters


def test_a_declared_run_makes_them_one_set_resting_on_the_declaration() -> None:
    grouped = group("rdma_bw", evidence(True))
    (found,) = grouped.sets
    assert found.declared and found.links == 3 and grouped.unplaced == ()
    assert found.aggregate_gbps == pytest.approx(30.746 + 30.717 + 30.756, abs=0.01)


@pytest.mark.parametrize("declared", [False, True])
def test_the_offer_figure_says_which(declared: bool) -> None:
    found = offer_evidence(records(declared), QDR_3)
    figure = found.figure
    assert figure is not None and len(found.admitted) == 3
    if declared:
        assert figure.tested_together and figure.together_declared and figure.unplaced == 0
        assert "3 links tested together (as the uploader declared" in figure.explanation.en
        assert "依据上传者声明本次测试同时开始" in figure.explanation.zh
        assert "unplaced" not in found.sentence.en
    else:
        assert not figure.tested_together and not figure.together_declared
        assert figure.unplaced == 3
        assert "counted link by link, not as a simultaneous test" in figure.explanation.en
        assert (
            "3 log(s) carry no clock (perftest/nccl-tests/iperf3 text): unplaced — counted link "
            "by link, not as a simultaneous test; declare the run simultaneous or upload logs "
            "with timestamps to show the fabric under full load." in found.sentence.en
        )
        assert "3 份日志没有时钟" in found.sentence.zh
        assert "逐条链路计算，不视为同时测试" in found.sentence.zh
    # Per port, the typical port either way: never the three summed as one port.
    assert figure.gbps == pytest.approx(3 * 30.7, abs=0.2)


def test_the_run_summary_never_sums_unplaced_links() -> None:
    results = [parse_path(p) for p in PERFTEST]
    unplaced = summarise_run(results, line_rate_gbps=32.0)
    assert unplaced.pairs == 3 and unplaced.aggregate_gbps is None
    assert unplaced.jain_index is None
    codes = [w.code for w in unplaced.warnings]
    assert "evidence.unplaced" in codes and "run_not_concurrent" not in codes
    declared = summarise_run(results, line_rate_gbps=32.0, declared_together=True)
    assert declared.aggregate_gbps == pytest.approx(92.2, abs=0.1)
    assert declared.jain_index == pytest.approx(1.0, abs=1e-4)
    codes = [w.code for w in declared.warnings]
    assert "evidence.declared_set" in codes and "evidence.unplaced" not in codes


@pytest.mark.parametrize("declared", [False, True])
def test_untimed_iperf3_text_on_one_link_are_repeats_either_way(declared: bool) -> None:
    results = [parse_path(p) for p in IPERF_TEXT]
    assert all(r.start_time_s is None for r in results)
    summary = summarise_run(results, line_rate_gbps=25.0, declared_together=declared)
    assert summary.pairs == 1
    codes = [w.code for w in summary.warnings]
    assert "evidence.repeats" in codes
    assert "evidence.unplaced" not in codes and "evidence.declared_set" not in codes


def test_a_mixed_offer_without_declaration_never_claims_a_simultaneous_test() -> None:
    one = describe(parse_path(PERFTEST[0]), "a", "1")
    two = describe(parse_path(PERFTEST[1]), "b", "2", declared_together=True)
    assert one is not None and two is not None
    figure = derive([one, two], QDR_3)
    # Each run alone holds one link: no declared set spans runs.
    assert figure is not None and not figure.tested_together
