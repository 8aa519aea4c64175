"""A month of measured public-traffic samples from a CSV file (DOMAIN.md §6, seed 004 §7).

Carriers bill burstable bandwidth at the 95th percentile of five-minute samples, and per-GB plans
by the month's volume. A team that has last month's samples (from the carrier's portal or its own
monitoring) uploads them; the bill is then computed from the real month, not a modelled profile.

Accepted layouts, read as a stream of bytes (never the whole file at once):

* `timestamp,Mbit/s` rows, with or without a header; the header names the unit (`Mbit/s`, `Mbps`,
  `Gbit/s`, `Gbps`, `kbit/s`, `bit/s`, byte rates such as `MB/s`), default Mbit/s;
* a single column of values (samples taken to be five minutes apart);
* comma, semicolon or tab separated; with semicolons a decimal comma (`12,5`) is read as `12.5`;
* UTF-8 (with or without BOM), UTF-16 with BOM, or GB18030 (Chinese Excel).

The parser refuses, with a bilingual message, anything that would make the bill wrong: binary
data, non-numbers, negative values, rates that can only be a wrong unit, duplicate timestamps,
more than a billing month. Gaps are allowed but named in a warning.
"""

from __future__ import annotations

import codecs
import math
import re
import statistics
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from domain import billing
from domain.messages import Message

FIVE_MINUTES_S = billing.FIVE_MINUTES_S
MAX_DAYS = 31  # the longest billing month
MAX_ROWS = 50_000  # a 31-day month of one-minute samples is 44,640
MAX_LINE_CHARS = 4_096
# No public link a serving team rents carries more than 1 Tbit/s: a larger sample is a unit mistake.
MAX_PLAUSIBLE_MBPS = 1_000_000.0
_SNIFF_BYTES = 64 * 1024

# unit token (lower case, spaces removed) -> factor to Mbit/s
_RATE_UNITS: dict[str, tuple[str, float]] = {
    "bps": ("bit/s", 1e-6), "bit/s": ("bit/s", 1e-6), "b/s": ("bit/s", 1e-6),
    "kbps": ("kbit/s", 1e-3), "kbit/s": ("kbit/s", 1e-3), "kb/s": ("kbit/s", 1e-3),
    "mbps": ("Mbit/s", 1.0), "mbit/s": ("Mbit/s", 1.0), "mb/s": ("Mbit/s", 1.0),
    "mbits": ("Mbit/s", 1.0), "m": ("Mbit/s", 1.0), "兆": ("Mbit/s", 1.0),
    "gbps": ("Gbit/s", 1e3), "gbit/s": ("Gbit/s", 1e3), "gb/s": ("Gbit/s", 1e3),
    "g": ("Gbit/s", 1e3),
}  # fmt: skip
# byte rates, told apart by the capital B ("MB/s", "MByte/s")
_BYTE_UNITS: dict[str, tuple[str, float]] = {
    "b/s": ("B/s", 8e-6), "kb/s": ("kB/s", 8e-3), "mb/s": ("MB/s", 8.0), "gb/s": ("GB/s", 8e3),
    "byte/s": ("B/s", 8e-6), "kbyte/s": ("kB/s", 8e-3), "mbyte/s": ("MB/s", 8.0),
    "gbyte/s": ("GB/s", 8e3), "bytes/s": ("B/s", 8e-6),
}  # fmt: skip
_VOLUME_UNITS = {"b", "kb", "mb", "gb", "tb", "bytes", "byte", "mib", "gib", "字节"}
_TIME_WORDS = ("time", "date", "timestamp", "ts", "datetime", "时间", "日期", "采样时间")
_ISO = re.compile(
    r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?$"
)


class TrafficSamplesError(Exception):
    """The file cannot be billed; `message` says what to fix, `rows` lists file line numbers."""

    def __init__(self, message: Message, rows: tuple[int, ...] = ()) -> None:
        super().__init__(message.en)
        self.message = message
        self.rows = rows


def _fail(code: str, en: str, zh: str, rows: tuple[int, ...] = ()) -> TrafficSamplesError:
    return TrafficSamplesError(Message(code, en, zh), rows)


