"""The line grammar of iperf3's plain-text output (FORMATS.md §1.2).

Each table line is reduced to a ``Row`` with its rate already in Gbit/s, converted with the
unit printed on that very line (iperf3 switches units from line to line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.benchlogs.units import iperf_bytes_factor, iperf_rate_factor

# Bounded digit runs: a longer number is damage, and would overflow float arithmetic later.
_NUMBER = r"\d{1,30}(?:\.\d{1,30})?"
_COUNT = r"\d{1,18}"
_ROW = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\s*\](?:\[(?P<role>[TR]X-[CS])\])?\s+"
    rf"(?P<start>{_NUMBER})\s*-\s*(?P<end>{_NUMBER})\s+sec\s+"
    rf"(?P<xfer>{_NUMBER})\s+(?P<xunit>[A-Za-z]+)\s+"
    rf"(?P<rate>{_NUMBER})\s+(?P<runit>[A-Za-z]+/sec)(?P<rest>.*)$"
)
_UDP_TAIL = re.compile(
    rf"^\s+(?P<jitter>{_NUMBER})\s+ms\s+(?P<lost>-?{_COUNT})\s*/\s*(?P<total>{_COUNT})"
    r"\s+\(\s*(?P<pct>[-+.\deE]+|nan|-?inf)\s*%\)\s*(?P<side>sender|receiver)?\s*$"
)
_SIDE_TAIL = re.compile(rf"^\s+(?:(?P<retr>{_COUNT})\s+)?(?P<side>sender|receiver)\s*$")
_TCP_TAIL = re.compile(rf"^\s+(?P<retr>{_COUNT})\s+(?P<cwnd>{_NUMBER})\s+[KMGT]?Bytes\s*$")
_OMITTED = "(omitted)"
_PREFIXES = frozenset("KMGT")
_DATAGRAM_TAIL = re.compile(rf"^\s+(?P<datagrams>{_COUNT})\s*$")

CONNECTING = re.compile(r"^Connecting to host (?P<host>\S+?),? port (?P<port>\d{1,5})")
LISTENING = re.compile(r"^Server listening on (?P<port>\d+)")
ACCEPTED = re.compile(r"^Accepted connection from (?P<host>\S+?),? port (?P<port>\d{1,5})")
REVERSE = re.compile(r"^\[?\s*Reverse mode, remote host \S+ is sending")
CONNECTED = re.compile(r"^\[\s*(?P<id>\d+)\s*\](?:\[[TR]X-[CS]\])?\s+local \S+ port \d+ connected")
HEADER = re.compile(r"^\[\s*ID\s*\](?:\[Role\])?\s+Interval\s+Transfer\s+(Bitrate|Bandwidth)")
# The interval table of a UDP sender: "Bitrate  Total Datagrams" (a receiver's is "Lost/Total").
UDP_SENDER_HEADER = re.compile(r"(Bitrate|Bandwidth)\s+Total Datagrams")
SEPARATOR = re.compile(r"^(- ){8,}-?\s*$")
SENT_DATAGRAMS = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\s*\](?:\[[TR]X-[CS]\])?\s+Sent (?P<n>\d+) datagrams"
)
# Since 3.5 a summary whose other end sent no figures says so in place of that line.
STATS_NOT_AVAILABLE = re.compile(
    r"^\[\s*(\d+|SUM)\s*\](?:\[[TR]X-[CS]\])?\s+\((sender|receiver) statistics not available\)"
)
# A UDP receiver's count of datagrams that arrived out of order (iperf_locale.c's
# report_outoforder / report_sum_outoforder), printed after its interval or summary row.
OUT_OF_ORDER = re.compile(
    r"^\[\s*(\d+|SUM)\s*\](?:\[[TR]X-[CS]\])?\s+[\d.]+-\s*[\d.]+\s+sec\s+\d+ datagrams"
    r" received out-of-order"
)
ERROR = re.compile(r"^iperf3?: error - (?P<text>.*)$")
INTERRUPT = re.compile(r"^iperf3?: interrupt - (?P<text>.*)$")
DONE = re.compile(r"^iperf Done\.")
# ``--get-server-output``: the client prints the server's own text report after its summary.
SERVER_OUTPUT = re.compile(r"^Server output:\s*$")
VERSION = re.compile(r"^iperf (?P<version>\d+\.\d+\S*)")


@dataclass(frozen=True)
class Row:
    """One interval or summary line."""

    ident: str
    role: str | None
    start: float
    end: float
    bytes: float
    gbps: float
    side: str | None = None
    retransmits: int | None = None
    jitter_ms: float | None = None
    lost: int | None = None
    total: int | None = None
    datagrams: int | None = None
    omitted: bool = False

    @property
    def slot(self) -> tuple[float, float]:
        return (self.start, self.end)


@dataclass(frozen=True)
class _Tail:
    side: str | None = None
    retransmits: int | None = None
    jitter_ms: float | None = None
    lost: int | None = None
    total: int | None = None
    datagrams: int | None = None


def parse_row(line: str) -> Row | None:
    """A table row, or None when the line is not one. Unknown units raise BenchLogError."""
    match = _ROW.match(line)
    if match is None:
        return None
    rest = match.group("rest")
    # -O warm-up rows end with "(omitted)"; they are read, then left out of the series.
    omitted = rest.rstrip().endswith(_OMITTED)
    tail = _parse_tail(rest.rstrip()[: -len(_OMITTED)] if omitted else rest)
    if tail is None:
        return None
    start, end = float(match.group("start")), float(match.group("end"))
    transferred = float(match.group("xfer")) * iperf_bytes_factor(match.group("xunit"))
    rate, unit = float(match.group("rate")), match.group("runit")
    gbps = rate * iperf_rate_factor(unit)  # an unknown unit is refused either way
    if rate < 1.0 and unit[0] in _PREFIXES and end > start and transferred > 0:
        # iperf3 prints a rate with three significant digits in the unit it picks itself; a
        # unit forced with -f can leave "0.00 Tbits/sec" or "0.12 GBytes/sec" for 1 Gbit/s.
        # The transfer column keeps its own unit, so the rate is taken from it instead.
        gbps = transferred * 8 / (end - start) / 1e9
    return Row(
        ident=match.group("id"),
        role=match.group("role"),
        start=start,
        end=end,
        bytes=transferred,
        gbps=gbps,
        side=tail.side,
        retransmits=tail.retransmits,
        jitter_ms=tail.jitter_ms,
        lost=tail.lost,
        total=tail.total,
        datagrams=tail.datagrams,
        omitted=omitted,
    )


def _parse_tail(rest: str) -> _Tail | None:
    if not rest.strip():
        return _Tail()
    udp = _UDP_TAIL.match(rest)
    if udp:
        return _Tail(
            jitter_ms=float(udp.group("jitter")),
            lost=int(udp.group("lost")),
            total=int(udp.group("total")),
            side=udp.group("side"),
        )
    side = _SIDE_TAIL.match(rest)
    if side:
        retr = side.group("retr")
        return _Tail(side=side.group("side"), retransmits=int(retr) if retr else None)
    tcp = _TCP_TAIL.match(rest)
    if tcp:
        return _Tail(retransmits=int(tcp.group("retr")))
    datagrams = _DATAGRAM_TAIL.match(rest)
    if datagrams:
        return _Tail(datagrams=int(datagrams.group("datagrams")))
    return None
