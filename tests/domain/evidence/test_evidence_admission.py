"""One admission rule: what the checks find in a log keeps it out of the offer's figure.

Real logs (tests/domain/data: the corpus and the logs recorded between network namespaces) and
copies doctored here in the ways a supplier could: a rate multiplied, a newline added, a port
status pasted on top, date lines that do not hold the run.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from domain.benchlogs import parse_stream
from domain.evidence.admission import admit, admit_all, offer_evidence
from domain.evidence.integrity import check_integrity
from domain.evidence.offer import OfferPorts
from domain.evidence.record import Checks, EvidenceRecord, SiteFacts, body_digest
from domain.evidence.reuse import fingerprint
from domain.evidence.trust_facts import scan

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "corpus"
RECORDED = DATA / "recorded"
SEQUENTIAL = [RECORDED / f"sequential_pair0_run{k}.json" for k in (1, 2, 3)]
TCP_1G = OfferPorts(ports=1, port_gbps=2.0, gpus_per_server=8, gpu="H100-SXM", fabric="tcp")
IB_400 = OfferPorts(ports=8, port_gbps=400.0, gpus_per_server=8, gpu="H100-SXM", fabric="ib")
# ibstatus output of one HDR port, as the tool prints it (infiniband-diags), pasted on top.
IBSTATUS_HDR = (
    b"Infiniband device 'mlx5_0' port 1 status:\n"
    b"\tdefault gid:\t fe80:0000:0000:0000:0c42:a103:0065:3b2a\n"
    b"\tbase lid:\t 0x5\n\tsm lid:\t\t 0x1\n\tstate:\t\t 4: ACTIVE\n"
    b"\tphys state:\t 5: LinkUp\n\trate:\t\t 200 Gb/sec (4X HDR)\n\tlink_layer:\t InfiniBand\n\n"
)


def record(
    raw: bytes,
    name: str,
    log_id: int,
    *,
    batch: str = "1",
    reused_by: tuple[int, ...] = (),
    held_by: tuple[int, ...] = (),
) -> EvidenceRecord:
    """A log as the portal records it: parsed, its arithmetic checked, its raw facts read."""
    result = parse_stream(io.BytesIO(raw), name)
    facts = scan(raw.decode("utf-8", errors="replace"))
    integrity = check_integrity(result, exact=facts.is_json)
    checks = Checks(
        integrity=integrity.status,
        findings=integrity.findings,
        reused_by=reused_by,
        body_held_by=held_by,
        fingerprint=fingerprint(result, facts) or "",
        body=body_digest(io.BytesIO(raw)),
        site=SiteFacts.of(facts),
    )
    return EvidenceRecord(log_id, name, batch, result, checks)


def from_file(path: Path, log_id: int, **kw: object) -> EvidenceRecord:
    return record(path.read_bytes(), path.name, log_id, **kw)  # type: ignore[arg-type]


def forged(path: Path, interval: int, factor: float) -> bytes:
    """One interval's [SUM] rate multiplied, its bytes left as they were."""
    doc = json.loads(path.read_bytes())
    doc["intervals"][interval]["sum"]["bits_per_second"] *= factor
    for stream in doc["intervals"][interval]["streams"]:
        stream["bits_per_second"] *= factor
    return json.dumps(doc, indent="\t").encode()


def clean_runs() -> list[EvidenceRecord]:
    return [from_file(p, i + 1) for i, p in enumerate(SEQUENTIAL)]


def test_clean_recorded_logs_are_admitted() -> None:
    found = offer_evidence(clean_runs(), TCP_1G)
    assert [a.admitted for a in found.admissions] == [True, True, True]
    assert found.figure is not None and 1.5 < found.figure.gbps < 2.0
    assert "Figure from 3 of 3 logs" in found.sentence.en
    assert "数值来自 3 个日志中的 3 个" in found.sentence.zh


def test_a_forged_interval_never_feeds_the_figure_its_tail_or_range() -> None:
    clean = offer_evidence(clean_runs(), TCP_1G)
    bad = record(forged(SEQUENTIAL[0], 2, 1.6), "forged.json", 9, batch="2")
    assert bad.checks.integrity == "inconsistent"
    found = offer_evidence([*clean_runs(), bad], TCP_1G)
    aside = found.set_aside
    # A doctored copy of run 1 keeps its cookie: also the same test as run 1, counted once.
    assert [a.name for a in aside] == ["forged.json"]
    assert aside[0].codes == ("inconsistent", "reused")
    assert found.figure is not None and clean.figure is not None
    assert found.figure.gbps == clean.figure.gbps
    assert found.figure.low_gbps == clean.figure.low_gbps
    assert found.figure.high_gbps == clean.figure.high_gbps
    assert found.figure.worst_gbps == clean.figure.worst_gbps
    assert "forged.json (arithmetic does not add up, already held)" in found.sentence.en
    assert "forged.json（数据自相矛盾、已被使用过）" in found.sentence.zh