@dataclass(frozen=True, slots=True)
class TrafficSamples:
    """A month of samples in Mbit/s, in time order, `interval_s` apart."""

    samples_mbps: tuple[float, ...]
    interval_s: float
    unit: str
    has_timestamps: bool
    first_at: datetime | None = None
    last_at: datetime | None = None
    missing_samples: int = 0
    warnings: tuple[Message, ...] = ()

    def profile(self) -> billing.TrafficProfile:
        return billing.TrafficProfile.from_samples(self.samples_mbps, self.interval_s)

    @property
    def count(self) -> int:
        return len(self.samples_mbps)

    @property
    def peak_mbps(self) -> float:
        return max(self.samples_mbps)

    @property
    def mean_mbps(self) -> float:
        return math.fsum(self.samples_mbps) / len(self.samples_mbps)

    @property
    def percentile95_mbps(self) -> float:
        return self.profile().percentile95_mbps()

    @property
    def monthly_gb(self) -> float:
        return self.profile().monthly_gb

    @property
    def days_covered(self) -> float:
        return (self.count + self.missing_samples) * self.interval_s / 86_400


# ---------------------------------------------------------------------------------------------
# Bytes to lines


def _encoding(head: bytes) -> str:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if b"\x00" in head or _control_share(head) > 0.01:
        raise _not_text()
    for encoding in ("utf-8", "gb18030"):
        try:
            codecs.getincrementaldecoder(encoding)().decode(head, final=False)
        except UnicodeDecodeError:
            continue
        return encoding
    raise _not_text()


def _control_share(head: bytes) -> float:
    if not head:
        return 0.0
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 13))
    return controls / len(head)


def _not_text() -> TrafficSamplesError:
    return _fail(
        "traffic_not_text",
        "This is not a text CSV file (it looks binary). Export the samples as CSV.",
        "这不是文本 CSV 文件（看起来是二进制文件）。请将采样数据导出为 CSV。",
    )


def decode_lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """Text lines of a byte stream, decoded incrementally; a line is at most MAX_LINE_CHARS."""
    it = iter(chunks)
    head = b""
    for chunk in it:
        head += chunk
        if len(head) >= _SNIFF_BYTES:
            break
    decoder = codecs.getincrementaldecoder(_encoding(head[:_SNIFF_BYTES]))()
    pending = ""
    for chunk in _chain(head, it):
        try:
            text = decoder.decode(chunk, final=chunk == b"")
        except UnicodeDecodeError as exc:
            raise _not_text() from exc
        if "\x00" in text:
            raise _not_text()
        pending += text
        *lines, pending = re.split(r"\r\n|\r|\n", pending)
        yield from lines
        if len(pending) > MAX_LINE_CHARS:
            raise _line_too_long()
    if pending:
        yield pending


