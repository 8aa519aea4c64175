"""Streaming parser for iperf3 ``-J`` output.

One pass of ijson's C ``items`` over ``intervals.item`` does the heavy work: building each
interval as a small dict in C is much cheaper than handling ~260 parse events per interval in
Python. The few top-level members around the intervals (``start``, ``end``, ``error``,
``server_output_*``) are recovered from the bytes the tee reader saw before the first interval
and after the last one, so the document is read once and never held whole.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any

import ijson
from ijson.common import ObjectBuilder

from domain.benchlogs.depth import DepthGuard
from domain.benchlogs.iperf3_build import JsonParts, build_result
from domain.benchlogs.iperf3_intervals import IntervalAccumulator
from domain.benchlogs.iperf3_json_fast import parse_iperf3_json_fast
from domain.benchlogs.result import BenchResult
from domain.benchlogs.textio import ByteSource, skip_leading_text

BUF_SIZE = 64 * 1024
_SPILL_BYTES = 8 * 1024 * 1024

TOP_LEVEL_KEYS = frozenset(
    {"start", "end", "error", "server_output_json", "server_output_text", "title", "extra_data"}
)
# After the intervals array, cJSON writes `],` and the next top-level key; inside an interval
# the only keys that follow a closing bracket are "sum" and "sum_bidir_reverse".
_AFTER_INTERVALS = re.compile(rb'\]\s*,\s*"([A-Za-z_]{1,40})"\s*:')


class _TeeReader:
    """Passes reads through while keeping the head (up to the first interval) and the tail."""

    def __init__(self, raw: ByteSource) -> None:
        self._raw = raw
        self.head: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=_SPILL_BYTES)  # noqa: SIM115
        self._head_open = True
        self._recent: tuple[bytes, ...] = ()
        self._tail: list[bytes] = []
        self._tail_size = 0
        self._tail_file: IO[bytes] | None = None
        self._marked = False

    def mark(self) -> None:
        """An interval was just yielded: it ended in the chunk read last."""
        self._marked = True

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        data = self._raw.read(size)
        self._settle_mark()
        if self._head_open:
            self.head.write(data)
        else:
            self._keep(data)
        if data:
            self._recent = (*self._recent[-1:], data)
        return data

    def _settle_mark(self) -> None:
        if not self._marked:
            return
        self._marked = False
        self._head_open = False
        # Everything up to the chunk before the latest interval's end is intervals: drop it.
        if self._tail_file is not None:
            self._tail_file.close()
            self._tail_file = None
        self._tail = list(self._recent)
        self._tail_size = sum(len(chunk) for chunk in self._tail)

    def _keep(self, data: bytes) -> None:
        if self._tail_file is not None:
            self._tail_file.write(data)
            return
        self._tail.append(data)
        self._tail_size += len(data)
        if self._tail_size > _SPILL_BYTES:
            # A large embedded server_output_json follows the intervals: spill it to disk.
            self._tail_file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
            for chunk in self._tail:
                self._tail_file.write(chunk)
            self._tail = []

    def close(self) -> None:
        self.head.close()
        if self._tail_file is not None:
            self._tail_file.close()

    def tail(self) -> IO[bytes] | None:
        """The bytes from just before the last interval's end to EOF; None if none was seen."""
        self._settle_mark()
        if self._head_open:
            return None
        if self._tail_file is None:
            self._tail_file = tempfile.SpooledTemporaryFile(max_size=_SPILL_BYTES)  # noqa: SIM115
            for chunk in self._tail:
                self._tail_file.write(chunk)
            self._tail = []
        self._tail_file.seek(0)
        return self._tail_file


class _Prefixed:
    """A read-only stream of ``prefix`` followed by the rest of ``stream``."""

    def __init__(self, prefix: bytes, stream: IO[bytes]) -> None:
        self._prefix = prefix
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""
        if self._prefix:
            data, self._prefix = self._prefix, b""
            return data
        return self._stream.read(size)


