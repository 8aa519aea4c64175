"""Reader for perftest output (ib_write_bw, ib_read_lat, …): split a log into reports.

A file may hold a server and a client report, one after the other or interleaved line by line
(FORMATS.md §2.5). Each report keeps its header fields, its table header and its rows; picking
the report that counts and converting units is perftest_build's job.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

TITLE = re.compile(
    r"^(?P<op>RDMA_Write|RDMA_Read|Send|Atomic(?: \w+)?)\s+(?P<extra>.*?)\b"
    r"(?P<kind>BW|Latency) Test$"
)
_DASHES = re.compile(r"^-{20,}$")
# Open MPI's --tag-output prefix, when a script starts perftest through mpirun.
_MPI_TAG = re.compile(r"^\[\d+,\d+\]<std\w+>:")
_PAIR = re.compile(r"(?P<key>[A-Za-z][\w.*/\-]*(?: [\w.*/\-]+)*)\s*:\s*(?P<val>[^\s|]+)")
# Column names are one word or one of perftest's two-word names, each with an optional [unit].
_COLUMN = re.compile(
    r"(?:BW|MsgRate|99%|99\.9%|tps)\s+(?:peak|average|percentile|Port\d+)(?:\[[^\]]*\])?"
    r"|[^\s\[\]]+(?:\[[^\]]*\])?"
)
_BRACKET = re.compile(r"^(?P<name>.*?)\[(?P<unit>[^\]]*)\]$")
_GLUE_2 = re.compile(r"\d+\.\d{2}")
_GLUE_6 = re.compile(r"\d+\.\d{6}")
_FAILURE = re.compile(
    r"(Couldn't connect|Unable to init the socket|Failed to|Couldn't get|No IB devices|"
    r"Unable to open|Couldn't allocate|Error:?\s)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Column:
    name: str
    unit: str | None


@dataclass
class Report:
    title: str
    op: str
    kind: str
    extra: str
    server_banner: bool = False
    peak_warning: bool = False
    header: dict[str, str] = field(default_factory=dict)
    columns: tuple[Column, ...] = ()
    rows: dict[int, tuple[float, ...]] = field(default_factory=dict)
    closed: bool = False
    interleaved: bool = False
    duplicates: int = 0
    skipped: int = 0
    cpu_warning: bool = False

    @property
    def is_server(self) -> bool:
        # Both sides' lines merged into one report: it is not the server's alone.
        if self.interleaved:
            return False
        # Otherwise the banner decides: a bidirectional (-b) server prints "TX depth" as well.
        if self.server_banner:
            return True
        return "RX depth" in self.header and "TX depth" not in self.header


@dataclass
class PerftestLog:
    reports: list[Report] = field(default_factory=list)
    failure: str | None = None


class _Reader:
    def __init__(self) -> None:
        self.log = PerftestLog()
        self._banner = False
        self._peak_warning = False

    @property
    def _report(self) -> Report | None:
        return self.log.reports[-1] if self.log.reports else None

    def feed(self, raw: str) -> None:
        line = _MPI_TAG.sub("", raw, count=1).strip()
        if not line:
            return
        if "Waiting for client to connect" in line:
            self._banner = True
        elif "BW peak won't be measured" in line:
            self._peak_warning = True
        elif match := TITLE.match(line):
            self._title(match)
        elif self._report is not None:
            self._in_report(self._report, line)
        elif line.startswith("#bytes"):
            # Only the result table was kept (a paste without the title and header).
            columns = parse_columns(line)
            latency = any(column.name.startswith("t_") for column in columns)
            report = Report(title="", op="", kind="Latency" if latency else "BW", extra="")
            report.columns = columns
            self.log.reports.append(report)
        elif _FAILURE.search(line):
            self.log.failure = self.log.failure or line

    def _title(self, match: re.Match[str]) -> None:
        current = self._report
        if current is not None and not current.rows and current.title == match.group(0):
            current.interleaved = True  # the other side's identical report, line by line
            return
        report = Report(
            title=match.group(0),
            op=match.group("op"),
            kind=match.group("kind"),
            extra=match.group("extra"),
            server_banner=self._banner,
            peak_warning=self._peak_warning,
        )
        self._banner = self._peak_warning = False
        self.log.reports.append(report)

    def _in_report(self, report: Report, line: str) -> None:
        if report.closed:
            if line[0].isdigit():
                self._row(report, line)
            return
        if line.startswith("*"):
            return  # the server's "Waiting for client" frame
        if _DASHES.match(line):
            report.closed = report.closed or bool(report.rows)
        elif line.startswith("#bytes"):
            if report.columns:
                report.interleaved = True
            else:
                report.columns = parse_columns(line)
        elif line[0].isdigit() and report.columns:
            self._row(report, line)
        elif "CPU Frequency is not max" in line or "Conflicting CPU frequency" in line:
            report.cpu_warning = True
        elif line.startswith(("local address", "remote address", "GID:")):
            return
        elif not report.columns and ":" in line:
            for pair in _PAIR.finditer(line):
                report.header.setdefault(pair.group("key"), pair.group("val"))
        elif _FAILURE.search(line):
            self.log.failure = self.log.failure or line
        elif report.columns:
            report.skipped += 1

    def _row(self, report: Report, line: str) -> None:
        expected = len(report.columns)
        tokens = line.split()
        if expected and len(tokens) >= 2 * expected and len(tokens) % expected == 0:
            # Server and client rows of one interleaved terminal printed on one line.
            chunks = [tokens[i : i + expected] for i in range(0, len(tokens), expected)]
            if all(chunk[0] == tokens[0] for chunk in chunks):
                report.interleaved = True
                for chunk in chunks:
                    self._row(report, " ".join(chunk))
                return
        values = parse_row(line, expected)
        if values is None:
            report.skipped += 1
            return
        size = int(values[0])
        if size in report.rows:
            report.duplicates += 1
            if _measured_peak(report, values) and not _measured_peak(report, report.rows[size]):
                report.rows[size] = values  # the client's row: the server prints no BW peak
        elif report.closed:
            report.skipped += 1
        else:
            report.rows[size] = values


def _measured_peak(report: Report, values: tuple[float, ...]) -> bool:
    for position, column in enumerate(report.columns):
        if column.name == "BW peak":
            return values[position] > 0
    return False


def parse_columns(line: str) -> tuple[Column, ...]:
    columns = []
    for token in _COLUMN.findall(line):
        bracket = _BRACKET.match(token)
        if bracket:
            columns.append(Column(bracket.group("name").strip(), bracket.group("unit")))
        else:
            columns.append(Column(token, None))
    return tuple(columns)


def parse_row(line: str, expected: int) -> tuple[float, ...] | None:
    """Numbers of a result row; glued fields (``2465.901216.65``) are split apart."""
    tokens = line.split()
    if len(tokens) < expected:
        tokens = [piece for token in tokens for piece in _unglue(token)]
    if len(tokens) < expected or not (tokens[0].isdigit() and tokens[1].isdigit()):
        return None
    try:
        values = tuple(float(token) for token in tokens[:expected])
    except ValueError:
        return None
    # A value too large for a double, or a size beyond any buffer, is damage, not a row.
    if not all(math.isfinite(value) for value in values) or values[0] > 2**53:
        return None
    return values


def _unglue(token: str) -> list[str]:
    if token.count(".") < 2:
        return [token]
    # perftest prints 2 decimals in latency and MB columns and 6 in MsgRate and small Gb values.
    pattern = _GLUE_6 if re.search(r"\.\d{6}$", token) else _GLUE_2
    pieces = pattern.findall(token)
    return pieces if "".join(pieces) == token else [token]


def read_perftest(lines: Iterable[str]) -> PerftestLog:
    reader = _Reader()
    for line in lines:
        reader.feed(line)
    return reader.log
