"""A log's own arithmetic: real logs add up, logs edited by hand do not."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from domain.benchlogs import BenchLogError, parse_all, parse_stream
from domain.evidence.integrity import (
    CONSISTENT,
    INCONSISTENT,
    UNCHECKED,
    check_integrity,
    nccl_bus_factor,
)

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "corpus"


def _check(raw: bytes, name: str):  # type: ignore[no-untyped-def]
    return check_integrity(parse_stream(io.BytesIO(raw), name), exact=raw.lstrip()[:1] == b"{")


def _scale_rates(node: object, factor: float) -> None:
    """Multiply every bits_per_second in an iperf3 document, leaving bytes as they are."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "bits_per_second" and isinstance(value, int | float):
                node[key] = value * factor
            else:
                _scale_rates(value, factor)
    elif isinstance(node, list):
        for item in node:
            _scale_rates(item, factor)


def test_real_iperf3_json_is_consistent_and_its_rates_times_eight_are_not() -> None:
    raw = (CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_bytes()
    assert _check(raw, "p4.json").status == CONSISTENT
    doc = json.loads(raw)
    _scale_rates(doc, 8)
    doctored = _check(json.dumps(doc, indent=1).encode(), "p4.json")
    assert doctored.status == INCONSISTENT
    codes = {f.code for f in doctored.findings}
    assert "integrity.iperf3_interval_rate" in codes
    assert any("Gbit/s" in f.en and "Gbit/s" in f.zh for f in doctored.findings)


def test_a_stream_edited_alone_no_longer_adds_up_to_the_sum() -> None:
    raw = (CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_bytes()
    doc = json.loads(raw)
    stream = doc["intervals"][1]["streams"][0]
    stream["bits_per_second"] *= 2
    stream["bytes"] *= 2  # the stream's own arithmetic still holds
    result = _check(json.dumps(doc).encode(), "p4.json")
    assert result.status == INCONSISTENT
    assert [f.code for f in result.findings] == ["integrity.iperf3_streams_sum"]


def test_an_interval_removed_from_the_middle_is_a_gap() -> None:
    doc = json.loads((CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_bytes())
    del doc["intervals"][1]
    result = _check(json.dumps(doc).encode(), "single.json")
    assert "integrity.iperf3_interval_gap" in {f.code for f in result.findings}


def test_iperf3_text_with_rates_edited_is_inconsistent() -> None:
    raw = (CORPUS / "iperf3-text" / "local_3.12_tcp_P2.txt").read_text()
    assert _check(raw.encode(), "p2.txt").status == CONSISTENT
    doctored = re.sub(
        r"(\d+(?:\.\d+)?) Gbits/sec",
        lambda m: f"{float(m.group(1)) * 8:.1f} Gbits/sec",
        raw,
    )
    assert _check(doctored.encode(), "p2.txt").status == INCONSISTENT


NCCL = CORPUS / "nccl-tests" / "superbench_nccl_allreduce.log"


def test_real_nccl_log_is_consistent_and_an_edited_busbw_is_not() -> None:
    raw = NCCL.read_text()
    assert _check(raw.encode(), NCCL.name).status == CONSISTENT
    lines = raw.splitlines()
    last = max(i for i, line in enumerate(lines) if re.match(r"\s+\d+\s+\d+\s+float", line))
    fields = lines[last].split()  # size count type redop time algbw busbw error (twice)
    assert fields[3] == "sum"
    fields[6] = f"{float(fields[6]) * 1.3:.2f}"
    lines[last] = "  ".join(fields)
    doctored = _check("\n".join(lines).encode(), NCCL.name)
    assert doctored.status == INCONSISTENT
    assert doctored.findings[0].code == "integrity.nccl_busbw"
    assert "8 ranks" in doctored.findings[0].en


@pytest.mark.parametrize(
    ("collective", "ranks", "factor"),
    [("all_reduce", 8, 1.75), ("allgather", 4, 0.75), ("reduce_scatter", 2, 0.5),
     ("broadcast", 16, 1.0), ("alltoall", 16, 15 / 16), ("sendrecv", 2, 1.0)],
)  # fmt: skip
def test_bus_factor_follows_nccl_tests_performance_notes(
    collective: str, ranks: int, factor: float
) -> None:
    assert nccl_bus_factor(collective, ranks) == pytest.approx(factor)


PERF = CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt"


def test_perftest_average_edited_away_from_its_message_rate_is_inconsistent() -> None:
    raw = PERF.read_text()
    assert _check(raw.encode(), PERF.name).status == CONSISTENT
    doctored = raw.replace("111.72             111.71", "111.72             111.71".replace(
        "111.71", "109.00"))  # fmt: skip
    assert doctored != raw
    assert {f.code for f in _check(doctored.encode(), PERF.name).findings} == {
        "integrity.perftest_msgrate"
    }
    peak_below = raw.replace("111.72             111.71", "100.00             111.71")
    assert "integrity.perftest_peak" in {
        f.code for f in _check(peak_below.encode(), PERF.name).findings
    }


def test_perftest_latency_percentiles_out_of_order_are_found() -> None:
    path = CORPUS / "ib_write_lat" / "cx3_ib_a_percentiles.txt"
    raw = path.read_text()
    assert _check(raw.encode(), path.name).status == CONSISTENT
    doctored = raw.replace("1.21                    5.42", "9.21                    5.42", 1)
    findings = _check(doctored.encode(), path.name).findings
    assert [f.code for f in findings] == ["integrity.perftest_latency_order"]


def test_a_log_without_figures_is_unchecked() -> None:
    path = CORPUS / "iperf3-json" / "local_3.12_error_refused.json"
    assert _check(path.read_bytes(), path.name).status == UNCHECKED
    assert check_integrity(None).status == UNCHECKED


def test_every_real_log_in_the_corpora_adds_up() -> None:
    """The tolerances come from printed precision: no real log may be called inconsistent."""
    paths = sorted(p for p in CORPUS.glob("*/*") if p.is_file())
    paths += sorted((DATA / "public_iperf3").glob("*.j*")) + sorted(
        (DATA / "public_iperf3").glob("*.txt")
    )
    checked = 0
    for path in paths:
        raw = path.read_bytes()
        try:
            results = parse_all(io.BytesIO(raw), path.name)
        except BenchLogError:
            continue
        for result in results:
            outcome = check_integrity(result, exact=raw.lstrip()[:1] == b"{")
            assert outcome.status != INCONSISTENT, (path.name, outcome.findings[:2])
            checked += outcome.status == CONSISTENT
    assert checked > 100
