"""Safe reading of ZIP uploads holding many benchmark logs.

Headers are checked before anything is read (paths, symlinks, member count, declared sizes and
ratios), and every byte actually inflated is counted again while reading, because a ZIP's
declared sizes are whatever its author wrote.
"""

from __future__ import annotations

import io
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

from domain.benchlogs import catalogue_checks as msg
from domain.benchlogs.errors import BenchLogError

DEFAULT_MAX_MEMBERS = 1000
DEFAULT_MAX_TOTAL_BYTES = 2 * 1024**3
DEFAULT_MAX_RATIO = 200.0
# Tiny members legitimately compress far better than 200:1 (a run of spaces); the ratio check
# starts once a member has produced this much.
RATIO_FLOOR_BYTES = 1024 * 1024
_SPOOL_BYTES = 16 * 1024 * 1024


class _Budget:
    """Bytes inflated so far across the whole archive."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def spend(self, count: int) -> None:
        self.used += count
        if self.used > self.limit:
            raise BenchLogError(msg.archive_too_large(self.limit))


class _CountingFile:
    """The archive file, counting the bytes zipfile really reads from it.

    A member's declared compressed size can lie; the bytes consumed while inflating cannot.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self.consumed = 0

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.consumed += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def seekable(self) -> bool:
        return True


class _MemberReader(io.RawIOBase):
    """Reads one member, enforcing the archive budget and the member's real ratio."""

    def __init__(
        self,
        inner: IO[bytes],
        info: zipfile.ZipInfo,
        budget: _Budget,
        max_ratio: float,
        source: _CountingFile,
    ) -> None:
        super().__init__()
        self._inner = inner
        self._info = info
        self._budget = budget
        self._max_ratio = max_ratio
        self._source = source
        self._start = source.consumed
        self._produced = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        view = memoryview(buffer).cast("B")
        try:
            data = self._inner.read(len(view))
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise BenchLogError(msg.archive_member_damaged(self._info.filename)) from exc
        self._produced += len(data)
        self._budget.spend(len(data))
        compressed = max(self._source.consumed - self._start, 1)
        if self._produced > RATIO_FLOOR_BYTES and self._produced / compressed > self._max_ratio:
            raise BenchLogError(msg.archive_ratio(self._info.filename, self._max_ratio))
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


def iter_zip_members(
    stream: BinaryIO,
    *,
    max_members: int = DEFAULT_MAX_MEMBERS,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    max_ratio: float = DEFAULT_MAX_RATIO,
) -> Iterator[tuple[str, BinaryIO]]:
    """Yield ``(name, stream)`` for each regular file of a ZIP, refusing unsafe archives.

    Each member stream is valid until the next one is yielded.
    """
    archive, source, spool = _open(stream)
    with archive, spool or io.BytesIO():
        members = _checked_members(archive, max_members, max_total_bytes, max_ratio)
        budget = _Budget(max_total_bytes)
        for info in members:
            raw = _MemberReader(_open_member(archive, info), info, budget, max_ratio, source)
            with io.BufferedReader(raw) as member:
                yield info.filename, member


def _open_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> IO[bytes]:
    try:
        return archive.open(info)
    except (zipfile.BadZipFile, NotImplementedError, OSError, ValueError) as exc:
        raise BenchLogError(msg.archive_member_damaged(info.filename)) from exc


def _open(stream: BinaryIO) -> tuple[zipfile.ZipFile, _CountingFile, IO[bytes] | None]:
    source: IO[bytes] = stream
    spool: IO[bytes] | None = None
    if not _seekable(stream):
        # zipfile needs to seek to the central directory at the end.
        spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115 - caller closes
        while chunk := stream.read(1024 * 1024):
            spool.write(chunk)
        spool.seek(0)
        source = spool
    counted = _CountingFile(source)
    try:
        return zipfile.ZipFile(counted), counted, spool
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        if spool is not None:
            spool.close()
        raise BenchLogError(msg.archive_invalid()) from exc


def _seekable(stream: BinaryIO) -> bool:
    try:
        return bool(stream.seekable())
    except (AttributeError, OSError, ValueError):
        return False


def _checked_members(
    archive: zipfile.ZipFile, max_members: int, max_total_bytes: int, max_ratio: float
) -> list[zipfile.ZipInfo]:
    files = [info for info in archive.infolist() if not info.is_dir()]
    if len(files) > max_members:
        raise BenchLogError(msg.archive_too_many_members(max_members))
    for info in files:
        _check_member(info, max_ratio)
    if sum(info.file_size for info in files) > max_total_bytes:
        raise BenchLogError(msg.archive_too_large(max_total_bytes))
    return files


def _check_member(info: zipfile.ZipInfo, max_ratio: float) -> None:
    if _unsafe_path(info.filename):
        raise BenchLogError(msg.archive_unsafe_path(info.filename))
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise BenchLogError(msg.archive_symlink(info.filename))
    if info.flag_bits & 0x1:
        raise BenchLogError(msg.archive_encrypted(info.filename))
    declared_ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > RATIO_FLOOR_BYTES and declared_ratio > max_ratio:
        raise BenchLogError(msg.archive_ratio(info.filename, max_ratio))


def _unsafe_path(name: str) -> bool:
    path = name.replace("\\", "/")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return True
    return any(part == ".." for part in path.split("/")) or "\x00" in path
