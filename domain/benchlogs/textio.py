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
