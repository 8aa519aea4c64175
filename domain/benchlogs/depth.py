"""A bound on JSON nesting, enforced on the bytes while they stream into the parser.

Why: ijson (yajl underneath) keeps the dotted prefix of every open container, so the memory it
needs grows with the *square* of the nesting depth. A 200 KB upload made of 100,000 ``[`` and
100,000 ``]`` grew a worker to 23.5 GB before the kernel killed it; 10,000 levels already take
about 250 MB. Real iperf3 ``-J`` output nests about six levels (seven with an embedded
``server_output_json``), so a bound of a few dozen levels refuses nothing real.

How: :class:`DepthGuard` wraps the byte source the parser reads. For each chunk it removes
escaped characters and the contents of strings (tracking a string that spans two chunks), keeps
only the brackets of what is left, maps openers to +1 and closers to -1 as signed bytes, and
takes the running maximum with ``itertools.accumulate`` — all of it C-level work per chunk, no
Python loop per byte. The moment the depth passes the bound it raises :class:`BenchLogError`,
so the parser never sees the deep part and the work done is linear in the bytes read.

Where: the guard sits in front of the streaming (ijson) path only. The fast path for complete,
seekable documents (iperf3_json_fast.py) decodes with the C ``json`` scanner, whose memory is
linear in the depth and which stops at the interpreter's recursion limit (about 1,000 levels)
with a RecursionError that hands the document to the guarded path. The fast path checks the
members around the intervals array with :func:`check_depth` itself, so a document nested past
the bound there is refused with the same message; only an interval's members, which hold no
figure the parser reads beyond the ones it type-checks, are bounded by the recursion limit
instead. Scanning every byte costs about a tenth of the parse of a day-long log, which is why
the fast path does not pay it.
"""

from __future__ import annotations

import re
from itertools import accumulate

from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.textio import ByteSource
from domain.messages import Message

#: Deepest nesting accepted in an uploaded JSON log. iperf3 needs ~7; the bound leaves room for
#: other JSON-writing tools while keeping the parser's prefix memory negligible (< 1 MB).
MAX_JSON_DEPTH = 64

_ESCAPED = re.compile(rb"\\.", re.DOTALL)
_STRING = re.compile(rb'"[^"]*"')
# Openers become +1, closers -1 (as signed bytes).
_SIGNS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_MARKS = bytes(b for b in range(256) if b not in b'[]{}"')


class DepthGuard:
    """A ``read(size)`` byte source that refuses JSON nested deeper than ``limit``."""

    def __init__(self, raw: ByteSource, limit: int = MAX_JSON_DEPTH) -> None:
        self._raw = raw
        self._limit = limit
        self.depth = 0
        self.peak = 0
        self._in_string = False
        self._escape_pending = False

    def read(self, size: int = -1, /) -> bytes:
        data = self._raw.read(size)
        if data:
            self._scan(data)
        return data

    # Seeking is passed through so the fast JSON path (which rewinds to the document's start
    # when it hands over to ijson) also runs behind the guard; a rewind restarts the count.
    def seekable(self) -> bool:
        seekable = getattr(self._raw, "seekable", None)
        return bool(seekable()) if seekable is not None else False

    def tell(self) -> int:
        return int(self._raw.tell())  # type: ignore[attr-defined]

    def seek(self, offset: int, whence: int = 0, /) -> int:
        self.depth = self.peak = 0
        self._in_string = self._escape_pending = False
        return int(self._raw.seek(offset, whence))  # type: ignore[attr-defined]

    def _scan(self, chunk: bytes) -> None:
        if self._escape_pending:
            chunk = chunk[1:]
            self._escape_pending = False
        if b"\\" in chunk:
            chunk = _ESCAPED.sub(b"", chunk)
            if chunk.endswith(b"\\"):
                # A backslash whose escaped character comes with the next chunk.
                self._escape_pending = True
                chunk = chunk[:-1]
        # Only quotes and brackets matter from here on; dropping the rest first makes the
        # string handling below work on a few percent of the bytes.
        marks = chunk.translate(None, _NOT_MARKS)
        if self._in_string:
            end = marks.find(b'"')
            if end < 0:
                return
            marks = marks[end + 1 :]
            self._in_string = False
        # Two adjacent quotes are either an empty-looking string or the end of one string and
        # the start of the next with nothing between: removing them never removes a bracket
        # that stands outside a string, and keeps the quotes' parity.
        marks = marks.replace(b'""', b"")
        if b'"' in marks:
            marks = _STRING.sub(b"", marks)
            opened = marks.find(b'"')
            if opened >= 0:
                # A string that continues into the next chunk.
                marks = marks[:opened]
                self._in_string = True
        if not marks:
            return
        brackets = marks.translate(_SIGNS)
        peak = max(accumulate(memoryview(brackets).cast("b"), initial=self.depth))
        if peak > self.peak:
            self.peak = peak
            if peak > self._limit:
                raise BenchLogError(json_too_deep(self._limit))
        self.depth += 2 * brackets.count(b"\x01") - len(brackets)


def check_depth(data: bytes, limit: int = MAX_JSON_DEPTH) -> int:
    """The nesting depth of a complete piece of JSON; BenchLogError past ``limit``."""
    guard = DepthGuard(_Empty(), limit)
    guard._scan(data)
    return guard.peak


class _Empty:
    def read(self, size: int = -1, /) -> bytes:
        return b""


def json_too_deep(limit: int) -> Message:
    return Message(
        "json_too_deep",
        f"The JSON is nested more than {limit} levels deep; no benchmark tool writes that. "
        "The file was refused without being read further.",
        f"该 JSON 的嵌套超过 {limit} 层，任何基准测试工具都不会输出这样的文件；"
        "已拒绝，未继续读取。",
    )
