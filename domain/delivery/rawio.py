"""Byte streams as users save them: gzip-compressed, or UTF-16 (Windows PowerShell's ``>``).

:func:`plain_utf8` looks at the first bytes and returns a stream of plain UTF-8 bytes, streaming
(never the whole file in memory): gzip is decompressed on the fly, UTF-16 with a byte-order mark
is re-encoded chunk by chunk. Anything else is passed through unchanged.
"""

from __future__ import annotations

import codecs
import gzip
import io
from collections.abc import Callable
from typing import BinaryIO, cast

_GZIP = b"\x1f\x8b"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class _Prefixed:
    """Gives back the bytes already read from the head of a stream, then the rest of it."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def read(self, size: int = -1) -> bytes:
        if self._head:
            if size < 0:
                data, self._head = self._head + self._rest.read(), b""
                return data
            data, self._head = self._head[:size], self._head[size:]
            if len(data) < size:
                data += self._rest.read(size - len(data))
            return data
        return self._rest.read(size)


class _Utf16ToUtf8:
    def __init__(self, raw: _Prefixed) -> None:
        self._reader = codecs.getreader("utf-16")(cast(BinaryIO, raw), "replace")
        self._pending = b""

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            data = self._pending + self._reader.read().encode("utf-8")
            self._pending = b""
            return data
        while len(self._pending) < size:
            text = self._reader.read(size)
            if not text:
                break
            self._pending += text.encode("utf-8")
        data, self._pending = self._pending[:size], self._pending[size:]
        return data


class _Raw(io.RawIOBase):
    """A read function as a raw stream, so that buffered and text wrappers accept it."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self._read = read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def plain_utf8(stream: BinaryIO) -> BinaryIO:
    """``stream`` as plain UTF-8 bytes (see the module doc). Closing the result does not close
    ``stream``: the caller owns it."""
    head = stream.read(2)
    prefixed = _Prefixed(head, stream)
    source: Callable[[int], bytes] = prefixed.read
    if head == _GZIP:
        source = gzip.GzipFile(fileobj=cast(BinaryIO, prefixed), mode="rb").read
    elif head in _UTF16_BOMS:
        source = _Utf16ToUtf8(prefixed).read
    return cast(BinaryIO, io.BufferedReader(_Raw(source), buffer_size=1 << 16))
