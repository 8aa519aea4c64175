"""Monitoring data in, per-host series out: streaming, low-memory ingest with every repair said.

Two shapes come in:

- a saved Prometheus HTTP API ``query_range`` answer (``{"status":"success","data":{"resultType":
  "matrix","result":[{"metric":{...},"values":[[ts,"v"],...]},...]}}``), one answer or several
  (the pages of a long range: a JSON list of answers, or answers one after the other), pretty,
  minified or with CRLF line ends — read by :func:`parse_prometheus_range`;
- a plain CSV time series (``timestamp, host, device, metric, value``) — :func:`parse_series_csv`.

Both give an :class:`Ingest`: per ``(host, device, metric)`` the samples sorted by time, duplicates
(page boundaries) dropped, future samples dropped, hosts not in the contract set aside, and
bilingual notes saying each of those repairs with its count.

The JSON scanner never builds the document: see ``_promscan`` for how and why.
"""

from __future__ import annotations

import csv
import io
import math
from array import array
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import BinaryIO
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt

from domain.delivery import _promscan
from domain.delivery.rawio import plain_utf8
from domain.messages import Message

FloatArray = npt.NDArray[np.float64]
SeriesKey = tuple[str, str, str]  # (host, device, metric); device is "" when the series has none

#: Samples this far ahead of ``now`` are still accepted (clock skew between hosts); later ones are
#: "in the future" and dropped.
FUTURE_TOLERANCE_S = 60.0

#: Without a term to hold samples to, nothing before the Unix epoch is kept: monitoring time
#: stamps are seconds since 1970, so an earlier one is a unit or clock error (and a date that
#: far back cannot be placed on the hourly grid without building millions of empty windows).
EARLIEST_S = 0.0

#: Counters by Prometheus's naming convention (``*_total``): their drops are resets.
COUNTER_SUFFIX = "_total"


class IngestError(ValueError):
    """The file cannot be read as monitoring data at all (error answer, wrong shape)."""

    def __init__(self, messages: list[Message] | tuple[Message, ...]) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        super().__init__("; ".join(m.en for m in self.messages))


@dataclass(frozen=True, eq=False)
class Series:
    """One series' samples: seconds since the epoch (UTC) ascending and unique, and values."""

    ts: FloatArray
    values: FloatArray

    def __len__(self) -> int:
        return int(self.ts.shape[0])


@dataclass(frozen=True)
class IngestCounts:
    """What the ingest saw and what it repaired, in samples (``series`` in series)."""

    series: int = 0
    samples: int = 0
    duplicates: int = 0
    conflicting_duplicates: int = 0
    out_of_order: int = 0
    future: int = 0
    unknown_host_samples: int = 0
    unparseable: int = 0
    naive_timestamps: int = 0
    pages: int = 0
    outside_term: int = 0
    non_finite: int = 0
    counter_resets: int = 0


@dataclass(frozen=True, eq=False)
class Ingest:
    """Per-series samples plus what was repaired; ``unknown_hosts`` maps a host not in the contract
    to the number of its samples set aside (not kept)."""

    series: dict[SeriesKey, Series]
    counts: IngestCounts
    notes: tuple[Message, ...] = ()
    unknown_hosts: dict[str, int] = field(default_factory=dict)
    #: per (host, device): how many times a counter (``*_total``) went back (a restart); the
    #: increase over that step is the new value, as Prometheus's ``increase()`` counts it
    resets: dict[tuple[str, str], int] = field(default_factory=dict)

    def hosts(self) -> list[str]:
        return sorted({key[0] for key in self.series})

    def span(self) -> tuple[float, float] | None:
        """First and last sample time (epoch seconds), or ``None`` when empty."""
        firsts = [s.ts[0] for s in self.series.values() if len(s)]
        lasts = [s.ts[-1] for s in self.series.values() if len(s)]
        if not firsts:
            return None
        return float(min(firsts)), float(max(lasts))


# --- host names ---