def _chain(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield head
    yield from rest
    yield b""


def _line_too_long() -> TrafficSamplesError:
    return _fail(
        "traffic_line_too_long",
        f"A line is longer than {MAX_LINE_CHARS} characters: this is not a CSV of samples.",
        f"有一行超过 {MAX_LINE_CHARS} 个字符：这不是采样数据 CSV。",
    )


# ---------------------------------------------------------------------------------------------
# Header, units and cells


def _delimiter(line: str) -> str:
    for d in ("\t", ";", ","):
        if d in line:
            return d
    return ","


def _split(line: str, delimiter: str) -> list[str]:
    return [cell.strip().strip('"').strip() for cell in line.split(delimiter)]


def _number(cell: str, delimiter: str) -> float | None:
    text = cell.replace(" ", "").replace("\u00a0", "")
    if delimiter != "," and re.fullmatch(r"[+-]?\d+,\d+", text):
        text = text.replace(",", ".")
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
        return None
    return float(text)


def _unit_of(cell: str) -> tuple[str, float] | None | str:
    """(label, factor) for a rate unit; "volume" for a volume unit; None when no unit is named."""
    found = re.search(r"[(（\[]\s*([^)）\]]+?)\s*[)）\]]\s*$", cell)
    token = found.group(1) if found else cell.split()[-1] if cell.split() else ""
    raw = token.replace(" ", "")
    low = raw.lower()
    if re.search(r"[KMGT]?B(yte)?s?/s$", raw) or re.search(r"[KMGT]?Bps$", raw):
        key = low if low.endswith("/s") else low[:-2] + "b/s"
        if key in _BYTE_UNITS:
            return _BYTE_UNITS[key]
    if low in _RATE_UNITS:
        return _RATE_UNITS[low]
    if low in _VOLUME_UNITS:
        return "volume"
    return None


def _header(cells: list[str]) -> tuple[int, tuple[str, float]] | None:
    """The value column and its unit when the row is a header; None when it holds data."""
    if len(cells) > 1 and _number(cells[-1], ",") is not None:
        return None
    if len(cells) == 1 and _number(cells[0], ",") is not None:
        return None
    value_col = len(cells) - 1
    unit = _unit_of(cells[value_col])
    if unit == "volume":
        raise _fail(
            "traffic_volume_unit",
            f"The column {cells[value_col]!r} is a traffic volume, not a rate. Upload rates per "
            "sample in Mbit/s (or Gbit/s), as the carrier's 95th-percentile graph shows them.",
            f"列 {cells[value_col]!r} 是流量总量而不是速率。请上传每个采样点的速率"
            "（Mbit/s 或 Gbit/s），即运营商 95 计费图上的数值。",
        )
    if unit is None:
        raise _fail(
            "traffic_unknown_unit",
            f"Unknown unit in the header {','.join(cells)!r}: name the column Mbit/s, Gbit/s, "
            "kbit/s or MB/s, e.g. timestamp,Mbit/s.",
            f"表头 {','.join(cells)!r} 中的单位无法识别：请使用 Mbit/s、Gbit/s、kbit/s 或 MB/s，"
            "例如 timestamp,Mbit/s。",
        )
    assert not isinstance(unit, str)
    return value_col, unit


# ---------------------------------------------------------------------------------------------
# Timestamps


def parse_timestamp(cell: str) -> datetime | None:
    """ISO-like dates (`2026-11-01 00:05[:00][+08:00]`, `2026/11/01 00:05`) or Unix seconds /
    milliseconds; aware times are converted to UTC, naive ones are kept naive."""
    text = cell.strip()
    if re.fullmatch(r"\d{9,13}(\.\d+)?", text):
        seconds = float(text) / (1000 if len(text.split(".")[0]) == 13 else 1)
        return datetime.fromtimestamp(seconds, UTC)
    m = _ISO.match(text)
    if m is None:
        return None
    y, mo, d, h, mi, s, tz = m.groups()
    try:
        value = datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0))
    except ValueError:
        return None
    if tz:
        if tz == "Z":
            return value.replace(tzinfo=UTC)
        sign = 1 if tz[0] == "+" else -1
        hours, minutes = int(tz[1:3]), int(tz[-2:])
        offset = timedelta(hours=hours, minutes=minutes) * sign
        return (value - offset).replace(tzinfo=UTC)
    return value


def _list_rows(rows: list[int]) -> tuple[str, str]:
    shown = ", ".join(str(r) for r in rows[:10])
    more = len(rows) - 10
    return (
        shown + (f" and {more} more" if more > 0 else ""),
        shown + (f" 等共 {len(rows)} 行" if more > 0 else ""),
    )


# ---------------------------------------------------------------------------------------------
# The parser


@dataclass
class _Rows:
    values: list[float]
    times: list[datetime | None]
    lines: list[int]
    bad: list[int]
    negative: list[int]
    bad_time: list[int]


def parse_bytes(chunks: Iterable[bytes]) -> TrafficSamples:
    """Samples of a CSV given as a stream of byte chunks (see the module docstring)."""
    return parse_lines(decode_lines(chunks))


