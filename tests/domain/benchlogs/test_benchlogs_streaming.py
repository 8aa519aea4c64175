"""The streaming JSON reader gives the same result however the bytes arrive, and handles the
iperf3 variants the corpus lacks: --json-stream, --get-server-output, -O omitted intervals."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from domain.benchlogs import BenchLogError, BenchResult, iperf3_json, parse_stream
from domain.benchlogs.iperf3_intervals import IntervalAccumulator
from domain.benchlogs.iperf3_json import parse_iperf3_json

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
JSON_FILES = sorted((CORPUS / "iperf3-json").glob("*.json"))
TEXT_FILES = sorted(p for p in CORPUS.glob("*/*") if p.parent.name != "iperf3-json")


class _OneWay(io.RawIOBase):
    """A non-seekable stream that returns at most ``step`` bytes per read."""

    def __init__(self, data: bytes, step: int = 997) -> None:
        super().__init__()
        self._data, self._pos, self._step = data, 0, step

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readinto(self, buffer: Any) -> int:
        chunk = self._data[self._pos : self._pos + min(len(buffer), self._step)]
        buffer[: len(chunk)] = chunk
        self._pos += len(chunk)
        return len(chunk)


def _parse(data: bytes, name: str = "") -> BenchResult:
    return parse_stream(io.BytesIO(data), name)


def _outcome(parse: Callable[[], BenchResult]) -> BenchResult | str:
    """The result, or for a log the parser refuses (a run that died before any row) its code."""
    try:
        return parse()
    except BenchLogError as error:
        return error.code


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("buf_size", [17, 256, 4096])
def test_tiny_read_buffers_give_the_same_result(path: Path, buf_size: int) -> None:
    reference = parse_iperf3_json(io.BytesIO(path.read_bytes()))
    assert parse_iperf3_json(io.BytesIO(path.read_bytes()), buf_size=buf_size) == reference


@pytest.mark.parametrize("path", JSON_FILES + TEXT_FILES, ids=lambda p: p.name)
def test_a_non_seekable_stream_gives_the_same_result(path: Path) -> None:
    data = path.read_bytes()
    stream = io.BufferedReader(_OneWay(data))
    reference = _outcome(lambda: _parse(data, path.name))
    assert _outcome(lambda: parse_stream(stream, path.name)) == reference


@pytest.mark.parametrize("path", TEXT_FILES, ids=lambda p: p.name)
def test_utf16_and_crlf_text_give_the_same_result(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")
    reference = _outcome(lambda: _parse(path.read_bytes(), path.name))
    crlf = text.replace("\n", "\r\n")
    assert _outcome(lambda: _parse(crlf.encode("utf-8"), path.name)) == reference
    utf16 = b"\xff\xfe" + crlf.encode("utf-16-le")
    assert _outcome(lambda: _parse(utf16, path.name)) == reference


def _load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((CORPUS / "iperf3-json" / name).read_text())
    return loaded


def test_sorted_keys_put_end_before_intervals_and_still_parse() -> None:
    doc = _load("local_3.12_tcp_P4.json")
    reference = _parse((CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_bytes())
    for buf_size in (64, 65536):
        data = json.dumps(doc, sort_keys=True).encode()
        result = parse_iperf3_json(io.BytesIO(data), buf_size=buf_size)
        assert replace(result, header=()) == replace(reference, header=())
        assert sorted(result.header) == sorted(reference.header)


def test_omitted_intervals_are_left_out_and_counted() -> None:
    doc = _load("local_3.12_tcp_single.json")
    for interval in doc["intervals"][:1]:
        interval["sum"]["omitted"] = True
    result = _parse(json.dumps(doc, indent="\t").encode())
    assert result.intervals == 2 and result.omitted_intervals == 1
    assert "omitted_intervals" in [w.code for w in result.warnings]
    assert result.throughput_gbps == pytest.approx(16411045593.598639 / 1e9)


def test_json_stream_events_give_the_same_figures() -> None:
    doc = _load("local_3.12_tcp_P4.json")
    events = [{"event": "start", "data": doc["start"]}]
    events += [{"event": "interval", "data": interval} for interval in doc["intervals"]]
    events.append({"event": "end", "data": doc["end"]})
    data = "\n".join(json.dumps(event) for event in events).encode()
    result = _parse(data)
    reference = _parse(json.dumps(doc).encode())
    assert result == reference


def test_cut_json_stream_keeps_the_complete_events() -> None:
    doc = _load("local_3.12_tcp_P4.json")
    lines = [json.dumps({"event": "start", "data": doc["start"]})]
    lines += [json.dumps({"event": "interval", "data": iv}) for iv in doc["intervals"]]
    data = ("\n".join(lines[:3]) + "\n" + lines[3][:50]).encode()
    result = _parse(data)
    assert result.truncated and result.intervals == 2


@pytest.mark.parametrize("buf_size", [64, 65536])
def test_embedded_server_json_becomes_the_server_result(buf_size: int) -> None:
    client = _load("local_3.12_tcp_single.json")
    server = _load("local_3.12_tcp_P4.json")
    client["server_output_json"] = server
    data = json.dumps(client, indent="\t").encode()
    result = parse_iperf3_json(io.BytesIO(data), buf_size=buf_size)
    assert result.throughput_gbps == pytest.approx(16411045593.598639 / 1e9)
    assert result.server is not None
    assert result.server.intervals == 3 and result.server.streams == 4
    assert result.server.throughput_gbps == pytest.approx(13332362914.181807 / 1e9)


def test_embedded_server_text_becomes_the_server_result() -> None:
    client = _load("local_3.12_tcp_single.json")
    server_log = (CORPUS / "iperf3-text" / "local_3.12_server_side.txt").read_text()
    first_test = server_log.split("Server listening on 5399 (test #2)")[0]
    client["server_output_text"] = first_test
    result = _parse(json.dumps(client).encode())
    assert result.server is not None and result.server.role == "server"
    assert result.server.throughput_gbps == pytest.approx(16.4)


def test_a_large_tail_spills_to_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(iperf3_json, "_SPILL_BYTES", 512)
    client = _load("local_3.12_tcp_single.json")
    client["server_output_json"] = _load("local_3.12_tcp_P4.json")
    data = json.dumps(client, indent="\t").encode()
    result = parse_iperf3_json(io.BytesIO(data), buf_size=128)
    assert result.server is not None and result.server.intervals == 3
    assert result.throughput_gbps == pytest.approx(16411045593.598639 / 1e9)


def test_many_intervals_stream_through(parse: Callable[[str], BenchResult]) -> None:
    doc = _load("local_3.12_tcp_P4.json")
    template = doc["intervals"][0]
    doc["intervals"] = []
    for second in range(2000):
        interval = json.loads(json.dumps(template))
        interval["sum"]["start"], interval["sum"]["end"] = second, second + 1
        doc["intervals"].append(interval)
    result = parse_iperf3_json(io.BytesIO(json.dumps(doc).encode()), buf_size=1024)
    assert result.intervals == 2000
    assert result.throughput_gbps == parse("iperf3-json/local_3.12_tcp_P4.json").throughput_gbps
    assert all(len(series.gbps) == 2000 for series in result.series)


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_json_saved_with_a_bom_or_as_utf16(path: Path, encoding: str) -> None:
    reference = _parse(path.read_bytes())
    assert _parse(path.read_bytes().decode("utf-8").encode(encoding)) == reference


@pytest.mark.parametrize("path", JSON_FILES, ids=lambda p: p.name)
def test_the_fast_path_agrees_with_the_validated_path(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _parse(path.read_bytes())
    monkeypatch.setattr(IntervalAccumulator, "_add_fast", lambda self, interval: False)
    assert _parse(path.read_bytes()) == fast


def test_a_stream_that_joins_late_gets_nan_before_it_existed() -> None:
    doc = _load("local_3.12_tcp_P4.json")
    doc["intervals"][0]["streams"] = doc["intervals"][0]["streams"][:3]
    result = _parse(json.dumps(doc).encode())
    late = next(series for series in result.series if series.label == "stream 12")
    assert math.isnan(late.gbps[0]) and not math.isnan(late.gbps[1])
    assert all(len(series.gbps) == 3 for series in result.series)