class HostMatcher:
    """Maps a label value (``gpu01``, ``gpu01:9100``, ``gpu01.dc.example``) to a contract host.

    Matching is case-insensitive; a port is removed; a fully qualified name matches the contract's
    short name (and the other way round) unless the name is an IP address. ``hosts=None`` keeps
    every host under its own name.
    """

    def __init__(self, hosts: Collection[str] | None) -> None:
        self._all = hosts is None
        self._index: dict[str, str] = {}
        for host in hosts or ():
            self._index[host.lower()] = host
            if not _is_ip(host):
                self._index.setdefault(host.lower().split(".")[0], host)
        self._cache: dict[str, str | None] = {}

    def __call__(self, label: str) -> str | None:
        if label in self._cache:
            return self._cache[label]
        name = strip_port(label)
        found: str | None
        if self._all:
            found = name
        else:
            low = name.lower()
            found = self._index.get(low)
            if found is None and not _is_ip(name):
                found = self._index.get(low.split(".")[0])
        self._cache[label] = found
        return found


def strip_port(label: str) -> str:
    """``host:9100`` → ``host``; ``[::1]:9100`` → ``::1``; a bare IPv6 address stays as it is."""
    if label.startswith("["):
        return label[1:].split("]", 1)[0]
    if label.count(":") == 1:
        return label.rsplit(":", 1)[0]
    return label


def _is_ip(name: str) -> bool:
    if ":" in name:
        return True
    parts = name.split(".")
    return len(parts) == 4 and all(p.isdigit() for p in parts)


# --- accumulation and finishing ---


class _Accumulator:
    """Collects samples per series in compact ``array('d')`` buffers (8 bytes per number)."""

    def __init__(
        self,
        match: HostMatcher,
        not_before: datetime | None = None,
        not_after: datetime | None = None,
    ) -> None:
        self.match = match
        self.not_before = not_before
        self.not_after = not_after
        self.ts: dict[SeriesKey, array[float]] = {}
        self.values: dict[SeriesKey, array[float]] = {}
        self.unknown: dict[str, int] = {}
        self.unparseable = 0
        self.naive = 0
        self.pages = 0

    def key_for(self, host_label: str, device: str, metric: str) -> SeriesKey | None:
        host = self.match(host_label)
        if host is None:
            return None
        return (host, device, metric)

    def set_aside(self, host_label: str, count: int) -> None:
        name = strip_port(host_label)
        self.unknown[name] = self.unknown.get(name, 0) + count

    def extend(self, key: SeriesKey, ts: FloatArray, values: FloatArray) -> None:
        if key not in self.ts:
            self.ts[key] = array("d")
            self.values[key] = array("d")
        self.ts[key].frombytes(np.ascontiguousarray(ts, dtype=np.float64).tobytes())
        self.values[key].frombytes(np.ascontiguousarray(values, dtype=np.float64).tobytes())

    def append(self, key: SeriesKey, ts: float, value: float) -> None:
        if key not in self.ts:
            self.ts[key] = array("d")
            self.values[key] = array("d")
        self.ts[key].append(ts)
        self.values[key].append(value)

    def finish(self, now: datetime, extra_notes: list[Message]) -> Ingest:
        return _finish(self, now.timestamp(), extra_notes)