def parse_lines(lines: Iterable[str]) -> TrafficSamples:
    """Samples of a CSV given as text lines; raises TrafficSamplesError with what to fix."""
    rows = _Rows([], [], [], [], [], [])
    delimiter: str | None = None
    value_col, unit, has_time, header_seen = -1, ("Mbit/s", 1.0), False, False
    for number, raw in enumerate(lines, start=1):
        line = raw.lstrip("\ufeff").strip()
        if not line or line.startswith("#"):
            continue
        if delimiter is None:
            delimiter = _delimiter(line)
        cells = _split(line, delimiter)
        if value_col < 0:
            head = _header(cells)
            if head is not None:
                value_col, unit = head
                has_time, header_seen = value_col > 0, True
                continue
            if len(cells) > 2:
                raise _too_many_columns(cells)
            value_col, has_time = len(cells) - 1, len(cells) == 2
        _read_row(rows, cells, number, value_col, unit[1], has_time, delimiter)
        if len(rows.lines) + len(rows.bad) > MAX_ROWS:
            raise _too_many_rows()
    return _finish(rows, unit[0], has_time, header_seen)


def _read_row(
    rows: _Rows, cells: list[str], number: int, col: int, factor: float, has_time: bool, d: str
) -> None:
    value = _number(cells[col], d) if col < len(cells) else None
    if value is None or not math.isfinite(value):
        rows.bad.append(number)
        return
    if value < 0:
        rows.negative.append(number)
        return
    when = parse_timestamp(cells[0]) if has_time else None
    if has_time and when is None:
        rows.bad_time.append(number)
        return
    rows.values.append(value * factor)
    rows.times.append(when)
    rows.lines.append(number)


def _too_many_columns(cells: list[str]) -> TrafficSamplesError:
    return _fail(
        "traffic_columns",
        f"The first row has {len(cells)} columns and no header: give timestamp and Mbit/s only, "
        "or add a header such as timestamp,Mbit/s.",
        f"第一行有 {len(cells)} 列且没有表头：请只保留时间和 Mbit/s 两列，"
        "或添加表头，例如 timestamp,Mbit/s。",
    )


def _too_many_rows() -> TrafficSamplesError:
    return _fail(
        "traffic_too_many_rows",
        f"More than {MAX_ROWS:,} rows: upload one billing month (8,640 five-minute samples).",
        f"超过 {MAX_ROWS:,} 行：请上传一个计费月的数据（8,640 个 5 分钟采样）。",
    )


def _finish(rows: _Rows, unit: str, has_time: bool, header_seen: bool) -> TrafficSamples:
    _raise_bad_rows(rows)
    if not rows.values:
        raise _fail(
            "traffic_no_samples",
            "The file has no samples.",
            "文件中没有采样数据。",
        )
    peak = max(rows.values)
    if peak > MAX_PLAUSIBLE_MBPS:
        line = rows.lines[rows.values.index(peak)]
        raise _fail(
            "traffic_implausible_rate",
            f"Row {line} is {peak:,.0f} Mbit/s, more than 1 Tbit/s: the values are probably in "
            "bit/s or kbit/s. Name the unit in the header, e.g. timestamp,bit/s.",
            f"第 {line} 行为 {peak:,.0f} Mbit/s，超过 1 Tbit/s：数值可能是 bit/s 或 kbit/s。"
            "请在表头注明单位，例如 timestamp,bit/s。",
            (line,),
        )
    warnings: list[Message] = []
    if not header_seen:
        warnings.append(
            Message(
                "traffic_unit_assumed",
                "No header: the values are read as Mbit/s.",
                "没有表头：数值按 Mbit/s 读取。",
            )
        )
    if not has_time:
        return _untimed(rows, warnings)
    return _timed(rows, unit, warnings)


def _raise_bad_rows(rows: _Rows) -> None:
    if rows.bad:
        en, zh = _list_rows(rows.bad)
        raise _fail(
            "traffic_not_a_number",
            f"Rows without a number in the bandwidth column: {en}.",
            f"以下行的带宽列不是数字：第 {zh} 行。",
            tuple(rows.bad),
        )
    if rows.negative:
        en, zh = _list_rows(rows.negative)
        raise _fail(
            "traffic_negative",
            f"Bandwidth cannot be negative: rows {en}.",
            f"带宽不能为负：第 {zh} 行。",
            tuple(rows.negative),
        )
    if rows.bad_time:
        en, zh = _list_rows(rows.bad_time)
        raise _fail(
            "traffic_bad_timestamp",
            f"Unreadable timestamps (use 2026-11-01 00:05 or Unix seconds): rows {en}.",
            f"无法识别的时间（请使用 2026-11-01 00:05 或 Unix 秒）：第 {zh} 行。",
            tuple(rows.bad_time),
        )


