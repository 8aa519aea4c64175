"""The JSON shape printed for each log: fixed keys, strict JSON, Gbit/s floats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.benchlogs import BenchLogError, error_to_json, parse_path, result_to_json
from domain.benchlogs.catalogue import empty_file
from domain.benchlogs.serialise import KEYS

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
ALL_FILES = sorted(p for p in CORPUS.glob("*/*") if p.is_file())


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_file_serialises_to_strict_json(path: Path) -> None:
    try:
        shape = result_to_json(parse_path(path), path.name)
    except BenchLogError as error:  # a run that died before printing a row
        shape = error_to_json(path.name, error.message)
    assert tuple(shape) == KEYS
    text = json.dumps(shape, allow_nan=False)
    assert json.loads(text)["file"] == path.name


def test_iperf3_figures() -> None:
    shape = result_to_json(parse_path(CORPUS / "iperf3-json/local_3.12_tcp_P4.json"), "p4")
    assert shape["tool"] == "iperf3" and shape["test"] == "tcp"
    assert shape["throughput_gbps"] == pytest.approx(13.332362914181807)
    assert (shape["streams"], shape["intervals"], shape["retransmits"]) == (4, 3, 0)
    assert isinstance(shape["interval_gbps"], list) and len(shape["interval_gbps"]) == 3
    assert isinstance(shape["cv"], float) and isinstance(shape["p5_gbps"], float)
    assert shape["latency_us"] is None and shape["sizes"] == []
    assert shape["warnings"] == [] and shape["error"] is None


def test_latency_figures() -> None:
    shape = result_to_json(parse_path(CORPUS / "ib_write_lat/dgx_spark_roce_single.txt"), "lat")
    assert shape["latency_us"] == {
        "min": 1.42,
        "typical": 1.47,
        "avg": 1.47,
        "p99": 1.57,
        "p999": 1.93,
    }
    assert shape["throughput_gbps"] is None and shape["link_type"] == "IB"
    assert shape["warnings"] == [
        w.en for w in parse_path(CORPUS / "ib_write_lat/dgx_spark_roce_single.txt").warnings
    ]


def test_size_rows() -> None:
    shape = result_to_json(parse_path(CORPUS / "ib_write_bw/cx3_ib_a_MBsec.txt"), "bw")
    sizes = shape["sizes"]
    assert isinstance(sizes, list) and len(sizes) == 23
    assert sizes[-1] == {
        "bytes": 8388608,
        "bw_avg_gbps": pytest.approx(3665.25 * 0.008388608),
        "bw_peak_gbps": pytest.approx(3665.51 * 0.008388608),
    }


def test_an_error_result_carries_its_message() -> None:
    shape = result_to_json(parse_path(CORPUS / "iperf3-json/local_3.12_error_refused.json"), "e")
    assert isinstance(shape["error"], str) and "Connection refused" in shape["error"]
    assert shape["throughput_gbps"] is None


def test_error_to_json_has_the_same_keys() -> None:
    shape = error_to_json("empty.txt", BenchLogError(empty_file()).message)
    assert tuple(shape) == KEYS
    assert shape["file"] == "empty.txt" and shape["error"] == "The file is empty."
    assert shape["intervals"] == 0 and shape["interval_gbps"] == [] and shape["warnings"] == []
    json.dumps(shape, allow_nan=False)