def _finish(acc: _Accumulator, now_s: float, extra_notes: list[Message]) -> Ingest:
    series: dict[SeriesKey, Series] = {}
    dup = conflict = disorder = future = total = outside = non_finite = 0
    resets: dict[tuple[str, str], int] = {}
    first_s = acc.not_before.timestamp() if acc.not_before is not None else EARLIEST_S
    last_s = acc.not_after.timestamp() if acc.not_after is not None else math.inf
    for key in list(acc.ts):
        ts = np.frombuffer(acc.ts.pop(key), dtype=np.float64)
        values = np.frombuffer(acc.values.pop(key), dtype=np.float64)
        # Before anything else: a time outside the term (or before 1970) is set aside, so no
        # date too far to place on the grid reaches the windows; a value that is no finite number
        # (NaN, ±Inf) says nothing about bytes sent or a host being up, so it is set aside too.
        inside = (ts >= first_s) & (ts <= last_s) & np.isfinite(ts)
        if not bool(inside.all()):
            early_or_late = ~inside & (ts <= now_s + FUTURE_TOLERANCE_S)
            outside += int(np.count_nonzero(early_or_late))
            future += int(np.count_nonzero(~inside & ~early_or_late))
            ts, values = ts[inside], values[inside]
        finite = np.isfinite(values)
        if not bool(finite.all()):
            non_finite += int(ts.size - np.count_nonzero(finite))
            ts, values = ts[finite], values[finite]
        if ts.size > 1 and bool(np.any(ts[1:] < ts[:-1])):
            disorder += int(np.count_nonzero(ts[1:] < ts[:-1]))
            order = np.argsort(ts, kind="stable")
            ts, values = ts[order], values[order]
        keep = ts <= now_s + FUTURE_TOLERANCE_S
        if not bool(keep.all()):
            future += int(ts.size - np.count_nonzero(keep))
            ts, values = ts[keep], values[keep]
        if ts.size > 1:
            same = ts[1:] == ts[:-1]
            if bool(same.any()):
                # The last sample of a run of equal times is kept: a later page re-read it.
                later_differs = same & ~_same_value(values[1:], values[:-1])
                conflict += int(np.count_nonzero(later_differs))
                dup += int(np.count_nonzero(same))
                last = np.append(~same, True)
                ts, values = ts[last], values[last]
        if key[2].endswith(COUNTER_SUFFIX) and values.size > 1:
            drops = int(np.count_nonzero(values[1:] < values[:-1]))
            if drops:
                resets[(key[0], key[1])] = resets.get((key[0], key[1]), 0) + drops
        total += int(ts.size)
        series[key] = Series(np.array(ts), np.array(values))
    counts = IngestCounts(
        series=len(series),
        samples=total,
        duplicates=dup,
        conflicting_duplicates=conflict,
        out_of_order=disorder,
        future=future,
        unknown_host_samples=sum(acc.unknown.values()),
        unparseable=acc.unparseable,
        naive_timestamps=acc.naive,
        pages=acc.pages,
        outside_term=outside,
        non_finite=non_finite,
        counter_resets=sum(resets.values()),
    )
    notes = extra_notes + ingest_notes(
        counts, acc.unknown, resets=resets, bounds=(acc.not_before, acc.not_after)
    )
    return Ingest(
        series=series,
        counts=counts,
        notes=tuple(notes),
        unknown_hosts=dict(acc.unknown),
        resets=resets,
    )


def _same_value(a: FloatArray, b: FloatArray) -> npt.NDArray[np.bool_]:
    same: npt.NDArray[np.bool_] = (a == b) | (np.isnan(a) & np.isnan(b))
    return same


def _stamp(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M %z}" if moment is not None else ""


def ingest_notes(
    counts: IngestCounts,
    unknown: dict[str, int],
    *,
    resets: dict[tuple[str, str], int] | None = None,
    bounds: tuple[datetime | None, datetime | None] = (None, None),
) -> list[Message]:
    """One bilingual sentence per repair the ingest made (none when the data was clean)."""
    notes: list[Message] = []
    if counts.outside_term:
        first, last = bounds
        if first is None and last is None:
            en_span, zh_span = (
                "before 1970 (a clock or unit error)",
                "早于 1970 年（时钟或单位错误）",
            )
        else:
            en_span = f"outside the contract's term ({_stamp(first)} to {_stamp(last)})"
            zh_span = f"不在合同期内（{_stamp(first)} 至 {_stamp(last)}）"
        notes.append(
            Message(
                "outside_term_set_aside",
                f"{counts.outside_term} sample(s) dated {en_span} were set aside, not kept.",
                f"有 {counts.outside_term} 个样本的时间{zh_span}，未计入。",
            )
        )
    if counts.non_finite:
        notes.append(
            Message(
                "non_finite_set_aside",
                f"{counts.non_finite} sample(s) had no finite value (NaN or ±Inf) and were set "
                f"aside, not kept.",
                f"有 {counts.non_finite} 个样本的数值不是有限数（NaN 或 ±Inf），未计入。",
            )
        )
    if resets:
        shown = sorted(resets.items())
        text = ", ".join(f"{h}{' ' + d if d else ''}: {n}" for (h, d), n in shown[:10])
        text += " …" if len(shown) > 10 else ""
        total = sum(resets.values())
        notes.append(
            Message(
                "counter_resets_handled",
                f"{total} counter reset(s) (a restart: the counter dropped and started again "
                f"from zero) were handled as Prometheus's increase() does, the increase over "
                f"that step being the new value — per host and device: {text}.",
                f"处理了 {total} 次计数器重置（重启：计数器回落后从零重新计数），"
                f"按 Prometheus 的 increase() 规则计算，该步的增量取新值——按主机和设备：{text}。",
            )
        )
    if counts.duplicates:
        notes.append(
            Message(
                "duplicates_dropped",
                f"{counts.duplicates} duplicate sample(s) (same series, same time, e.g. where "
                f"two pages meet) were dropped; {counts.conflicting_duplicates} of them had a "
                f"different value, and the later one was kept.",
                f"丢弃了 {counts.duplicates} 个重复样本（同一序列、同一时间，"
                f"例如两页数据的衔接处），"
                f"其中 {counts.conflicting_duplicates} 个数值不同，保留了较后读到的值。",
            )
        )
    if counts.out_of_order:
        notes.append(
            Message(
                "out_of_order_sorted",
                f"{counts.out_of_order} sample(s) were out of time order and were sorted.",
                f"有 {counts.out_of_order} 个样本时间顺序错乱，已按时间排序。",
            )
        )
    if counts.future:
        notes.append(
            Message(
                "future_dropped",
                f"{counts.future} sample(s) dated in the future were dropped.",
                f"丢弃了 {counts.future} 个时间晚于当前时间的样本。",
            )
        )
    if unknown:
        names = ", ".join(sorted(unknown)[:10]) + (" …" if len(unknown) > 10 else "")
        notes.append(
            Message(
                "unknown_hosts_set_aside",
                f"{counts.unknown_host_samples} sample(s) from {len(unknown)} host(s) not in the "
                f"contract were set aside: {names}.",
                f"有 {len(unknown)} 台不在合同中的主机的 {counts.unknown_host_samples} 个样本"
                f"未计入：{names}。",
            )
        )
    if counts.unparseable:
        notes.append(
            Message(
                "unparseable_counted",
                f"{counts.unparseable} row(s) or sample(s) could not be read and were skipped.",
                f"有 {counts.unparseable} 行或样本无法解析，已跳过。",
            )
        )
    return notes


