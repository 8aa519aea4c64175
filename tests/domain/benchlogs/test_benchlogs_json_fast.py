"""The fast JSON path reads every well-formed document exactly as the ijson path does."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from domain.benchlogs import parse_stream, result_to_json
from domain.benchlogs.iperf3_json import parse_iperf3_json
from domain.benchlogs.iperf3_json_fast import parse_iperf3_json_fast

DATA = Path(__file__).resolve().parents[1] / "data"
DOCUMENTS = sorted([*DATA.glob("corpus/iperf3-json/*.json"), *DATA.glob("fidelity/*.json")])


class _OneWay(io.RawIOBase):
    """A stream that cannot seek, as an upload piped through a socket would be."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer):  # type: ignore[no-untyped-def]
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_fast_and_ijson_paths_agree(path: Path) -> None:
    data = path.read_bytes()
    fast = parse_iperf3_json_fast(io.BytesIO(data))
    assert fast is not None
    slow = parse_iperf3_json(io.BufferedReader(_OneWay(data)))
    assert result_to_json(fast, "x") == result_to_json(slow, "x")
    assert fast.header == slow.header and fast.series == slow.series


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d[: len(d) // 2],  # cut mid-document
        lambda d: d.replace(b'"bits_per_second":', b'"bits_per_second":NaN,"x":', 1),
        lambda d: d + b"{}",  # bytes after the document
        lambda d: d.replace(b"},", b"} ;", 1),
    ],
)
def test_anything_odd_is_left_to_the_ijson_path_with_the_stream_rewound(damage) -> None:  # type: ignore[no-untyped-def]
    data = damage((DATA / "corpus/iperf3-json/local_3.12_tcp_P4.json").read_bytes())
    stream = io.BytesIO(data)
    stream.seek(0)
    assert parse_iperf3_json_fast(stream) is None
    assert stream.tell() == 0
    try:
        parse_stream(io.BytesIO(data), "odd.json")  # the ijson path decides, as before
    except Exception as exc:  # noqa: BLE001 - only BenchLogError may come out
        assert type(exc).__name__ == "BenchLogError"
