"""The nesting bound on uploaded JSON: deep documents are refused early,
in bounded memory, however the depth is disguised; real logs pass untouched."""

from __future__ import annotations

import io
import json
import resource
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.benchlogs import BenchLogError, parse_stream
from domain.benchlogs.depth import MAX_JSON_DEPTH, DepthGuard

CORPUS = Path(__file__).resolve().parents[2] / "domain" / "data" / "corpus" / "iperf3-json"


def _drain(data: bytes, chunk: int = 7) -> DepthGuard:
    guard = DepthGuard(io.BytesIO(data))
    while guard.read(chunk):
        pass
    return guard


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_the_reported_attack_is_refused_with_a_clear_message_in_bounded_memory() -> None:
    depth = 100_000
    data = b'{"start":{},"intervals":[' + b"[" * depth + b"]" * depth + b"]}"
    before = _peak_rss_mb()
    with pytest.raises(BenchLogError) as caught:
        parse_stream(io.BytesIO(data), "evil.json")
    assert caught.value.message.code == "json_too_deep"
    assert "64" in caught.value.message.en and "64" in caught.value.message.zh
    # Without the bound 10,000 levels alone took ~250 MB and 100,000 took > 20 GB.
    assert _peak_rss_mb() - before < 50


@pytest.mark.parametrize("opener", [b"[", b'{"a":'])
def test_depth_just_past_the_bound_is_refused_and_at_the_bound_accepted(opener: bytes) -> None:
    closer = b"]" if opener == b"[" else b"}"
    inner = b"1" if opener == b"[" else b"1"
    ok = opener * MAX_JSON_DEPTH + inner + closer * MAX_JSON_DEPTH
    assert _drain(ok).peak == MAX_JSON_DEPTH
    deep = opener * (MAX_JSON_DEPTH + 1) + inner + closer * (MAX_JSON_DEPTH + 1)
    with pytest.raises(BenchLogError):
        _drain(deep)


def test_closing_brackets_hidden_in_strings_do_not_buy_depth() -> None:
    # Each level hides its own closer inside a string: counting brackets blindly sees depth ~0.
    level = b'["' + b"]" * 40 + b'",'
    data = level * 5_000 + b"1" + b"]" * 5_000
    with pytest.raises(BenchLogError):
        _drain(data, chunk=4096)


def test_brackets_inside_strings_and_escapes_do_not_count() -> None:
    text = "[" * 3 + json.dumps('[[[[{{{{ \\" \\\\ "\\"[[[[' * 50) + "]" * 3
    for chunk in (1, 2, 3, 5, 64, 65536):
        guard = _drain(text.encode(), chunk)
        assert guard.peak <= 3 and guard.depth == 0


def test_escaped_quote_split_across_chunks_keeps_the_string_state() -> None:
    data = b'["a\\"[[[[[[", [1]]'
    for chunk in range(1, len(data) + 1):
        guard = _drain(data * 1, chunk)
        assert guard.depth == 0


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json")), ids=lambda p: p.name)
def test_every_real_iperf3_json_log_passes_the_guard(path: Path) -> None:
    guard = _drain(path.read_bytes(), chunk=65536)
    assert 3 <= guard.peak <= 12


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\n', max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet='[]{}"\\k', max_size=5), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(value=_json_values, chunk=st.integers(min_value=1, max_value=40))
def test_the_guard_measures_exactly_the_real_depth(value: object, chunk: int) -> None:
    guard = _drain(json.dumps(value).encode(), chunk)
    assert guard.peak == _depth(value)
    assert guard.depth == 0


class _Unseekable(io.RawIOBase):
    """A pipe-like source: the streaming (ijson) path, never the fast path."""

    def __init__(self, data: bytes) -> None:
        self._inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        chunk = self._inner.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize("member", ["start", "end"])
@pytest.mark.parametrize("seekable", [True, False])
def test_a_real_log_with_a_member_nested_past_the_bound_is_refused_on_both_paths(
    member: str, seekable: bool
) -> None:
    # The fast path (seekable uploads) checks the members around the intervals itself, so a
    # real document nested past the bound is refused exactly as on the streaming path.
    document = json.loads((CORPUS / "local_3.12_tcp_P4.json").read_text())
    deep: object = 1
    for _ in range(MAX_JSON_DEPTH - 1):  # with the document and the member: one level too many
        deep = [deep]
    document[member]["extra"] = deep
    data = json.dumps(document).encode()
    stream = io.BytesIO(data) if seekable else io.BufferedReader(_Unseekable(data))
    with pytest.raises(BenchLogError) as caught:
        parse_stream(stream, "deep.json")
    assert caught.value.message.code == "json_too_deep"
    # One level less is read on both paths, to the same figures.
    document[member]["extra"] = deep[0]  # type: ignore[index]
    data = json.dumps(document).encode()
    fast = parse_stream(io.BytesIO(data), "ok.json")
    slow = parse_stream(io.BufferedReader(_Unseekable(data)), "ok.json")
    assert fast.intervals == slow.intervals == len(document["intervals"])
    assert fast.throughput_gbps == pytest.approx(slow.throughput_gbps)