# --- Prometheus query_range answers ---------------------------------------------------------------


def series_labels(labels: dict[str, str], default_metric: str) -> tuple[str, str, str]:
    """(host label, device, metric) of a Prometheus series from its labels.

    host: ``host``, else ``instance``, else ``nodename``/``hostname``; device: ``device``, else
    ``gpu`` (DCGM exporters) as ``gpu<N>``; metric: ``__name__``, else ``default_metric``.
    """
    host = (
        labels.get("host")
        or labels.get("instance")
        or labels.get("nodename")
        or labels.get("hostname")
        or ""
    )
    device = labels.get("device") or (f"gpu{labels['gpu']}" if labels.get("gpu") else "")
    metric = labels.get("__name__") or default_metric
    return host, device, metric


def parse_prometheus_range(
    stream: BinaryIO,
    *,
    hosts: Collection[str] | None,
    now: datetime,
    metric: str = "",
    not_before: datetime | None = None,
    not_after: datetime | None = None,
) -> Ingest:
    """Read a saved ``query_range`` answer (or several pages of one) without building the document.

    gzip-compressed and UTF-16 files are read too (``rawio``).
    ``hosts``: the contract's hosts (``None`` keeps every host). ``metric`` names the series whose
    answer dropped ``__name__`` (a ``rate(...)`` query, for instance). Raises :class:`IngestError`
    with bilingual messages for an error answer, an instant (vector) answer or a file that is not a
    ``query_range`` answer at all. Samples before ``not_before`` or after ``not_after`` (the
    contract's term) are set aside and said; without them, samples before 1970 are.
    """
    acc = _Accumulator(HostMatcher(hosts), not_before, not_after)
    notes = _promscan.scan(plain_utf8(stream), acc, default_metric=metric)
    return acc.finish(now, notes)


# --- CSV ------------------------------------------------------------------------------------------

_COLUMN_ALIASES = {
    "timestamp": ("timestamp", "time", "ts", "datetime", "date"),
    "host": ("host", "instance", "hostname", "server", "node"),
    "device": ("device", "interface", "iface", "nic"),
    "metric": ("metric", "__name__", "name", "series"),
    "value": ("value", "val", "v"),
}


def _header_map(header: list[str]) -> dict[str, int]:
    low = [h.strip().lower().lstrip("\ufeff") for h in header]
    found: dict[str, int] = {}
    for column, aliases in _COLUMN_ALIASES.items():
        for i, name in enumerate(low):
            if name in aliases:
                found[column] = i
                break
    missing = [c for c in ("timestamp", "host", "metric", "value") if c not in found]
    if missing:
        raise IngestError(
            [
                Message(
                    "csv_columns_missing",
                    f"The CSV header must name the columns timestamp, host, device, metric and "
                    f"value "
                    f"(missing: {', '.join(missing)}).",
                    f"CSV 表头须包含 timestamp、host、device、metric、value 列（缺少："
                    f"{', '.join(missing)}）。",
                )
            ]
        )
    return found


