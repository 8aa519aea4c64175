"""Acceptance envelopes per card (envelopes.py): real logs graded against the published floors,
beside the line-rate verdict."""

from __future__ import annotations

from pathlib import Path

from domain.benchlogs import parse_path
from domain.evidence.envelopes import BELOW, NOT_COVERED, WITHIN, envelope_for, grade

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"


def test_the_published_envelopes_by_card() -> None:
    h100 = envelope_for("H100-SXM", 400.0)
    h200 = envelope_for("H200-SXM", 400.0)
    assert h100 is not None and (h100.rdma_write_gbps_per_hca, h100.allreduce_busbw_gbyte_s) == (
        380.0,
        460.0,
    )
    assert h200 is not None and (h200.rdma_write_gbps_per_hca, h200.allreduce_busbw_gbyte_s) == (
        360.0,
        431.0,
    )
    assert envelope_for("A100-SXM4-80GB", 200.0) is None


def test_an_ndr_port_is_within_the_h100_envelope_and_a_roce_port_is_below() -> None:
    ndr = parse_path(CORPUS / "ib_send_bw" / "cx7_ndr_session_send_bw_lat_read_write.txt")
    assert grade(ndr, "H100-SXM", 400.0).status == WITHIN  # 390.5 ≥ 380
    assert grade(ndr, "H200-SXM", 400.0).status == WITHIN  # ≥ 360
    roce = parse_path(CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt")  # 111.7 Gbit/s
    found = grade(roce, "H100-SXM", 400.0)
    assert found.status == BELOW and found.message is not None
    assert "at least 380 Gbit/s" in found.message.en and "至少 380 Gbit/s" in found.message.zh
    assert grade(roce, "A100-SXM4-80GB", 200.0).status == NOT_COVERED


def test_a_single_node_all_reduce_against_the_busbw_floor() -> None:
    log = parse_path(CORPUS / "nccl-tests" / "superbench_nccl_allreduce.log")  # 8 GPUs, 1 host
    assert log.hosts == 1 and log.collective == "all_reduce"
    # Out-of-place busbw 235.26 GB/s: below H100's 460 GB/s floor.
    assert grade(log, "H100-SXM", 400.0).status == BELOW
    h200_like = parse_path(
        CORPUS / "nccl-tests" / "nccl_2.19.7_h200_step_bytes_cut_after_two_rows.txt"
    )
    # 4 of 8 GPUs at 353 GB/s: graded as printed, below H200's 431 GB/s.
    assert grade(h200_like, "H200-SXM", 400.0).status == BELOW
