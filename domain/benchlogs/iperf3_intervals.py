"""Reduce iperf3 JSON interval objects to a few floats each, as they stream past.

A 24-hour ``-P 8`` run has 86,400 intervals of nine objects each; only the sums and the
per-stream rates are kept, in compact arrays, so memory grows with 8 bytes per figure rather
than with the size of the JSON.
"""

from __future__ import annotations

import math
from array import array
from itertools import repeat
from operator import itemgetter, truediv
from typing import Any

from domain.benchlogs.result import Series


class BadValue(ValueError):
    """A JSON value of the wrong type where iperf3 always writes a number or an object."""


def num(value: object) -> float:
    """A JSON number as float; booleans and strings are damage, not numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadValue(repr(value)[:40])
    result = float(value)
    if not math.isfinite(result):
        raise BadValue(repr(value)[:40])
    return result


_NUMBER_TYPES = frozenset({float, int})
_SOCKET = itemgetter("socket")
_RATE = itemgetter("bits_per_second")
# Counts beyond this are damage, not measurements, and would not fit a C long anyway.
_MAX_COUNT = 2**53


def whole(value: object) -> int:
    """A JSON number that must be a whole, non-negative count (retransmits, packets, ids)."""
    number = num(value)
    if number < 0 or number > _MAX_COUNT or number != int(number):
        raise BadValue(repr(value)[:40])
    return int(number)


def obj(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadValue(type(value).__name__)
    return value


def seq(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise BadValue(type(value).__name__)
    return value


class IntervalAccumulator:
    """Collects the interval series of one iperf3 JSON document (client or embedded server)."""

    def __init__(self) -> None:
        self.start_s = array("d")
        self.end_s = array("d")
        self.total_gbps = array("d")
        self.forward_gbps = array("d")
        self.reverse_gbps = array("d")
        self.bytes = array("d")
        self.retransmit_counts = array("q")
        self.packet_counts = array("q")
        self.retransmits = 0
        self.saw_retransmits = False
        self.saw_bidir = False
        self.omitted = 0
        self.zero_length = 0
        self.damaged = 0
        self.repeated = 0
        self._streams: dict[int, array[float]] = {}
        # The socket layout of the last interval, for the fast path (see _add_fast).
        self._layout: tuple[int, ...] = ()
        self._columns: list[array[float]] = []
        # Fast-path rates, row after row in layout order, until _flush() deals them out.
        self._pending = array("d")

    @property
    def count(self) -> int:
        return len(self.total_gbps)

    def add(self, interval: object) -> None:
        """Take one ``intervals[]`` element; damaged elements are counted, never raised."""
        try:
            if self._add_fast(interval):
                return
        except (KeyError, TypeError):
            pass  # the validated path below decides what is wrong with it
        try:
            self._add(obj(interval))
        except (BadValue, KeyError):
            self.damaged += 1

    def _add_fast(self, interval: Any) -> bool:
        """The common case, in a day-long log 86,400 times: a plain interval with the same
        sockets as the last one and numbers of the exact expected types. The per-stream work
        runs in C (``map``); nothing is stored unless every check passes, and anything else
        returns False for the validated path."""
        total, streams = interval["sum"], interval["streams"]
        if type(total) is not dict or type(streams) is not list or "sum_bidir_reverse" in interval:
            return False
        # Sockets must equal the layout's ints (never 0 or 1, so no bool can pose as one).
        if tuple(map(_SOCKET, streams)) != self._layout or total.get("omitted") is True:
            return False
        rates = list(map(_RATE, streams))
        start, end, bps, moved = (
            total["start"],
            total["end"],
            total["bits_per_second"],
            total["bytes"],
        )
        seconds = total.get("seconds", 1.0)
        if not {type(start), type(end), type(bps), type(moved), type(seconds)} <= _NUMBER_TYPES:
            return False
        if not set(map(type, rates)) <= _NUMBER_TYPES:
            return False
        checksum = start + end + bps + moved + seconds + sum(rates)
        # `x - x` is nan for inf and nan; end <= start and seconds <= 0 are zero-length.
        if checksum - checksum != 0 or end <= start or seconds <= 0:
            return False
        if self.end_s and end == self.end_s[-1]:
            return False  # a repeated interval: the validated path counts it
        retransmits, packets = total.get("retransmits", 0), total.get("packets", 0)
        if type(retransmits) is not int or type(packets) is not int:
            return False
        if not (0 <= retransmits <= _MAX_COUNT and 0 <= packets <= _MAX_COUNT):
            return False
        self._store_fast(total, (start, end, bps / 1e9, moved), rates)
        return True

    def _store_fast(
        self, total: dict[str, Any], figures: tuple[float, float, float, float], rates: list[float]
    ) -> None:
        start, end, forward, moved = figures
        if "retransmits" in total:
            self.retransmits += total["retransmits"]
            self.retransmit_counts.append(total["retransmits"])
            self.saw_retransmits = True
        if "packets" in total:
            self.packet_counts.append(total["packets"])
        self.bytes.append(moved)
        self.start_s.append(start)
        self.end_s.append(end)
        self.forward_gbps.append(forward)
        self.reverse_gbps.append(0.0)
        self.total_gbps.append(forward)
        self._pending.extend(rates)  # bit/s; series() converts

    def _add(self, interval: dict[str, Any]) -> None:
        total = obj(interval["sum"])
        if total.get("omitted") is True:
            self.omitted += 1
            return
        start, end = num(total["start"]), num(total["end"])
        seconds = num(total.get("seconds", end - start))
        if seconds <= 0 or end <= start:
            self.zero_length += 1
            return
        if self.count and (self.start_s[-1], self.end_s[-1]) == (start, end):
            # A client whose server is stopped writes its last interval a second time.
            self.repeated += 1
            return
        forward = num(total["bits_per_second"]) / 1e9
        reverse_sum = obj(interval["sum_bidir_reverse"]) if "sum_bidir_reverse" in interval else {}
        reverse = num(reverse_sum["bits_per_second"]) / 1e9 if reverse_sum else 0.0
        streams = [
            (whole(obj(s)["socket"]), num(obj(s)["bits_per_second"]))
            for s in seq(interval["streams"])
        ]
        moved = num(total["bytes"]) + (num(reverse_sum["bytes"]) if reverse_sum else 0.0)
        self._counts(total, reverse_sum)
        self.saw_bidir = self.saw_bidir or bool(reverse_sum)
        self.bytes.append(moved)
        self._append(start, end, forward, reverse, streams)

    def _counts(self, total: dict[str, Any], reverse: dict[str, Any]) -> None:
        if "retransmits" in total:
            retransmits = whole(total["retransmits"]) + whole(reverse.get("retransmits", 0))
            self.retransmits += retransmits
            self.retransmit_counts.append(retransmits)
            self.saw_retransmits = True
        if "packets" in total:
            packets = whole(total["packets"]) + whole(reverse.get("packets", 0))
            self.packet_counts.append(packets)

    def _flush(self) -> None:
        """Deal the fast path's interleaved rates out to their stream columns."""
        width = len(self._columns)
        if width and self._pending:
            for offset, column in enumerate(self._columns):
                column.extend(self._pending[offset::width])
        self._pending = array("d")

    def _append(
        self, start: float, end: float, forward: float, reverse: float, streams: list[Any]
    ) -> None:
        self._flush()
        index = len(self.total_gbps)
        self.start_s.append(start)
        self.end_s.append(end)
        self.forward_gbps.append(forward)
        self.reverse_gbps.append(reverse)
        self.total_gbps.append(forward + reverse)
        for socket, bps in streams:
            column = self._streams.get(socket)
            if column is None:
                # A stream first seen late gets NaN for the intervals before it existed.
                column = self._streams[socket] = array("d", [math.nan]) * index
            column.append(bps)
        for column in self._streams.values():
            if len(column) <= index:
                column.append(math.nan)
        sockets = tuple(socket for socket, _ in streams)
        distinct = len(set(sockets)) == len(sockets) == len(self._streams)
        if distinct and not {0, 1} & set(sockets):
            self._layout, self._columns = sockets, [self._streams[s] for s in sockets]
        else:
            self._layout, self._columns = (), []

    def per_interval(self, counts: array[int]) -> tuple[int, ...]:
        """A per-interval count, or nothing when some intervals lacked it."""
        return tuple(counts) if len(counts) == self.count else ()

    def series(self) -> tuple[Series, ...]:
        self._flush()
        result = []
        if self.saw_bidir:
            result.append(Series("forward", tuple(self.forward_gbps)))
            result.append(Series("reverse", tuple(self.reverse_gbps)))
        for socket in sorted(self._streams):
            gbps = tuple(map(truediv, self._streams[socket], repeat(1e9)))
            result.append(Series(f"stream {socket}", gbps))
        return tuple(result)
