"""Time helpers of the engine: calendar months in a time zone, interval sets, proration."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

Interval = tuple[float, float]  # epoch seconds, start inclusive, end exclusive


@dataclass(frozen=True)
class Month:
    """A calendar month in the contract's zone: its full span and the part judged (in term, up to
    ``now``)."""

    label: str
    full_start: float
    full_end: float
    start: float
    end: float
    term_start: float  # the part of the month inside the term (for the fee), even after now
    term_end: float


def months(term_start: float, term_end: float, until: float, tz: ZoneInfo) -> list[Month]:
    """Calendar months (in ``tz``) that overlap [term_start, min(term_end, until))."""
    out: list[Month] = []
    end = min(term_end, until)
    local = datetime.fromtimestamp(term_start, tz=UTC).astimezone(tz)
    cursor = datetime(local.year, local.month, 1, tzinfo=tz)
    while cursor.timestamp() < end:
        nxt = datetime(cursor.year + (cursor.month == 12), cursor.month % 12 + 1, 1, tzinfo=tz)
        full_start, full_end = cursor.timestamp(), nxt.timestamp()
        start, stop = max(full_start, term_start), min(full_end, end)
        if stop > start:
            out.append(
                Month(
                    label=f"{cursor.year:04d}-{cursor.month:02d}",
                    full_start=full_start,
                    full_end=full_end,
                    start=start,
                    end=stop,
                    term_start=max(full_start, term_start),
                    term_end=min(full_end, term_end),
                )
            )
        cursor = nxt
    return out


def month_of(moment: float, month_list: Sequence[Month]) -> Month | None:
    for m in month_list:
        if m.full_start <= moment < m.full_end:
            return m
    return None


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """Union of intervals, sorted and non-overlapping (empty ones dropped)."""
    out: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def overlap(start: float, end: float, merged: Sequence[Interval]) -> float:
    """Seconds of [start, end) covered by a merged interval set."""
    total = 0.0
    for a, b in merged:
        if b <= start:
            continue
        if a >= end:
            break
        total += min(b, end) - max(a, start)
    return total


def subtract(intervals: Sequence[Interval], cut: Sequence[Interval]) -> list[Interval]:
    """Merged ``intervals`` minus merged ``cut``."""
    out: list[Interval] = []
    for start, end in intervals:
        pos = start
        for a, b in cut:
            if b <= pos or a >= end:
                continue
            if a > pos:
                out.append((pos, a))
            pos = max(pos, b)
        if pos < end:
            out.append((pos, end))
    return out


def ts(moment: datetime) -> float:
    return moment.timestamp()


def utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def plus_days(seconds: float, days: int) -> datetime:
    return utc(seconds) + timedelta(days=days)


def local_text(seconds: float, tz: ZoneInfo) -> str:
    return utc(seconds).astimezone(tz).strftime("%Y-%m-%d %H:%M")
