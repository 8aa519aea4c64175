"""Parser for iperf3's plain-text output, client or server side, Linux or Windows.

Lines are consumed one at a time and each reporting interval is reduced to floats as soon as
the next one starts, so a day-long text log costs memory per interval, not per line.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from domain.benchlogs import catalogue, fidelity
from domain.benchlogs import iperf3_text_lines as grammar
from domain.benchlogs.directions import one_direction
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.iperf3_text_lines import Row
from domain.benchlogs.iperf3_text_prefix import rejoin_wrapped_roles, strip_prefixes
from domain.benchlogs.iperf3_text_summary import TextFigures, summary_figures
from domain.benchlogs.result import (
    BIDIR,
    FORWARD,
    REVERSE,
    TCP,
    UDP,
    BenchResult,
    Series,
    StreamSummary,
)
from domain.benchlogs.udp import receiver_series
from domain.messages import Message

# A printed count this large is damage; it would not fit the compact per-interval arrays.
_MAX_COUNT = 2**53
# Which way data flows for each bidir role tag, seen from the client.
_ROLE_DIRECTION = {"TX-C": FORWARD, "RX-S": FORWARD, "RX-C": REVERSE, "TX-S": REVERSE}


class _SlotSeries:
    """Per-interval totals, folded one reporting slot at a time."""

    def __init__(self) -> None:
        self.start_s = array("d")
        self.end_s = array("d")
        self.total = array("d")
        self.bytes = array("d")
        self.retransmits = array("q")
        self.packets = array("q")
        self.zero_length = 0
        self.repeated = 0
        self.columns: dict[str, array[float]] = {}
        self._rows: list[Row] = []
        self._keys: set[tuple[str, str | None]] = set()

    def add(self, row: Row) -> None:
        """Rows belong to one reporting interval until the block ends.

        A block is what iperf3 prints per interval: each stream's row, then the [SUM] row(s)
        when there are several streams. Each stream computes its own interval times, so under
        load a stream prints ``27.00-28.05`` while [SUM] prints ``27.00-28.04``: the printed
        times cannot be the grouping key. A block ends at a separator line (printed after each
        [SUM] block) or when a stream or [SUM] row of the block comes again (single-stream logs
        print neither [SUM] nor separators).
        """
        key = (row.ident, row.role)
        if key in self._keys:
            self.flush()
        self._keys.add(key)
        self._rows.append(row)

    def flush(self) -> None:
        rows, self._rows = self._rows, []
        self._keys = set()
        if not rows:
            return
        sums = [row for row in rows if row.ident == "SUM"]
        streams = [row for row in rows if row.ident != "SUM"]
        start, end = (sums or streams)[0].slot
        if end <= start:
            self.zero_length += 1
            return
        if len(self.total) and (self.start_s[-1], self.end_s[-1]) == (start, end):
            # A client whose server is stopped prints its last interval a second time.
            self.repeated += 1
            return
        chosen = sums or streams
        self.bytes.append(sum(row.bytes for row in chosen))
        self._counts(chosen)
        self._append(start, end, sum(row.gbps for row in chosen), streams)

    def _counts(self, rows: list[Row]) -> None:
        retransmits = [row.retransmits for row in rows if row.retransmits is not None]
        if retransmits and sum(retransmits) < _MAX_COUNT:
            self.retransmits.append(sum(retransmits))
        # Client UDP rows count datagrams sent; server rows show lost/total received.
        packets = [row.datagrams if row.datagrams is not None else row.total for row in rows]
        total = sum(count or 0 for count in packets)
        if any(count is not None for count in packets) and total < _MAX_COUNT:
            self.packets.append(total)

    def per_interval(self, counts: array[int]) -> tuple[int, ...]:
        return tuple(counts) if len(counts) == len(self.total) else ()

    def _append(self, start: float, end: float, total: float, streams: list[Row]) -> None:
        index = len(self.total)
        self.start_s.append(start)
        self.end_s.append(end)
        self.total.append(total)
        values: dict[str, float] = {}
        for row in streams:
            values[f"stream {row.ident}"] = row.gbps
            if row.role is not None:
                direction = _ROLE_DIRECTION[row.role]
                values[direction] = values.get(direction, 0.0) + row.gbps
        for label, value in values.items():
            if label not in self.columns:
                self.columns[label] = array("d", [math.nan]) * index
            self.columns[label].append(value)
        for column in self.columns.values():
            if len(column) <= index:
                column.append(math.nan)

    def series(self) -> tuple[Series, ...]:
        order = sorted(self.columns, key=lambda label: (label.startswith("stream"), label))
        return tuple(Series(label, tuple(self.columns[label])) for label in order)


@dataclass
class _Session:
    role: str | None = None
    peer: str | None = None
    peer_port: int | None = None
    sent_datagrams: int | None = None
    reverse: bool = False
    udp: bool = False
    connected: set[str] = field(default_factory=set)
    headers: int = 0
    retr_column: bool = False
    server_sends: bool = False
    after_separator: bool = False
    in_summary: bool = False
    slots: _SlotSeries = field(default_factory=_SlotSeries)
    summary: list[Row] = field(default_factory=list)
    roles: set[str] = field(default_factory=set)
    error_text: str | None = None
    interrupt_text: str | None = None
    done: bool = False
    skipped: int = 0
    version: str | None = None
    stopped_text: str | None = None
    omitted: set[tuple[float, float]] = field(default_factory=set)
    # ``--get-server-output``: the other end of this same test, as the server printed it.
    server_side: _Session | None = None

    @property
    def has_data(self) -> bool:
        return bool(len(self.slots.total) or self.slots.zero_length or self.summary)

    @property
    def has_content(self) -> bool:
        return self.has_data or self.error_text is not None or self.interrupt_text is not None


class _Reader:
    """Splits a text log into test sessions and feeds each line to the current one."""

    def __init__(self) -> None:
        self.sessions = [_Session()]
        self.version: str | None = None
        self.orphans: list[str] = []
        self.orphan_error = False
        # Set while reading a client's "Server output:" section (--get-server-output).
        self.server_section: _Session | None = None

    def finish(self) -> list[_Session]:
        """The sessions with content; status lines printed ahead of them go to the last one."""
        sessions = [session for session in self.sessions if session.has_content]
        if self.orphans and sessions:
            last = sessions[-1]
            last.stopped_text = self.orphans[-1]
            if self.orphan_error and last.error_text is None:
                last.error_text = self.orphans[-1]
            elif last.interrupt_text is None and last.error_text is None:
                last.interrupt_text = self.orphans[-1]
        return sessions

    @property
    def current(self) -> _Session:
        return self.server_section or self.sessions[-1]

    def _new_session(self, role: str) -> _Session:
        self.server_section = None
        current = self.current
        if current.role is None and not current.has_data and current.has_content:
            # ``iperf3 -s > f 2>&1``: stderr is unbuffered and stdout is not, so the server's
            # "iperf3: interrupt …" lands before the tests it ended. It is held for the last test.
            self.orphans.extend(t for t in (current.error_text, current.interrupt_text) if t)
            self.orphan_error = self.orphan_error or current.error_text is not None
            self.sessions[-1] = _Session()
        elif current.has_content or current.role is not None:
            self.sessions.append(_Session())
        self.current.role = role
        return self.current

    def feed(self, raw: str) -> None:
        line = raw.strip()
        if not line:
            return
        separator = grammar.SEPARATOR.match(line) is not None
        if separator:
            self.current.slots.flush()
        else:
            self._dispatch(line)
        self.current.after_separator = separator

    def _dispatch(self, line: str) -> None:
        if self._session_line(line) or self._status_line(line):
            return
        session = self.current
        if grammar.HEADER.match(line):
            session.udp = session.udp or "Datagrams" in line
            session.retr_column = "Retr" in line
            # On the server, a Retr column in the interval table means the server sends (-R).
            # So does a UDP table that counts datagrams sent rather than lost/total received.
            sends = session.retr_column or grammar.UDP_SENDER_HEADER.search(line) is not None
            if session.headers == 0 and session.role == "server" and sends:
                session.server_sends = True
            session.in_summary = session.in_summary or (
                session.headers > 0 and session.after_separator
            )
            session.headers += 1
            return
        row = grammar.parse_row(line)
        if row is not None:
            if self.server_section is not None and (row.role or "").endswith("-C"):
                # --bidir: 3.12 prints the client's reverse summary after the server's output;
                # a server never prints a client role (TX-C, RX-C), so the section has ended.
                self.server_section = None
                session = self.current
                session.in_summary = True
            self._add_row(session, row)
        elif line.startswith("[") and not (
            grammar.CONNECTED.match(line)
            or grammar.STATS_NOT_AVAILABLE.match(line)
            or grammar.OUT_OF_ORDER.match(line)
        ):
            session.skipped += 1

    def _server_section_line(self, line: str) -> bool:
        """Lines that open, or belong to the frame of, a client's "Server output:" section.

        The server's report is the other end of the same test: it is kept as that test's
        server side and never counted with the client's own rows.
        """
        if grammar.SERVER_OUTPUT.match(line):
            client = self.sessions[-1]
            if client.role == "client":
                client.server_side = _Session(role="server")
                self.server_section = client.server_side
            return True
        if self.server_section is None:
            return False
        if grammar.LISTENING.match(line):
            return True  # the server's banner, inside the section: not a new test
        if grammar.DONE.match(line):
            # "iperf Done." after the section is the client's own last line.
            self.server_section = None
            self.sessions[-1].done = True
            return True
        return False

    def _session_line(self, line: str) -> bool:
        if self._server_section_line(line):
            return True
        if match := grammar.CONNECTING.match(line):
            session = self._new_session("client")
            session.peer, session.peer_port = match.group("host"), int(match.group("port"))
        elif grammar.LISTENING.match(line):
            self._new_session("server")
        elif match := grammar.ACCEPTED.match(line):
            self.current.peer = match.group("host")
        elif grammar.REVERSE.match(line):
            self.current.reverse = True
        elif match := grammar.CONNECTED.match(line):
            self.current.connected.add(match.group("id"))
        elif match := grammar.VERSION.match(line):
            self.version = match.group("version")
        else:
            return False
        return True

    def _status_line(self, line: str) -> bool:
        if match := grammar.ERROR.match(line):
            self.current.error_text = match.group("text")
        elif match := grammar.INTERRUPT.match(line):
            self.current.interrupt_text = match.group("text")
        elif grammar.DONE.match(line):
            self.current.done = True
        elif match := grammar.SENT_DATAGRAMS.match(line):
            self.current.udp = True
            self.current.sent_datagrams = int(match.group("n"))
        else:
            return False
        return True

    def _add_row(self, session: _Session, row: Row) -> None:
        if row.omitted:
            session.omitted.add(row.slot)
            return
        if row.datagrams is not None and session.retr_column:
            # A lone number after the rate is Retr when the TCP header says so (a SUM line
            # carries no Cwnd), and a datagram count only in UDP tables.
            row = replace(row, datagrams=None, retransmits=row.datagrams)
        if row.role is not None:
            session.roles.add(row.role)
        if row.jitter_ms is not None or row.datagrams is not None:
            session.udp = True
        if row.side is not None or session.in_summary:
            session.summary.append(row)
        else:
            session.slots.add(row)


def parse_iperf3_text_all(lines: Iterable[str]) -> tuple[BenchResult, ...]:
    """Every test session in the log, in order."""
    reader = _Reader()
    for line in strip_prefixes(rejoin_wrapped_roles(lines)):
        reader.feed(line)
    sessions = reader.finish()
    if not sessions:
        raise BenchLogError(catalogue.no_results("iperf3"))
    return tuple(_build(session, reader.version) for session in sessions)


def parse_iperf3_text_lines(lines: Iterable[str]) -> BenchResult:
    """The first test of the log, with a warning when the log holds more."""
    results = parse_iperf3_text_all(lines)
    first = results[0]
    if len(results) == 1:
        return first
    warnings = (*first.warnings, catalogue.multiple_tests(len(results)))
    return _replace_warnings(first, warnings)


def _replace_warnings(result: BenchResult, warnings: tuple[Message, ...]) -> BenchResult:
    return replace(result, warnings=warnings)


def _build(session: _Session, version: str | None) -> BenchResult:
    session.slots.flush()
    figures = summary_figures(session.summary, udp=session.udp)
    if not session.summary:
        _figures_from_intervals(session, figures)
    error = _error(session)
    truncated = _is_truncated(session, figures.complete, error)
    throughput, warnings = _throughput(session, figures, error)
    if truncated:
        warnings.append(catalogue.truncated_log())
    result = _result(session, version, figures, throughput, warnings, error, truncated)
    server = session.server_side
    if server is not None and server.has_content:
        result = replace(result, server=_build(server, version))
    return receiver_series(one_direction(result))


def _figures_from_intervals(session: _Session, figures: TextFigures) -> None:
    """A log without its summary (cut, or stopped): what its interval rows still say.

    Under --bidir each interval's total is both directions at once; each direction's mean is
    kept, so one_direction takes the lower one as the throughput rather than their sum.
    """
    slots = session.slots
    if not len(slots.total):
        return
    if len(slots.retransmits) == len(slots.total):
        figures.retransmits = sum(slots.retransmits)
    if not session.roles:
        return
    directions = []
    for label in (FORWARD, REVERSE):
        values = [value for value in slots.columns.get(label, ()) if not math.isnan(value)]
        if values:
            directions.append(StreamSummary(label, receiver_gbps=sum(values) / len(values)))
    figures.per_direction = tuple(directions)


def _result(  # noqa: PLR0913 - the parts _build computed, assembled in one place
    session: _Session,
    version: str | None,
    figures: TextFigures,
    throughput: float | None,
    warnings: list[Message],
    error: Message | None,
    truncated: bool,
) -> BenchResult:
    slots = session.slots
    bidir = bool(session.roles)
    return BenchResult(
        tool="iperf3",
        test=(UDP if session.udp else TCP) if session.has_data else None,
        direction=BIDIR
        if bidir
        else REVERSE
        if session.reverse or session.server_sends
        else FORWARD,
        streams=_streams(session, bidir),
        duration_s=figures.duration_s or _span(slots),
        throughput_gbps=None if error is not None else throughput,
        sender_gbps=figures.sender_gbps,
        interval_start_s=tuple(slots.start_s),
        interval_end_s=tuple(slots.end_s),
        interval_gbps=tuple(slots.total),
        interval_bytes=tuple(slots.bytes),
        interval_retransmits=slots.per_interval(slots.retransmits),
        interval_packets=slots.per_interval(slots.packets),
        zero_length_intervals=slots.zero_length,
        omitted_intervals=len(session.omitted),
        series=slots.series(),
        per_stream=figures.per_stream,
        per_direction=figures.per_direction if bidir else (),
        bytes_sent=figures.bytes_sent,
        bytes_received=figures.bytes_received,
        retransmits=figures.retransmits,
        lost_percent=figures.lost_percent,
        lost_packets=figures.lost_packets,
        packets=figures.packets,
        packets_sent=figures.packets_sent or session.sent_datagrams,
        jitter_ms=figures.jitter_ms,
        version=session.version or version,
        role=session.role,
        peer=session.peer,
        peer_port=session.peer_port,
        warnings=tuple(warnings),
        error=error,
        truncated=truncated,
    )


def _throughput(
    session: _Session, figures: TextFigures, error: Message | None
) -> tuple[float | None, list[Message]]:
    slots = session.slots
    warnings: list[Message] = []
    if slots.zero_length:
        warnings.append(catalogue.zero_length_intervals(slots.zero_length))
    if slots.repeated:
        warnings.append(fidelity.repeated_intervals(slots.repeated))
    if session.omitted:
        warnings.append(catalogue.omitted_intervals(len(session.omitted)))
    if session.stopped_text is not None and session.role == "server" and session.has_data:
        warnings.append(fidelity.server_stopped(session.stopped_text))
    if session.skipped:
        warnings.append(catalogue.skipped_lines(session.skipped))
    throughput = figures.throughput_gbps
    if not session.summary and len(slots.total):
        throughput = sum(slots.total) / len(slots.total)
        warnings.append(catalogue.throughput_from_intervals())
    elif throughput is None and session.summary and error is None:
        warnings.append(catalogue.receiver_figures_missing())
    if error is None:
        warnings.extend(figures.warnings)
    return throughput, warnings


def _error(session: _Session) -> Message | None:
    if session.error_text is not None:
        return catalogue.iperf3_reported_error(session.error_text)
    if session.interrupt_text is None:
        return None
    # A server stopped after its summary was printed ends the process, not that test.
    if session.role == "server" and session.summary:
        return None
    return catalogue.iperf3_interrupted(session.interrupt_text)


def _is_truncated(session: _Session, summary_complete: bool, error: Message | None) -> bool:
    if error is not None or session.done:
        return False
    if not session.summary:
        return bool(len(session.slots.total))
    return session.role == "client" and not summary_complete


def _streams(session: _Session, bidir: bool) -> int | None:
    ids = session.connected or {
        label.split(" ", 1)[1] for label in session.slots.columns if label.startswith("stream ")
    }
    if not ids:
        return None
    return max(1, len(ids) // 2) if bidir else len(ids)


def _span(slots: _SlotSeries) -> float | None:
    return slots.end_s[-1] - slots.start_s[0] if len(slots.total) else None