def parse_timestamp(text: str, default_tz: tzinfo) -> tuple[float, bool]:
    """Epoch seconds of a CSV timestamp and whether it had no offset (then read in ``default_tz``).

    Accepts epoch seconds or milliseconds (a number above 10^11 is taken as milliseconds) and ISO
    8601 with ``T`` or a space, with or without ``Z``/``±hh:mm``. Raises ``ValueError``.
    """
    text = text.strip()
    if ":" not in text and text.count("-") <= 1:  # a number (ISO dates have "-" and ":")
        number = float(text)
        if not math.isfinite(number):
            raise ValueError(text)
        return (number / 1000.0 if abs(number) > 1e11 else number), False
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=default_tz).timestamp(), True
    return moment.timestamp(), False


def parse_series_csv(
    stream: BinaryIO,
    *,
    hosts: Collection[str] | None,
    default_tz: str,
    now: datetime,
    not_before: datetime | None = None,
    not_after: datetime | None = None,
) -> Ingest:
    """Read a CSV time series (``timestamp, host, device, metric, value`` with a header line).

    Timestamps without an offset are read in ``default_tz`` and a note says how many. Rows that
    cannot be read are counted, not fatal; a file without the needed columns raises
    :class:`IngestError`.
    """
    text = io.TextIOWrapper(
        plain_utf8(stream),
        encoding="utf-8-sig",
        errors="replace",
        newline="",
    )
    try:
        acc = _Accumulator(HostMatcher(hosts), not_before, not_after)
        return _read_csv(csv.reader(text), acc=acc, default_tz=default_tz, now=now)
    finally:
        text.detach()  # the caller owns the stream


def _buffers(
    acc: _Accumulator, raw_key: tuple[str, str, str]
) -> tuple[array[float], array[float]] | None:
    """The accumulator's arrays of a CSV series (``None``: a host not in the contract)."""
    key = acc.key_for(raw_key[0].strip(), raw_key[1].strip(), raw_key[2].strip())
    if key is None:
        return None
    if key not in acc.ts:
        acc.ts[key] = array("d")
        acc.values[key] = array("d")
    return acc.ts[key], acc.values[key]


def _read_csv(
    rows: Iterator[list[str]], *, acc: _Accumulator, default_tz: str, now: datetime
) -> Ingest:
    zone = ZoneInfo(default_tz)
    header = next(rows, None)
    if header is None:
        raise IngestError([Message("csv_empty", "The CSV file is empty.", "CSV 文件为空。")])
    cols = _header_map(header)
    it, ih, im, iv = cols["timestamp"], cols["host"], cols["metric"], cols["value"]
    idev = cols.get("device")
    need = max(cols.values())
    # Rows of one time stamp and one series repeat their strings: both lookups are cached.
    stamps: dict[str, tuple[float, bool]] = {}
    keys: dict[tuple[str, str, str], tuple[array[float], array[float]] | None] = {}
    for row in rows:
        if len(row) <= need:
            if row and any(cell.strip() for cell in row):
                acc.unparseable += 1
            continue
        stamp = stamps.get(row[it])
        try:
            if stamp is None:
                if len(stamps) > 4096:
                    stamps.clear()
                stamp = stamps[row[it]] = parse_timestamp(row[it], zone)
            value = float(row[iv])
        except (ValueError, OverflowError):
            acc.unparseable += 1
            continue
        raw_key = (row[ih], row[idev] if idev is not None else "", row[im])
        if raw_key not in keys:
            keys[raw_key] = _buffers(acc, raw_key)
        buffers = keys[raw_key]
        if buffers is None:
            acc.set_aside(raw_key[0].strip(), 1)
            continue
        acc.naive += stamp[1]
        buffers[0].append(stamp[0])
        buffers[1].append(value)
    notes: list[Message] = []
    if acc.naive:
        notes.append(
            Message(
                "naive_timestamps_local",
                f"{acc.naive} timestamp(s) carried no time zone and were read as {default_tz} "
                f"time.",
                f"有 {acc.naive} 个时间戳未带时区，已按 {default_tz} 时间读取。",
            )
        )
    return acc.finish(now, notes)
