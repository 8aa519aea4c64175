"""Byte-stream helpers: peek at the head, then read the rest as bounded text lines.

Logs arrive as uploads of any size and any origin, so lines are read incrementally and each is
capped: a multi-gigabyte file with no newline must not become one multi-gigabyte string.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO, Protocol

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

HEAD_BYTES = 64 * 1024
CHUNK_BYTES = 64 * 1024
MAX_LINE_CHARS = 16 * 1024

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class ByteSource(Protocol):
    """Anything with ``read(size) -> bytes``: what ijson needs from a stream."""

    def read(self, size: int = -1, /) -> bytes: ...


class _Rewound(io.RawIOBase):
    """Replays bytes already read from a non-seekable stream, then continues with the stream."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        super().__init__()
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        view = memoryview(buffer).cast("B")
        if self._head.nbytes:
            count = min(len(view), self._head.nbytes)
            view[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        data = self._rest.read(len(view))
        view[: len(data)] = data
        return len(data)


def peek(stream: BinaryIO, size: int = HEAD_BYTES) -> tuple[bytes, BinaryIO]:
    """Return the first ``size`` bytes and a stream that starts again at the beginning."""
    seekable = _seekable(stream)
    start = stream.tell() if seekable else 0
    head = _read_exactly(stream, size)
    if seekable:
        stream.seek(start)
        return head, stream
    return head, io.BufferedReader(_Rewound(head, stream), CHUNK_BYTES)


def _seekable(stream: BinaryIO) -> bool:
    try:
        return bool(stream.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    parts: list[bytes] = []
    remaining = size
    while remaining > 0:
        data = stream.read(remaining)
        if not data:
            break
        parts.append(data)
        remaining -= len(data)
    return b"".join(parts)


def encoding_of(head: bytes) -> str:
    """Windows PowerShell redirection writes UTF-16 with a BOM; everything else is UTF-8."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    return "utf-8"


def looks_binary(head: bytes) -> bool:
    """True when the head is not plausibly text (NUL bytes, or mostly undecodable/control)."""
    encoding = encoding_of(head)
    if encoding == "utf-8" and b"\x00" in head:
        return True
    text = head.decode(encoding, errors="replace")
    if not text:
        return False
    odd = sum(1 for ch in text if ch == "\ufffd" or (ch < " " and ch not in "\t\r\n\f\x1b"))
    return odd > max(8, len(text) // 20)


# Plain-text lines tolerated in front of a JSON document (see json_offset).
_MAX_LEADING_LINES = 20
_MAX_LEADING_CHARS = 1000


def json_offset(text: str) -> int:
    """Where a JSON document starts after a few leading lines of plain text, else 0.

    ``iperf3 -V -J > f 2>&1`` writes "warning: Verbose output (-v) may interfere with JSON
    output (-J)" and "Control connection MSS …" before the ``{``. Such lines are skipped when
    the document itself follows: a line that starts with ``{`` after at most a few short lines,
    none of which starts like JSON or like an iperf3 table row (``[``).
    """
    offset = 0
    for count in range(_MAX_LEADING_LINES + 1):
        end = text.find("\n", offset, offset + _MAX_LEADING_CHARS)
        line = text[offset : len(text) if end < 0 else end + 1]
        stripped = line.lstrip()
        if stripped.startswith("{"):
            return offset + len(line) - len(stripped) if count else 0
        if end < 0 or count == _MAX_LEADING_LINES or stripped.startswith(("[", "}", "]", '"')):
            return 0
        offset = end + 1
    return 0


def skip_leading_text(stream: ByteSource) -> ByteSource:
    """The UTF-8 byte stream from the start of its JSON document (see json_offset)."""
    seekable = getattr(stream, "seekable", None)
    if seekable is not None and seekable():
        origin = stream.tell()  # type: ignore[attr-defined]
        head = stream.read(HEAD_BYTES)
        # Latin-1 maps each byte to one character, so the offset found is a byte count.
        stream.seek(origin + json_offset(head.decode("latin-1")))  # type: ignore[attr-defined]
        return stream
    head = _read_exactly(stream, HEAD_BYTES)  # type: ignore[arg-type]
    return _Prefixed(head[json_offset(head.decode("latin-1")) :], stream)


class _Prefixed:
    """A read-only stream of ``prefix`` followed by the rest of ``stream``."""

    def __init__(self, prefix: bytes, stream: ByteSource) -> None:
        self._prefix = prefix
        self._stream = stream

    def read(self, size: int = -1, /) -> bytes:
        if size == 0:
            return b""
        if self._prefix:
            if size < 0:
                data, self._prefix = self._prefix + self._stream.read(), b""
                return data
            data, self._prefix = self._prefix[:size], self._prefix[size:]
            return data
        return self._stream.read(size)


def text_lines(stream: BinaryIO, encoding: str = "utf-8") -> Iterator[str]:
    """Yield decoded lines without their line ends; over-long lines are cut at MAX_LINE_CHARS."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    pending = ""
    skipping = False
    while True:
        chunk = stream.read(CHUNK_BYTES)
        pending += decoder.decode(chunk, final=not chunk)
        # A trailing CR may be the first half of CRLF, so it waits for the next chunk.
        cut = len(pending) - 1 if chunk and pending.endswith("\r") else len(pending)
        lines = pending[:cut].splitlines(keepends=True)
        pending = pending[cut:]
        if chunk and lines and not lines[-1].endswith(("\n", "\r")):
            pending = lines.pop() + pending
        for line in lines:
            if not skipping:
                yield line.rstrip("\r\n")[:MAX_LINE_CHARS]
            skipping = False
        if len(pending) > MAX_LINE_CHARS and not skipping:
            yield pending[:MAX_LINE_CHARS]
            pending, skipping = "", True
        elif skipping:
            pending = ""
        if not chunk:
            break
    if pending and not skipping:
        yield pending[:MAX_LINE_CHARS]


class Utf8Reader:
    """Re-encodes a UTF-16 or BOM-prefixed UTF-8 byte stream as plain UTF-8.

    yajl, under ijson, reads UTF-8 only, and Windows PowerShell saves ``iperf3 -J > out.json``
    as UTF-16 with a BOM.
    """

    def __init__(self, raw: ByteSource, encoding: str) -> None:
        self._raw = raw
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        while True:
            chunk = self._raw.read(size if size > 0 else CHUNK_BYTES)
            text = self._decoder.decode(chunk, final=not chunk)
            if text or not chunk:
                return text.encode("utf-8")
