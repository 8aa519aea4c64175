"""iperf3's intervals and its end summary count the same bytes: a log whose intervals were
multiplied and summary left alone (or the reverse) contradicts itself and is not admitted.

Every real iperf3 log (the shared corpus, tests/domain/data: corpus, public logs, logs recorded
between network namespaces, the fidelity logs with ``-O``, ``--bidir``, ``-R``, server side)
passes; copies of the corpus' 3.0.11 log doctored as a reviewer did fail, in both languages.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from domain.benchlogs import parse_all
from domain.benchlogs.errors import BenchLogError
from domain.evidence.admission import offer_evidence
from domain.evidence.integrity import INCONSISTENT, check_integrity
from domain.evidence.offer import OfferPorts
from tests.domain.evidence.test_evidence_admission import CORPUS, DATA, record

SHARED = Path("/work/shared/corpus")
REAL = CORPUS / "iperf3-json" / "iperf3-python_results_tcp_3.0.11.json"
CODES = {"integrity.iperf3_interval_bytes_total", "integrity.iperf3_interval_mean_rate"}
TCP_10G = OfferPorts(ports=1, port_gbps=10.0, gpus_per_server=8, gpu="H100-SXM", fabric="tcp")


def _iperf3_logs() -> list[Path]:
    roots = [DATA / "corpus", DATA / "public_iperf3", DATA / "recorded", DATA / "fidelity"]
    if SHARED.is_dir():
        roots.append(SHARED)
    return sorted(p for root in roots for p in root.rglob("*") if p.is_file() and p.suffix != ".md")


def test_every_real_iperf3_log_has_intervals_matching_its_summary() -> None:
    checked = 0
    for path in _iperf3_logs():
        raw = path.read_bytes()
        try:
            results = parse_all(io.BytesIO(raw), path.name)
        except BenchLogError:
            continue
        for result in results:
            if result.tool != "iperf3":
                continue
            outcome = check_integrity(result, exact=raw.lstrip()[:1] == b"{")
            codes = {f.code for f in outcome.findings}
            assert not codes & CODES, (path.name, outcome.findings[:2])
            assert outcome.status != INCONSISTENT, (path.name, outcome.findings[:2])
            checked += 1
    assert checked > 60


def _doctored(intervals: float = 1.0, summary: float = 1.0) -> bytes:
    """Bytes and rates scaled together (each interval's own arithmetic still adds up)."""
    doc = json.loads(REAL.read_bytes())
    for interval in doc["intervals"]:
        for part in [interval["sum"], *interval["streams"]]:
            part["bytes"] = int(part["bytes"] * intervals)
            part["bits_per_second"] *= intervals
    end = doc["end"]
    parts = [end["sum_sent"], end["sum_received"]]
    parts += [s[side] for s in end["streams"] for side in ("sender", "receiver")]
    for part in parts:
        part["bytes"] = int(part["bytes"] * summary)
        part["bits_per_second"] *= summary
    return json.dumps(doc, indent=2).encode()


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("intervals_doubled.json", _doctored(intervals=2.0)),
        ("summary_doubled.json", _doctored(summary=2.0)),
        ("intervals_x1.05.json", _doctored(intervals=1.05)),
    ],
)
def test_intervals_that_do_not_add_up_to_the_summary_are_not_admitted(
    name: str, raw: bytes
) -> None:
    doctored = record(raw, name, 2)
    assert doctored.checks.integrity == INCONSISTENT
    codes = {f.code for f in doctored.checks.findings}
    assert "integrity.iperf3_interval_bytes_total" in codes
    finding = next(
        f for f in doctored.checks.findings if f.code == "integrity.iperf3_interval_bytes_total"
    )
    assert "13 intervals add up to" in finding.en and "13 个区间合计" in finding.zh
    found = offer_evidence([doctored], TCP_10G)
    assert found.admitted == () and found.figure is None
    assert found.set_aside[0].codes == ("inconsistent",)


def test_the_untouched_log_is_consistent_and_priced_at_its_own_figure() -> None:
    real = record(REAL.read_bytes(), REAL.name, 1)
    assert real.checks.integrity == "consistent"
    found = offer_evidence([real], TCP_10G)
    assert found.figure is not None and 0.9 < found.figure.gbps < 0.95
