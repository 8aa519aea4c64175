"""ZIP uploads: safe members come out; traversal, symlinks, too many members and bombs are
refused, including bombs whose headers lie about their compressed size."""

from __future__ import annotations

import io
import random
import stat
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from domain.benchlogs import BenchLogError, iter_zip_members, parse_stream


def _zip(members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _read_all(data: bytes, **limits: int | float) -> dict[str, bytes]:
    return {name: member.read() for name, member in iter_zip_members(io.BytesIO(data), **limits)}  # type: ignore[arg-type]


def _refusal(data: bytes, **limits: int | float) -> str:
    with pytest.raises(BenchLogError) as caught:
        _read_all(data, **limits)
    assert caught.value.message.zh
    return caught.value.code


def test_members_are_yielded_and_parse(corpus: Callable[[str], Path]) -> None:
    log = corpus("iperf3-json/local_3.12_tcp_single.json").read_bytes()
    data = _zip({"pair1/run.json": log, "pair2/run.json": log, "notes/": b""})
    results = [
        parse_stream(member, name).throughput_gbps
        for name, member in iter_zip_members(io.BytesIO(data))
    ]
    assert results == [pytest.approx(16.411045593598639)] * 2


def test_a_non_seekable_upload_is_spooled(corpus: Callable[[str], Path]) -> None:
    data = _zip({"a.txt": b"hello"})

    class OneWay(io.RawIOBase):
        def __init__(self) -> None:
            self._inner = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            chunk = self._inner.read(len(buffer))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    members = {name: m.read() for name, m in iter_zip_members(io.BufferedReader(OneWay()))}
    assert members == {"a.txt": b"hello"}


@pytest.mark.parametrize("name", ["../evil.txt", "logs/../../evil.txt", "/etc/passwd", "C:\\x.txt"])
def test_traversal_and_absolute_paths_are_refused(name: str) -> None:
    assert _refusal(_zip({"ok.txt": b"1", name: b"2"})) == "archive_unsafe_path"


def test_a_symlink_member_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        link = zipfile.ZipInfo("link.txt")
        link.create_system = 3  # Unix
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    assert _refusal(buffer.getvalue()) == "archive_symlink"


def test_too_many_members_are_refused() -> None:
    data = _zip({f"{n}.txt": b"x" for n in range(4)})
    assert _refusal(data, max_members=3) == "archive_too_many_members"
    assert len(_read_all(data, max_members=4)) == 4


def test_a_declared_total_over_the_limit_is_refused() -> None:
    data = _zip({"a.txt": b"a" * 3000, "b.txt": b"b" * 3000})
    assert _refusal(data, max_total_bytes=5000) == "archive_too_large"


def test_a_declared_compression_bomb_is_refused() -> None:
    data = _zip({"bomb.txt": bytes(8 * 1024 * 1024)})
    assert _refusal(data, max_ratio=100) == "archive_ratio"


def _lie_about_compressed_size(data: bytes, claimed: int) -> bytes:
    """Rewrite the first central-directory entry to claim ``claimed`` compressed bytes."""
    at = data.index(b"PK\x01\x02")
    return data[: at + 20] + struct.pack("<I", claimed) + data[at + 24 :]


def test_a_bomb_that_lies_in_its_header_is_caught_while_inflating() -> None:
    size = 32 * 1024 * 1024
    filler = random.Random(3).randbytes(2 * 1024 * 1024)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bomb.txt", bytes(size), zipfile.ZIP_DEFLATED)
        archive.writestr("filler.bin", filler, zipfile.ZIP_STORED)
    lying = _lie_about_compressed_size(buffer.getvalue(), size - 1024)
    info = zipfile.ZipFile(io.BytesIO(lying)).infolist()[0]
    assert info.file_size / info.compress_size < 2  # the header looks harmless
    assert _refusal(lying, max_ratio=50) == "archive_ratio"


def test_the_running_total_counts_bytes_actually_inflated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from domain.benchlogs import archive

    data = _zip({f"{n}.bin": bytes(range(256)) * 4096 for n in range(3)})
    monkeypatch.setattr(archive, "_checked_members", lambda zf, *_: zf.infolist())
    assert _refusal(data, max_total_bytes=2 * 1024 * 1024) == "archive_too_large"


def test_a_damaged_member_is_reported() -> None:
    data = bytearray(_zip({"a.txt": b"some text " * 1000}))
    start = data.index(b"a.txt") + 5
    data[start + 10 : start + 40] = bytes(30)
    assert _refusal(bytes(data)) == "archive_member_damaged"


def test_garbage_is_not_an_archive() -> None:
    assert _refusal(b"this is not a zip file") == "archive_invalid"


def test_stored_small_members_are_fine() -> None:
    data = _zip({"a.txt": b" " * 1000}, compression=zipfile.ZIP_STORED)
    assert _read_all(data) == {"a.txt": b" " * 1000}
