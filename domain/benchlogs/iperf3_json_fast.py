"""The fast path for a complete, well-formed iperf3 ``-J`` document on a seekable stream.

The intervals array is most of a long log. It is read from a text buffer refilled 1 MiB at a
time. The boundary between two intervals is found by its shape, whatever the whitespace: an
object's ``}``, a comma and the next object's ``{`` opening with the key ``"streams"`` (between two
streams of one interval ``"socket"`` follows instead), with any spaces, tabs or line ends between
them. So iperf3's own cJSON layout, a document re-saved by another JSON writer (indented
otherwise, on one line, minified, CRLF line ends) all take the same path: the run of intervals up
to the last such boundary in the buffer is decoded as one array by orjson, a compiled JSON reader
about twice as fast as the standard library's; the last interval of the array, and the intervals
of a document whose intervals do not start with ``"streams"``, are decoded by the standard
``json`` scanner (``raw_decode``). Both cost less than ijson building the same objects event by
event, and memory stays at one chunk plus the intervals decoded from it. A run orjson refuses (a
number such as ``1e400``, a lone surrogate) sends the whole document to the ijson path. One
difference is left, for numbers iperf3 never writes (cJSON prints every number as a double): an
integer outside the signed 64-bit range is a number here, while ijson's C backend stops the
document at it.

What surrounds the array (``start``, ``end``, ``error``, a small embedded server report) is
decoded in one piece once the array has been read.

Anything unusual returns None before a result is built, and the caller rewinds the stream and
takes the ijson path (iperf3_json.py), which owns every rule about damaged, cut, odd or huge
documents: a bad interval, a cut file, NaN, deep nesting, bytes after the document, a tail too
large to hold. So this module can only make a good document faster, never read one
differently (but for the integers above).
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

import orjson

from domain.benchlogs.depth import check_depth
from domain.benchlogs.iperf3_build import JsonParts, build_result
from domain.benchlogs.iperf3_intervals import IntervalAccumulator
from domain.benchlogs.result import BenchResult
from domain.benchlogs.textio import ByteSource, skip_leading_text

CHUNK = 1 << 20
# Left in the buffer, below this the next chunk is appended before decoding (an interval of a
# -P 128 run is ~40 KB; a larger one still decodes after a refill on failure).
_LOW_WATER = 64 * 1024
# The head (start) and the tail (end, error, server output) are held whole: past this, the
# ijson path, which spills them to disk, is the right one.
_MAX_HELD = 8 * CHUNK
_INTERVALS = re.compile(r'"intervals"\s*:\s*\[')
_SPACE = re.compile(r"\s*")
# The key every iperf3 interval opens with; between two streams of one interval "socket"
# follows the "{" instead. JSON whitespace is space, tab, line feed and carriage return.
_INTERVAL_KEY = '"streams"'
_WHITESPACE = " \t\n\r"


class _Unsuitable(Exception):
    """The document needs the ijson path."""


def _no_constants(name: str) -> Any:
    raise _Unsuitable(name)  # NaN / Infinity are not JSON; the ijson path reports them


_DECODER = json.JSONDecoder(parse_constant=_no_constants)


class _Text:
    """UTF-8 text of a byte stream, decoded incrementally into a sliding buffer."""

    def __init__(self, stream: ByteSource) -> None:
        self._stream = stream
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.eof = False

    def more(self, keep_from: int) -> int:
        """Drop the buffer before ``keep_from`` and append a chunk; the new ``keep_from``."""
        if self.eof:
            raise _Unsuitable("end of file inside the document")
        data = self._stream.read(CHUNK)
        self.eof = not data
        self.buf = self.buf[keep_from:] + self._decoder.decode(data, final=self.eof)
        return 0


def parse_iperf3_json_fast(stream: Any) -> BenchResult | None:
    """The parsed result, or None (stream rewound) when the ijson path must decide."""
    try:
        if not stream.seekable():
            return None
        origin = stream.tell()
    except (AttributeError, OSError, ValueError):
        return None
    try:
        # Plain-text lines in front of the document (``-V -J``) are skipped (textio.py).
        return _parse(skip_leading_text(stream))
    except (_Unsuitable, ValueError, RecursionError, UnicodeDecodeError, KeyError, TypeError):
        stream.seek(origin)
        return None


def _parse(stream: ByteSource) -> BenchResult:
    text = _Text(stream)
    while (found := _INTERVALS.search(text.buf)) is None:
        if len(text.buf) > _MAX_HELD:
            raise _Unsuitable("no intervals array near the start")
        text.more(0)
    head = text.buf[: found.start()]
    acc = IntervalAccumulator()
    pos = _read_intervals(text, found.end(), acc)
    tail, text.buf = text.buf[pos:], ""
    while not text.eof:
        text.more(0)
        tail, text.buf = tail + text.buf, ""
        if len(tail) > _MAX_HELD:
            raise _Unsuitable("large tail")
    # The members around the array nest within the same bound as on the streaming path.
    check_depth((head + tail).encode())
    members = _members(head, tail)
    server = IntervalAccumulator()
    embedded = members.get("server_output_json")
    if isinstance(embedded, dict) and "intervals" in embedded:
        for interval in embedded.pop("intervals"):
            server.add(interval)
    return build_result(JsonParts(members, acc, server), damage=None)


def _read_intervals(text: _Text, pos: int, acc: IntervalAccumulator) -> int:
    """Decode array elements from ``pos`` (just after ``[``); the position after ``]``."""
    pos = _skip_space(text, pos)
    if text.buf[pos] == "]":
        return pos + 1
    while True:
        if len(text.buf) - pos < _LOW_WATER and not text.eof:
            # Refill before the buffer runs dry rather than after a failed decode: a failure
            # costs the partial decode and a JSONDecodeError, whose line number is counted
            # over the whole buffer (about 4% of the parse when done once per chunk).
            pos = text.more(pos)
        cut, following = _last_boundary(text.buf, pos, len(text.buf))
        if cut > pos and (decoded := _decode_run(text.buf, pos, cut, following)) is not None:
            run, following = decoded
            for interval in run:
                if type(interval) is not dict:
                    raise _Unsuitable("an interval that is not an object")
                acc.add(interval)
            pos = following  # the next interval's "{"
            continue
        try:
            interval, end = _DECODER.raw_decode(text.buf, pos)
        except json.JSONDecodeError:
            if len(text.buf) - pos > 4 * CHUNK:
                raise _Unsuitable("an interval larger than 4 MiB") from None
            pos = text.more(pos)
            continue
        if not isinstance(interval, dict):
            raise _Unsuitable("an interval that is not an object")
        # What orjson refuses inside a run (1e400, a lone surrogate) the json scanner takes:
        # the interval read on its own is held to the same rule.
        try:
            orjson.loads(text.buf[pos:end])
        except orjson.JSONDecodeError:
            raise _Unsuitable("an interval orjson refuses") from None
        acc.add(interval)  # a damaged interval is counted there, as on the ijson path
        pos = _skip_space(text, end)
        if text.buf[pos] == "]":
            return pos + 1
        if text.buf[pos] != ",":
            raise _Unsuitable("no separator after an interval")
        pos = _skip_space(text, pos + 1)


def _decode_run(buf: str, pos: int, cut: int, following: int) -> tuple[list[Any], int] | None:
    """The intervals from ``pos`` (an interval's "{") to ``cut`` (the "}" of a later one),
    decoded by orjson as one list, and the index of the "{" of the interval after the run;
    None when only the interval at ``pos`` can be read here (on its own, by the caller).

    A boundary found after the end of the intervals array (an embedded server report has
    intervals of its own) makes the run invalid where the array ends: the run is then cut at
    the last boundary before that point. A run that fails in its first interval (1e400, a
    lone surrogate, or not intervals at all) is left to the caller, which refuses the same
    values in one interval and so sends the document to the ijson path."""
    while True:
        try:
            run: list[Any] = orjson.loads("[" + buf[pos : cut + 1] + "]")
            return run, following
        except orjson.JSONDecodeError as error:
            limit = min(cut, pos + max(int(error.pos) - 1, 0))
        earlier, after = _last_boundary(buf, pos, limit)
        if not pos < earlier < cut:
            return None
        cut, following = earlier, after


def _last_boundary(buf: str, pos: int, end: int) -> tuple[int, int]:
    """(index of the "}" that closes the last whole interval after ``pos``, index of the "{" that
    opens the interval after it), or (-1, -1) when the buffer holds no such boundary.

    The boundary is ``}`` ``,`` ``{`` ``"streams"`` with any JSON whitespace between the four, so
    the layout (indentation, one line, CRLF) does not matter."""
    while (key := buf.rfind(_INTERVAL_KEY, pos, end)) > pos:
        end = key
        opening = _back_over_space(buf, key - 1, pos)
        if opening <= pos or buf[opening] != "{":
            continue
        comma = _back_over_space(buf, opening - 1, pos)
        if comma <= pos or buf[comma] != ",":
            continue
        closing = _back_over_space(buf, comma - 1, pos)
        if closing > pos and buf[closing] == "}":
            return closing, opening
    return -1, -1


def _back_over_space(buf: str, index: int, floor: int) -> int:
    """The index of the last non-whitespace character at or before ``index`` (not below floor)."""
    while index > floor and buf[index] in _WHITESPACE:
        index -= 1
    return index


def _skip_space(text: _Text, pos: int) -> int:
    while True:
        end = _SPACE.match(text.buf, pos)
        assert end is not None  # \s* always matches
        if end.end() < len(text.buf):
            return end.end()
        pos = text.more(pos)


def _members(head: str, tail: str) -> dict[str, Any]:
    """The top-level members around the intervals array, decoded as one object."""
    before = head.rstrip()
    after = tail.lstrip()
    if before.endswith(","):
        before = before[:-1]
    elif after.startswith(","):
        after = after[1:]
    document, end = _DECODER.raw_decode(before + after)
    if (before + after)[end:].strip() or not isinstance(document, dict):
        raise _Unsuitable("not one object")
    if "intervals" in document or not before.lstrip().startswith("{"):
        raise _Unsuitable("unexpected layout")
    return document
