"""Mangled corpus files never crash the parsers: the only exception is BenchLogError.

``parse_failed`` is the guard's code for an unexpected internal error, so it counts as a
crash too. Whatever parses must still serialise to strict JSON.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.benchlogs import BenchLogError, parse_stream, result_to_json

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
FILES = sorted(p for p in CORPUS.glob("*/*") if p.is_file())
DATA = {path.name: path.read_bytes() for path in FILES}
NAMES = sorted(DATA)

EXAMPLES = int(os.environ.get("BENCHLOGS_EXAMPLES", "100"))
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _check(data: bytes, name: str) -> None:
    try:
        result = parse_stream(io.BytesIO(data), name)
    except BenchLogError as exc:
        assert exc.code != "parse_failed", repr(exc.__cause__)
        assert exc.message.en and exc.message.zh
        return
    json.dumps(result_to_json(result, name), allow_nan=False)


@PROPERTY
@given(name=st.sampled_from(NAMES), cut=st.floats(0.0, 1.0))
def test_truncated_files(name: str, cut: float) -> None:
    data = DATA[name]
    _check(data[: int(len(data) * cut)], name)


@PROPERTY
@given(
    name=st.sampled_from(NAMES),
    flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 255)), min_size=1, max_size=8),
)
def test_flipped_bytes(name: str, flips: list[tuple[float, int]]) -> None:
    data = bytearray(DATA[name])
    for where, value in flips:
        data[min(int(where * len(data)), len(data) - 1)] = value
    _check(bytes(data), name)


GARBAGE = st.one_of(
    st.binary(max_size=80),
    st.text(max_size=80).map(lambda text: text.encode("utf-8", "replace")),
    st.sampled_from(
        [
            b"[SUM]   0.00-1.00   sec  2.47 GBytes  21.2 Gbits/sec   26",
            b"[  5]   1.00-1.00   sec  0.00 Bytes  0.00 bits/sec",
            b" 8388608    20000            nan            inf   0.0",
            b"#       size         count    type",
            b'{"event": "interval", "data": {"sum": {}}}',
            b'\t\t}], "end": {',
            b"- - - - - - - - - - - - - - - - - - - - - - - - -",
            b"---------------------------------------------------------------------------------------",
        ]
    ),
)


@PROPERTY
@given(
    name=st.sampled_from(NAMES),
    inserts=st.lists(st.tuples(st.floats(0.0, 1.0), GARBAGE), min_size=1, max_size=5),
)
def test_inserted_garbage_lines(name: str, inserts: list[tuple[float, bytes]]) -> None:
    lines = DATA[name].splitlines(keepends=True)
    for where, garbage in inserts:
        lines.insert(int(where * len(lines)), garbage + b"\n")
    _check(b"".join(lines), name)


@PROPERTY
@given(
    name=st.sampled_from(NAMES),
    picks=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
    duplicate=st.booleans(),
)
def test_dropped_or_repeated_lines(name: str, picks: list[float], duplicate: bool) -> None:
    lines = DATA[name].splitlines(keepends=True)
    for where in picks:
        if not lines:
            break
        index = min(int(where * len(lines)), len(lines) - 1)
        if duplicate:
            lines.insert(index, lines[index])
        else:
            del lines[index]
    _check(b"".join(lines), name)


# Documents only: `-V -J` logs carry plain-text lines before the "{" (detect.json_offset).
JSON_DOCS = {
    name: json.loads(DATA[name][DATA[name].find(b"{") :])
    for name in NAMES
    if name.endswith(".json")
}
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


@PROPERTY
@given(data=st.data())
def test_json_values_of_the_wrong_type(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(JSON_DOCS)))
    doc = json.loads(json.dumps(JSON_DOCS[name]))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)[1:]
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        node = doc
        for step in path[:-1]:
            node = node[step]  # type: ignore[index]
        node[path[-1]] = data.draw(JSON_VALUES)  # type: ignore[index]
    _check(json.dumps(doc, indent="\t").encode(), name)


NUMBER = re.compile(rb"\d+(?:\.\d+)?")
NUMBERS = st.one_of(
    st.integers(0, 10**30).map(lambda n: str(n).encode()),
    st.floats(0, 1e30, allow_nan=False).map(lambda f: f"{f:.2f}".encode()),
    st.just(b"9" * 400),
    st.just(b"0.00"),
)


@PROPERTY
@given(data=st.data())
def test_numbers_replaced_in_text_logs(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from([n for n in NAMES if not n.endswith(".json")]))
    text = DATA[name]
    for _ in range(data.draw(st.integers(1, 6))):
        spans = [match.span() for match in NUMBER.finditer(text)]
        start, end = data.draw(st.sampled_from(spans))
        text = text[:start] + data.draw(NUMBERS) + text[end:]
    _check(text, name)