def test_a_copy_with_a_newline_added_counts_once() -> None:
    raw = SEQUENTIAL[0].read_bytes()
    first = record(raw, "run1.json", 1)
    copy = record(raw.replace(b"{", b"{\n", 1), "run1-witnessed.json", 2)
    assert first.checks.body == copy.checks.body
    admissions = admit_all([first, copy], TCP_1G)
    assert admissions[0].admitted and admissions[1].codes == ("reused",)
    # Held by another offer (the fingerprint: the iperf3 cookie): set aside on its own too.
    assert admit(from_file(SEQUENTIAL[0], 3, reused_by=(1,)), TCP_1G).codes == ("reused",)
    assert admit(from_file(SEQUENTIAL[0], 4, held_by=(1,)), TCP_1G).codes == ("reused",)


@pytest.mark.parametrize(
    "name",
    [
        "iperf3-json/local_3.12_tcp_single.json",
        "iperf3-json/local_3.12_tcp_P4.json",
        "iperf3-text/local_3.12_tcp_P2.txt",
    ],
)
def test_iperf3_over_loopback_is_set_aside(name: str) -> None:
    found = offer_evidence([from_file(CORPUS / name, 1)], TCP_1G)
    assert found.figure is None
    assert "loopback" in found.admissions[0].codes


def test_one_hca_talking_to_itself_is_set_aside() -> None:
    # superbench's ib_write_bw loopback: local and remote LID 0xd06.
    path = CORPUS / "ib_write_bw" / "superbench_ib_loopback_8M_size.log"
    admission = admit(from_file(path, 1), IB_400)
    assert "loopback" in admission.codes
    assert "LID 0xd06" in admission.reasons[admission.codes.index("loopback")].en
    # RoCE prints LID 0000 at both ends: no LID, not loopback.
    roce = admit(from_file(CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt", 2), None)
    assert "loopback" not in roce.codes


def test_a_k80_collective_does_not_price_an_h100_offer() -> None:
    k80 = from_file(CORPUS / "nccl-tests" / "pkb_nccl_output.txt", 1)
    assert "other_gpu" in admit(k80, IB_400).codes
    assert "Tesla K80" in admit(k80, IB_400).reasons[0].en
    h200 = from_file(CORPUS / "nccl-tests" / "nccl_skypilot_ray_mpi_prefixed_h200_16rank.txt", 2)
    on_h200 = OfferPorts(8, 400.0, 8, gpu="H200-SXM", fabric="ib")
    assert admit(h200, on_h200).admitted
    assert admit(h200, IB_400).codes == ("other_gpu",)
    # GH200 is not H200.
    gh200 = from_file(CORPUS / "nccl-tests" / "nccl_2.17.1_gh200_srun_indented.txt", 3)
    assert "other_gpu" in admit(gh200, on_h200).codes


def test_a_port_status_contradicting_the_offer_and_the_measurement() -> None:
    raw = (CORPUS / "ib_write_bw" / "ru_cloud_numa_table_only_gbits.txt").read_bytes()
    plain = record(raw, "ndr.txt", 1)
    assert admit(plain, IB_400).admitted  # 394 Gbit/s on an NDR port: what NDR carries
    with_status = record(IBSTATUS_HDR + raw, "hdr-status.txt", 2)
    admission = admit(with_status, IB_400)
    assert set(admission.codes) == {"other_port", "above_line_rate"}
    # On an HDR offer the port matches, but 394 Gbit/s is still more than HDR carries.
    hdr = OfferPorts(8, 200.0, 8, gpu="H100-SXM", fabric="ib")
    assert admit(with_status, hdr).codes == ("above_line_rate",)


def test_above_the_quoted_line_rate_without_a_port_status() -> None:
    # 394 Gbit/s measured on one port of an offer quoting 200G HDR ports.
    raw = (CORPUS / "ib_write_bw" / "ru_cloud_numa_table_only_gbits.txt").read_bytes()
    hdr = OfferPorts(8, 200.0, 8, gpu="H100-SXM", fabric="ib")
    assert admit(record(raw, "ndr.txt", 1), hdr).codes == ("above_line_rate",)


def test_date_lines_that_do_not_hold_the_run() -> None:
    doc = json.loads(SEQUENTIAL[0].read_bytes())
    doc["title"] = "GPK-DATE 2026-01-01T00:00:00Z GPK-DATE 2026-01-01T00:10:00Z"
    admission = admit(record(json.dumps(doc).encode(), "dated.json", 1), TCP_1G)
    assert admission.codes == ("outside_window",)
    start = doc["start"]["timestamp"]["timesecs"]
    from datetime import UTC, datetime

    def iso(t: float) -> str:
        return datetime.fromtimestamp(t, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    doc["title"] = f"GPK-DATE {iso(start - 1)} GPK-DATE {iso(start + 8)}"
    assert admit(record(json.dumps(doc).encode(), "dated.json", 1), TCP_1G).admitted


def test_udp_at_a_rate_and_latency_never_count() -> None:
    udp = admit(from_file(RECORDED / "udp_b500M_pair0.json", 1), TCP_1G)
    assert udp.codes == ("udp_at_rate",)
    lat = admit(from_file(CORPUS / "ib_write_lat" / "cx3_ib_a_percentiles.txt", 2), None)
    assert "latency" in lat.codes


def test_the_stored_checks_round_trip() -> None:
    for path in (SEQUENTIAL[0], CORPUS / "nccl-tests" / "pkb_nccl_output.txt"):
        checks = from_file(path, 1).checks
        stored = json.loads(json.dumps(checks.as_dict()))
        assert Checks.from_dict(stored) == checks
        assert Checks.from_dict(stored).as_dict() == stored
