"""The fast JSON path reads every well-formed document exactly as the ijson path does."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest

from domain.benchlogs import iperf3_json_fast as fast_module
from domain.benchlogs import parse_stream, result_to_json
from domain.benchlogs.iperf3_json import parse_iperf3_json
from domain.benchlogs.iperf3_json_fast import parse_iperf3_json_fast

DATA = Path(__file__).resolve().parents[1] / "data"
ROOT = Path(__file__).resolve().parents[3]
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


def _long_log(tmp_path: Path, intervals: int) -> bytes:
    """A -P 8 log in iperf3's own cJSON layout, built by the parse benchmark's generator."""
    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "scripts/bench_parse.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "long.json"
    module.build_log(path, intervals)
    return path.read_bytes()


def _both_paths(data: bytes):  # type: ignore[no-untyped-def]
    fast = parse_iperf3_json_fast(io.BytesIO(data))
    assert fast is not None
    slow = parse_iperf3_json(io.BufferedReader(_OneWay(data)))
    assert result_to_json(fast, "x") == result_to_json(slow, "x")
    assert fast.header == slow.header and fast.series == slow.series
    return fast


def test_a_log_over_several_chunks_is_read_in_runs_of_intervals(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    data = _long_log(tmp_path, 800)
    assert len(data) > 2 * fast_module.CHUNK  # runs end at chunk edges, not only at the end
    runs: list[int] = []
    loads = fast_module.orjson.loads

    def counted(text: str) -> object:
        decoded = loads(text)
        if isinstance(decoded, list):  # a run; a lone interval is checked as an object
            runs.append(len(decoded))
        return decoded

    monkeypatch.setattr(fast_module.orjson, "loads", counted)
    result = _both_paths(data)
    assert result.intervals == 800 and len(result.series) == 8
    # Every interval but the last of the array came in a run of many; the last one, which
    # no separator follows, was decoded on its own.
    assert len(runs) >= 3 and sum(runs) == 799 and min(runs[:-1]) > 100


_FIRST_RATE = b'"bits_per_second":\t'


@pytest.mark.parametrize(
    ("value", "read_fast", "damaged"),
    [
        (b"1e400", False, True),  # orjson refuses an infinite number: the ijson path reads it
        (b'"\\ud800"', False, True),  # a lone surrogate orjson refuses, as above
        (b"true", True, True),
        (b'"fast"', True, True),
        (b"-0.0", True, False),
        (b"1e300", True, False),
    ],
)
def test_odd_values_inside_a_run_read_as_the_ijson_path_reads_them(  # type: ignore[no-untyped-def]
    tmp_path, value, read_fast, damaged
) -> None:
    data = _long_log(tmp_path, 400)
    # The value replaces a stream's rate in interval 200, the sum's rate in interval 300
    # and the retransmits of interval 250, all in the middle of a run.
    marks = [m for m in range(len(data)) if data.startswith(b'"streams":', m)]
    for interval, field in ((200, _FIRST_RATE), (300, b'"sum":\t'), (250, b'"retransmits":\t')):
        start = data.index(field, marks[interval])
        if field == b'"sum":\t':
            start = data.index(_FIRST_RATE, start)
            field = _FIRST_RATE
        end = data.index(b",", start)
        data = data[: start + len(field)] + value + data[end:]
    if read_fast:
        result = _both_paths(data)
        assert (result.intervals < 400) == damaged  # damaged intervals are counted, not read
    else:
        stream = io.BytesIO(data)
        assert parse_iperf3_json_fast(stream) is None and stream.tell() == 0
        try:
            parse_stream(io.BytesIO(data), "odd.json")
        except Exception as exc:  # noqa: BLE001 - only BenchLogError may come out
            assert type(exc).__name__ == "BenchLogError"


def test_a_duplicated_member_keeps_its_last_value_on_both_paths(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = _long_log(tmp_path, 300)
    at = data.index(b'"sum":\t{', data.index(b'"streams":', 150 * len(data) // 300))
    data = data[: at + 8] + b'"bits_per_second": 1, ' + data[at + 8 :]
    _both_paths(data)


def _bench_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "scripts/bench_parse.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _counted_runs(monkeypatch) -> list[int]:  # type: ignore[no-untyped-def]
    runs: list[int] = []
    loads = fast_module.orjson.loads

    def counted(text: str) -> object:
        decoded = loads(text)
        if isinstance(decoded, list):  # a run; a lone interval is checked as an object
            runs.append(len(decoded))
        return decoded

    monkeypatch.setattr(fast_module.orjson, "loads", counted)
    return runs


@pytest.mark.parametrize("layout", ["json.dump", "indent", "minified", "one-tab-less", "crlf"])
def test_a_re_saved_log_is_read_in_runs_whatever_its_whitespace(  # type: ignore[no-untyped-def]
    tmp_path, monkeypatch, layout
) -> None:
    module = _bench_module()
    original = tmp_path / "iperf3.json"
    module.build_log(original, 800)
    reference = parse_iperf3_json_fast(io.BytesIO(original.read_bytes()))
    data = module.build_layout(original, layout, 800).read_bytes()
    assert data != original.read_bytes()
    runs = _counted_runs(monkeypatch)
    result = _both_paths(data)
    # Decoded in runs of many intervals, as iperf3's own layout is, not one by one.
    assert sum(runs) == 799 and min(runs[:-1]) > 100
    assert result_to_json(result, "x") == result_to_json(reference, "x")


def test_an_embedded_server_report_after_the_array_does_not_end_a_run_there(  # type: ignore[no-untyped-def]
    tmp_path, monkeypatch
) -> None:
    # --get-server-output puts the server's own intervals after the client's: a boundary found
    # there lies beyond the client's array, and the run is cut back to the array's end.
    import json

    document = json.loads(_long_log(tmp_path, 300))
    server = {"start": {}, "intervals": document["intervals"][:50], "end": {}}
    document["server_output_json"] = server
    data = json.dumps(document, separators=(",", ":")).encode()
    runs = _counted_runs(monkeypatch)
    result = _both_paths(data)
    assert result.intervals == 300 and sum(runs) == 299