def _untimed(rows: _Rows, warnings: list[Message]) -> TrafficSamples:
    limit = MAX_DAYS * 288
    if len(rows.values) > limit:
        raise _fail(
            "traffic_more_than_a_month",
            f"{len(rows.values):,} samples without timestamps are more than a month of "
            f"five-minute samples ({limit:,} in 31 days): upload one billing month.",
            f"{len(rows.values):,} 个无时间戳的采样超过一个月的 5 分钟采样数"
            f"（31 天为 {limit:,} 个）：请上传一个计费月。",
        )
    return TrafficSamples(tuple(rows.values), FIVE_MINUTES_S, "Mbit/s", False,
                          warnings=tuple(warnings))  # fmt: skip


def _timed(rows: _Rows, unit: str, warnings: list[Message]) -> TrafficSamples:
    times = [t for t in rows.times if t is not None]
    aware = {t.tzinfo is not None for t in times if t is not None}
    if len(aware) > 1:
        raise _fail(
            "traffic_mixed_time_zones",
            "Some timestamps have a time zone and some do not: use one form throughout.",
            "部分时间带时区、部分不带：请统一格式。",
        )
    order = sorted(range(len(times)), key=lambda i: (times[i], rows.lines[i]))
    stamps = [times[i] for i in order]
    values = [rows.values[i] for i in order]
    _check_duplicates(stamps, [rows.lines[i] for i in order])
    seconds = [(b - a).total_seconds() for a, b in zip(stamps, stamps[1:], strict=False)]
    interval = float(statistics.median(seconds)) if seconds else FIVE_MINUTES_S
    if not 10 <= interval <= 3_600:
        raise _fail(
            "traffic_interval",
            f"Samples are {interval:g} s apart; give one sample every 10 s to 1 h (five minutes "
            "for 95th-percentile billing).",
            f"采样间隔为 {interval:g} 秒；请提供 10 秒到 1 小时一个的采样（95 计费为 5 分钟）。",
        )
    first, last = stamps[0], stamps[-1]
    span_days = ((last - first).total_seconds() + interval) / 86_400
    if span_days > MAX_DAYS + 1e-9:
        raise _fail(
            "traffic_more_than_a_month",
            f"The samples span {span_days:.1f} days, from {first:%Y-%m-%d} to {last:%Y-%m-%d}: "
            "upload one billing month (at most 31 days).",
            f"采样跨度为 {span_days:.1f} 天（{first:%Y-%m-%d} 至 {last:%Y-%m-%d}）："
            "请上传一个计费月（最多 31 天）。",
        )
    missing = sum(max(0, round(s / interval) - 1) for s in seconds)
    if missing:
        warnings.append(_gap_warning(missing, interval, seconds, stamps))
    return TrafficSamples(
        tuple(values), interval, unit, True, first, last, missing, tuple(warnings)
    )


def _check_duplicates(stamps: list[datetime], lines: list[int]) -> None:
    dup = [lines[i] for i in range(1, len(stamps)) if stamps[i] == stamps[i - 1]]
    if dup:
        en, zh = _list_rows(dup)
        raise _fail(
            "traffic_duplicate_timestamps",
            f"Timestamps appear twice (rows {en}): keep one sample per time, or the month is "
            "counted double.",
            f"时间重复（第 {zh} 行）：每个时间只保留一个采样，否则会重复计费。",
            tuple(dup),
        )


def _gap_warning(
    missing: int, interval: float, seconds: list[float], stamps: list[datetime]
) -> Message:
    widest = max(range(len(seconds)), key=lambda i: seconds[i])
    start = stamps[widest]
    hours = seconds[widest] / 3600
    return Message(
        "traffic_gaps",
        f"{missing:,} samples are missing (the longest gap: {hours:.1f} h after "
        f"{start:%Y-%m-%d %H:%M}). The 95th percentile is taken over the samples present and "
        "the per-GB volume counts only them.",
        f"缺少 {missing:,} 个采样（最长间隔：{start:%Y-%m-%d %H:%M} 之后 {hours:.1f} 小时）。"
        "95 计费按现有采样计算，按流量计费只计入现有采样。",
    )