def parse_iperf3_json(stream: ByteSource, *, buf_size: int = BUF_SIZE) -> BenchResult:
    fast = parse_iperf3_json_fast(stream)
    if fast is not None:
        return fast
    # Plain-text lines in front of the document (``-V -J``) are not JSON: start after them.
    stream = skip_leading_text(stream)
    # The streaming path holds the dotted prefix of every open container: bound the nesting
    # on the bytes before ijson sees them (depth.py).
    tee = _TeeReader(DepthGuard(stream))
    acc = IntervalAccumulator()
    server_acc = IntervalAccumulator()
    damage: str | None = None
    try:
        try:
            for interval in ijson.items(tee, "intervals.item", use_float=True, buf_size=buf_size):
                acc.add(interval)
                tee.mark()
        except ijson.JSONError as exc:
            damage = _describe(exc)
        members = _members_around_intervals(tee, server_acc, buf_size)
    finally:
        tee.close()
    parts = JsonParts(members=members, intervals=acc, server_intervals=server_acc)
    return build_result(parts, damage=damage)


def _describe(exc: Exception) -> str:
    """yajl's message, as text: some ijson versions hand it over as bytes."""
    detail = exc.args[0] if exc.args else ""
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", errors="replace")
    return str(detail) or "parse error"


def _members_around_intervals(
    tee: _TeeReader, server_acc: IntervalAccumulator, buf_size: int
) -> dict[str, Any]:
    tail = tee.tail()
    tee.head.seek(0)
    # With intervals seen, whatever follows them is read from the tail, not twice.
    members = collect_members(tee.head, server_acc, buf_size, stop_at_intervals=tail is not None)
    if tail is None:
        return members
    window = tail.read(3 * buf_size + 65536)
    for match in _AFTER_INTERVALS.finditer(window):
        if match.group(1).decode() in TOP_LEVEL_KEYS:
            tail.seek(match.start(1) - 1)
            members.update(collect_members(_Prefixed(b"{", tail), server_acc, buf_size))
            break
    return members


def collect_members(
    source: Any,
    server_acc: IntervalAccumulator,
    buf_size: int = BUF_SIZE,
    *,
    stop_at_intervals: bool = False,
) -> dict[str, Any]:
    """Build the complete top-level members of a (possibly cut) iperf3 document, skipping its
    intervals; embedded server intervals go to ``server_acc`` one at a time."""
    members: dict[str, Any] = {}
    key: str | None = None
    builder: ObjectBuilder | None = None
    server = _ServerIntervals(server_acc)
    try:
        for prefix, event, value in _events(source, buf_size):
            if prefix == "":
                if builder is not None and key is not None:
                    members[key] = builder.value
                key, builder = (value, None) if event == "map_key" else (None, None)
                if stop_at_intervals and key == "intervals":
                    break
                continue
            top, _, rest = prefix.partition(".")
            if top == "intervals" or top != key:
                continue
            if top == "server_output_json" and rest.startswith("intervals"):
                server.feed(rest, event, value)
                continue
            if builder is None:
                builder = ObjectBuilder()
            builder.event(event, value)
    except ijson.JSONError:
        pass  # a cut or damaged region: the members completed before it are kept
    return members


def _events(source: Any, buf_size: int) -> Iterator[tuple[str, str, Any]]:
    yield from ijson.parse(source, use_float=True, buf_size=buf_size)


class _ServerIntervals:
    """Feeds ``server_output_json.intervals[]`` to an accumulator one object at a time."""

    def __init__(self, acc: IntervalAccumulator) -> None:
        self._acc = acc
        self._builder: ObjectBuilder | None = None

    def feed(self, rest: str, event: str, value: Any) -> None:
        if rest == "intervals.item" and event == "start_map":
            self._builder = ObjectBuilder()
        if self._builder is None:
            return
        self._builder.event(event, value)
        if rest == "intervals.item" and event == "end_map":
            self._acc.add(self._builder.value)
            self._builder = None


def parse_iperf3_json_stream(lines: Iterable[str]) -> BenchResult:
    """``--json-stream`` output: one ``{"event": …, "data": …}`` object per line."""
    acc = IntervalAccumulator()
    members: dict[str, Any] = {}
    damage: str | None = None
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            event, data = record["event"], record["data"]
        except (ValueError, KeyError, TypeError, RecursionError):
            # A broken line is usually the last one, cut mid-write.
            damage = damage or "premature EOF: unreadable json-stream line"
            continue
        if event == "interval":
            acc.add(data)
        elif isinstance(event, str) and event in TOP_LEVEL_KEYS:
            members[event] = data
    return build_result(JsonParts(members=members, intervals=acc), damage=damage)
