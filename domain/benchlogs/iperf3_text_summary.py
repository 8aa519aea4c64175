"""The end-of-test summary of an iperf3 text log: which line is the figure that counts.

The receiver line is the throughput. Old versions and Windows builds print one UDP line whose
rate is the sender's and whose loss is the receiver's; the received rate is then estimated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.benchlogs import catalogue
from domain.benchlogs.iperf3_text_lines import Row
from domain.benchlogs.result import FORWARD, REVERSE, StreamSummary
from domain.messages import Message

_ROLE_DIRECTION = {"TX-C": FORWARD, "RX-S": FORWARD, "RX-C": REVERSE, "TX-S": REVERSE}


@dataclass
class TextFigures:
    throughput_gbps: float | None = None
    sender_gbps: float | None = None
    retransmits: int | None = None
    duration_s: float | None = None
    lost_percent: float | None = None
    lost_packets: int | None = None
    packets: int | None = None
    jitter_ms: float | None = None
    bytes_sent: float | None = None
    bytes_received: float | None = None
    packets_sent: int | None = None
    per_stream: tuple[StreamSummary, ...] = ()
    per_direction: tuple[StreamSummary, ...] = ()
    complete: bool = True
    warnings: list[Message] = field(default_factory=list)


@dataclass
class _Group:
    """The summary of one direction: receiver, sender and side-less lines."""

    received: list[Row]
    sent: list[Row]
    plain: list[Row]

    @classmethod
    def of(cls, rows: list[Row]) -> _Group:
        chosen = [row for row in rows if row.ident == "SUM"] or rows
        return cls(
            received=[row for row in chosen if row.side == "receiver"],
            sent=[row for row in chosen if row.side == "sender"],
            plain=[row for row in chosen if row.side is None],
        )

    @property
    def loss_rows(self) -> list[Row]:
        return [row for row in self.received or self.plain if row.total is not None]


def summary_figures(rows: list[Row], *, udp: bool) -> TextFigures:
    figures = TextFigures()
    if not rows:
        figures.complete = False
        return figures
    by_direction: dict[str, list[Row]] = {}
    for row in rows:
        direction = _ROLE_DIRECTION.get(row.role or "", FORWARD)
        by_direction.setdefault(direction, []).append(row)
    groups = [_Group.of(group) for group in by_direction.values()]
    received = [_received_gbps(group, udp, figures) for group in groups]
    figures.throughput_gbps = None if None in received else sum(r or 0.0 for r in received)
    figures.sender_gbps = _total([_sent_gbps(group) for group in groups])
    figures.complete = all(group.received or group.plain for group in groups)
    figures.retransmits = _retransmits(groups)
    figures.bytes_sent = _total([_bytes(g.sent or g.plain) for g in groups])
    figures.bytes_received = _total([_bytes(g.received) for g in groups])
    sent_packets = [row.total for g in groups for row in g.sent if row.total is not None]
    figures.packets_sent = sum(sent_packets) if sent_packets else None
    figures.per_stream = _per_stream(rows)
    figures.per_direction = tuple(
        _summary(direction, _Group.of(group)) for direction, group in by_direction.items()
    )
    figures.duration_s = max(row.end - row.start for row in rows)
    if udp:
        _loss(groups, figures)
    return figures


def _received_gbps(group: _Group, udp: bool, figures: TextFigures) -> float | None:
    sent = _sent_gbps(group)
    if group.received:
        received = sum(row.gbps for row in group.received)
        # After an interrupt the receiver line reads 0.00 bits/sec: that view is missing.
        return None if received == 0 and (sent or 0) > 0 else received
    if udp and group.plain:
        lost = sum(row.lost or 0 for row in group.loss_rows)
        total = sum(row.total or 0 for row in group.loss_rows)
        if total > 0:
            loss_percent = 100.0 * lost / total
            figures.warnings.append(catalogue.udp_receiver_rate_estimated(loss_percent))
            return sum(row.gbps for row in group.plain) * (1 - loss_percent / 100)
    return None


def _bytes(rows: list[Row]) -> float | None:
    return sum(row.bytes for row in rows) if rows else None


def _summary(label: str, group: _Group) -> StreamSummary:
    retransmits = [row.retransmits for row in group.sent if row.retransmits is not None]
    received = group.received
    return StreamSummary(
        label=label,
        receiver_gbps=sum(row.gbps for row in received) if received else None,
        sender_gbps=_sent_gbps(group),
        bytes_received=_bytes(received),
        bytes_sent=_bytes(group.sent or group.plain),
        retransmits=sum(retransmits) if retransmits else None,
    )


def _per_stream(rows: list[Row]) -> tuple[StreamSummary, ...]:
    streams: dict[str, list[Row]] = {}
    for row in rows:
        if row.ident != "SUM":
            label = f"stream {row.ident}" + (f" {row.role}" if row.role else "")
            streams.setdefault(label, []).append(row)
    return tuple(_summary(label, _Group.of(group)) for label, group in streams.items())


def _sent_gbps(group: _Group) -> float | None:
    rows = group.sent or group.plain
    return sum(row.gbps for row in rows) if rows else None


def _total(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) if present else None


def _retransmits(groups: list[_Group]) -> int | None:
    values = [row.retransmits for group in groups for row in group.sent]
    present = [value for value in values if value is not None]
    return sum(present) if present else None


def _loss(groups: list[_Group], figures: TextFigures) -> None:
    rows = [row for group in groups for row in group.loss_rows]
    if not rows:
        return
    lost = sum(row.lost or 0 for row in rows)
    total = sum(row.total or 0 for row in rows)
    figures.lost_packets, figures.packets = lost, total
    # The printed percentage is rounded ("(56%)"); the counts give the exact loss.
    figures.lost_percent = 100.0 * lost / total if total else None
    jitters = [row.jitter_ms for row in rows if row.jitter_ms is not None]
    figures.jitter_ms = max(jitters) if jitters else None
