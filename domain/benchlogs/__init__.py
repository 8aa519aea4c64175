"""Benchmark-log parsing: iperf3 (JSON and text), perftest ib_*_bw / ib_*_lat, nccl-tests.

Pure Python: nothing here imports django, rest_framework or celery.

    result = parse_path("run.json")          # or parse_stream(upload, filename)
    result.throughput_gbps, result.interval_gbps, result.warnings, result.error

Every problem a user should see is a bilingual ``Message``; files that cannot be parsed raise
``BenchLogError`` carrying one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import BinaryIO

import ijson

from domain.benchlogs import catalogue
from domain.benchlogs import detect as _detect
from domain.benchlogs.archive import iter_zip_members
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.iperf3_json import parse_iperf3_json, parse_iperf3_json_stream
from domain.benchlogs.iperf3_text import parse_iperf3_text_all, parse_iperf3_text_lines
from domain.benchlogs.nccl_tests import parse_nccl_all, parse_nccl_lines
from domain.benchlogs.perftest_build import parse_perftest_all, parse_perftest_lines
from domain.benchlogs.result import BenchResult, LatencyStats, NcclRow, NcclTiming, Series, SizeRow
from domain.benchlogs.serialise import error_to_json, result_to_json
from domain.benchlogs.textio import Utf8Reader, encoding_of, peek, text_lines

detect = _detect.detect

__all__ = [
    "BenchLogError",
    "BenchResult",
    "LatencyStats",
    "NcclRow",
    "NcclTiming",
    "Series",
    "SizeRow",
    "detect",
    "error_to_json",
    "iter_zip_members",
    "parse_all",
    "parse_path",
    "parse_stream",
    "result_to_json",
]

_Lines = Iterable[str]


def _text(parser: Callable[[_Lines], BenchResult]) -> Callable[[BinaryIO, str, str], BenchResult]:
    return lambda stream, encoding, _name: parser(text_lines(stream, encoding))


_PARSERS: dict[str, Callable[[BinaryIO, str, str], BenchResult]] = {
    _detect.IPERF3_JSON: lambda stream, encoding, _name: parse_iperf3_json(
        stream if encoding == "utf-8" else Utf8Reader(stream, encoding)
    ),
    _detect.IPERF3_JSON_STREAM: _text(parse_iperf3_json_stream),
    _detect.IPERF3_TEXT: _text(parse_iperf3_text_lines),
    _detect.PERFTEST_BW: _text(parse_perftest_lines),
    _detect.PERFTEST_LAT: _text(parse_perftest_lines),
    _detect.NCCL_TESTS: lambda s, enc, name: parse_nccl_lines(text_lines(s, enc), name),
}


def parse_stream(stream: BinaryIO, filename: str = "") -> BenchResult:
    """Parse one log from a binary stream: detect the tool from its head, then stream it.

    Files holding several tests (an iperf3 server log, perftest server and client) give the
    first test (perftest: the client's report) with a warning; ``parse_all`` gives every one.
    """
    head, stream = peek(stream)
    kind = detect(head, filename)
    with _guard():
        return _PARSERS[kind](stream, encoding_of(head), filename)


def parse_all(stream: BinaryIO, filename: str = "") -> tuple[BenchResult, ...]:
    """Every test in the log, in file order."""
    head, stream = peek(stream)
    kind = detect(head, filename)
    encoding = encoding_of(head)
    with _guard():
        if kind == _detect.IPERF3_TEXT:
            return parse_iperf3_text_all(text_lines(stream, encoding))
        if kind in (_detect.PERFTEST_BW, _detect.PERFTEST_LAT):
            return parse_perftest_all(text_lines(stream, encoding))
        if kind == _detect.NCCL_TESTS:
            return parse_nccl_all(text_lines(stream, encoding), filename)
        return (_PARSERS[kind](stream, encoding, filename),)


def parse_path(path: str | os.PathLike[str]) -> BenchResult:
    with open(path, "rb") as stream:
        return parse_stream(stream, os.path.basename(os.fspath(path)))


@contextmanager
def _guard() -> Iterator[None]:
    """Last line of defence: an unexpected parser failure becomes a BenchLogError.

    Its code, ``parse_failed``, means a parser bug; the property tests assert it never occurs.
    """
    try:
        yield
    except BenchLogError:
        raise
    except (
        ValueError,
        KeyError,
        IndexError,
        TypeError,
        OverflowError,
        ijson.JSONError,
        RecursionError,
    ) as exc:
        raise BenchLogError(catalogue.parse_failed()) from exc
