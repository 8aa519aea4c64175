"""Turn the parts of an iperf3 JSON document into a BenchResult.

Which figure counts follows FORMATS.md §1.1: the receiver's ``sum_received`` (both directions
under ``--bidir``), never a sender figure presented as throughput, and nothing at all when
iperf3 itself reported an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from domain.benchlogs import catalogue, fidelity
from domain.benchlogs.directions import one_direction
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.iperf3_intervals import BadValue, IntervalAccumulator, num
from domain.benchlogs.iperf3_text import parse_iperf3_text_lines
from domain.benchlogs.result import (
    BIDIR,
    FORWARD,
    REVERSE,
    TCP,
    UDP,
    BenchResult,
    StreamSummary,
)
from domain.benchlogs.udp import receiver_series
from domain.messages import Message

_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?[\w.+-]*)")


@dataclass
class JsonParts:
    members: dict[str, Any]
    intervals: IntervalAccumulator
    server_intervals: IntervalAccumulator = field(default_factory=IntervalAccumulator)


@dataclass
class _Figures:
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
    per_direction: tuple[StreamSummary, ...] = ()
    warnings: list[Message] = field(default_factory=list)


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _opt(block: dict[str, Any], key: str) -> float | None:
    try:
        return num(block[key]) if key in block else None
    except BadValue:
        return None


def _gbps(block: dict[str, Any]) -> float | None:
    bps = _opt(block, "bits_per_second")
    return None if bps is None else bps / 1e9


def _add(first: float | None, second: float | None) -> float | None:
    if first is None:
        return second
    return first if second is None else first + second


def _first_line(damage: str) -> str:
    return damage.strip().splitlines()[0] if damage.strip() else "parse error"


def build_result(parts: JsonParts, *, damage: str | None) -> BenchResult:
    members, acc = parts.members, parts.intervals
    start, end = _dict(members.get("start")), _dict(members.get("end"))
    error_text = members.get("error") if isinstance(members.get("error"), str) else None
    _require_data(acc, end, error_text, damage)
    test_start = _dict(start.get("test_start"))
    test = _test_kind(test_start.get("protocol"))
    bidir = bool(test_start.get("bidir")) or acc.saw_bidir or "sum_sent_bidir_reverse" in end
    figures = _figures(test, end, bidir, acc)
    error = _error(error_text)
    return receiver_series(one_direction(_result(parts, test, bidir, figures, error, damage)))


def _result(  # noqa: PLR0913 - the parts build_result computed, assembled in one place
    parts: JsonParts,
    test: str | None,
    bidir: bool,
    figures: _Figures,
    error: Message | None,
    damage: str | None,
) -> BenchResult:
    members, acc = parts.members, parts.intervals
    start, end = _dict(members.get("start")), _dict(members.get("end"))
    test_start = _dict(start.get("test_start"))
    return BenchResult(
        tool="iperf3",
        test=test,
        direction=BIDIR if bidir else REVERSE if test_start.get("reverse") else FORWARD,
        streams=_streams(test_start, start, bidir),
        duration_s=figures.duration_s or _span(acc),
        throughput_gbps=None if error is not None else figures.throughput_gbps,
        sender_gbps=figures.sender_gbps,
        interval_start_s=tuple(acc.start_s),
        interval_end_s=tuple(acc.end_s),
        interval_gbps=tuple(acc.total_gbps),
        interval_bytes=tuple(acc.bytes),
        interval_retransmits=acc.per_interval(acc.retransmit_counts),
        interval_packets=acc.per_interval(acc.packet_counts),
        omitted_intervals=acc.omitted,
        zero_length_intervals=acc.zero_length,
        series=acc.series(),
        per_stream=_per_stream(end),
        per_direction=figures.per_direction,
        bytes_sent=figures.bytes_sent,
        bytes_received=figures.bytes_received,
        retransmits=figures.retransmits,
        lost_percent=figures.lost_percent,
        lost_packets=figures.lost_packets,
        packets=figures.packets,
        packets_sent=figures.packets_sent,
        out_of_order=_out_of_order(end),
        jitter_ms=figures.jitter_ms,
        version=_version(start.get("version")),
        role=_role(start),
        peer=_peer(start)[0],
        peer_port=_peer(start)[1],
        start_time_s=_opt(_dict(start.get("timestamp")), "timesecs"),
        header=_header(test_start, end),
        server=_server(parts),
        warnings=tuple(_interval_warnings(acc) + figures.warnings + _damage_warnings(damage)),
        error=error,
        truncated=damage is not None,
    )


def _require_data(
    acc: IntervalAccumulator, end: dict[str, Any], error_text: str | None, damage: str | None
) -> None:
    """Refuse a document that holds no test data at all, saying why."""
    if acc.count or acc.omitted or acc.zero_length or end or error_text is not None:
        return
    if damage is not None and "premature EOF" in damage:
        raise BenchLogError(catalogue.json_truncated())
    if damage is not None:
        raise BenchLogError(catalogue.json_malformed(_first_line(damage)))
    raise BenchLogError(catalogue.unsupported_json())


def _damage_warnings(damage: str | None) -> list[Message]:
    if damage is None:
        return []
    if "premature EOF" in damage:
        return [catalogue.truncated_log()]
    return [catalogue.json_damaged(_first_line(damage))]


def _test_kind(protocol: object) -> str | None:
    if protocol is None:
        return None
    if protocol in ("TCP", "UDP"):
        return TCP if protocol == "TCP" else UDP
    raise BenchLogError(catalogue.iperf3_unknown_protocol(str(protocol)))


def _figures(test: str | None, end: dict[str, Any], bidir: bool, acc: Any) -> _Figures:
    if not end:
        return _from_intervals(acc, bidir)
    sent, received = _dict(end.get("sum_sent")), _dict(end.get("sum_received"))
    if bidir:
        sent_r = _dict(end.get("sum_sent_bidir_reverse"))
        received_r = _dict(end.get("sum_received_bidir_reverse"))
    else:
        sent_r = received_r = {}
    figures = _Figures(
        sender_gbps=_add(_gbps(sent), _gbps(sent_r)),
        duration_s=_opt(received, "seconds") or _opt(sent, "seconds"),
        bytes_sent=_add(_opt(sent, "bytes"), _opt(sent_r, "bytes")),
        bytes_received=_add(_opt(received, "bytes"), _opt(received_r, "bytes")),
    )
    if bidir:
        figures.per_direction = (
            _summary("forward", sent, received),
            _summary("reverse", sent_r, received_r),
        )
    if test == UDP:
        _udp_figures(figures, end, received, received_r)
    else:
        figures.retransmits = _retransmits(sent, sent_r)
        _tcp_throughput(figures, sent, received, received_r)
    return figures


def _from_intervals(acc: IntervalAccumulator, bidir: bool) -> _Figures:
    if not acc.count:
        return _Figures()
    mean = sum(acc.total_gbps) / acc.count
    retransmits = acc.retransmits if acc.saw_retransmits else None
    figures = _Figures(
        throughput_gbps=mean,
        retransmits=retransmits,
        warnings=[catalogue.throughput_from_intervals()],
    )
    if bidir:
        # Each interval's total is both directions at once: keep each direction's mean, so
        # one_direction takes the lower one as the throughput (the sum is bidir_total_gbps).
        figures.per_direction = (
            StreamSummary("forward", receiver_gbps=sum(acc.forward_gbps) / acc.count),
            StreamSummary("reverse", receiver_gbps=sum(acc.reverse_gbps) / acc.count),
        )
    return figures


def _retransmits(sent: dict[str, Any], sent_r: dict[str, Any]) -> int | None:
    values = [_opt(block, "retransmits") for block in (sent, sent_r)]
    present = [int(value) for value in values if value is not None]
    return sum(present) if present else None


def _tcp_throughput(
    figures: _Figures,
    sent: dict[str, Any],
    received: dict[str, Any],
    received_r: dict[str, Any],
) -> None:
    # After an interrupt iperf3 writes sum_received with 0 bytes: the receiver view is missing.
    nothing_arrived = _opt(received, "bytes") == 0 and (_opt(sent, "bytes") or 0) > 0
    if not received or nothing_arrived:
        figures.warnings.append(catalogue.receiver_figures_missing())
        return
    figures.throughput_gbps = _add(_gbps(received), _gbps(received_r))


def _udp_figures(
    figures: _Figures,
    end: dict[str, Any],
    received: dict[str, Any],
    received_r: dict[str, Any],
) -> None:
    overall = _dict(end.get("sum"))
    source = received or overall
    figures.lost_percent = _opt(source, "lost_percent")
    figures.jitter_ms = _opt(source, "jitter_ms")
    lost, packets = _opt(source, "lost_packets"), _opt(source, "packets")
    figures.lost_packets = None if lost is None else int(lost)
    figures.packets = None if packets is None else int(packets)
    packets_sent = _opt(_dict(end.get("sum_sent")), "packets")
    figures.packets_sent = None if packets_sent is None else int(packets_sent)
    if figures.sender_gbps is None:
        figures.sender_gbps = _gbps(overall)
        figures.bytes_sent = _opt(overall, "bytes")
    if received:
        figures.throughput_gbps = _add(_gbps(received), _gbps(received_r))
        return
    # iperf3 3.1.x: one `sum` whose rate is the sender's and whose loss is the receiver's.
    sender, loss = _gbps(overall), figures.lost_percent
    if sender is None or loss is None:
        figures.warnings.append(catalogue.receiver_figures_missing())
        return
    figures.throughput_gbps = sender * (1 - loss / 100)
    figures.warnings.append(catalogue.udp_receiver_rate_estimated(loss))


def _summary(label: str, sent: dict[str, Any], received: dict[str, Any]) -> StreamSummary:
    retransmits = _opt(sent, "retransmits")
    return StreamSummary(
        label=label,
        receiver_gbps=_gbps(received),
        sender_gbps=_gbps(sent),
        bytes_received=_opt(received, "bytes"),
        bytes_sent=_opt(sent, "bytes"),
        retransmits=None if retransmits is None else int(retransmits),
    )


def _end_streams(end: dict[str, Any]) -> list[dict[str, Any]]:
    streams = end.get("streams")
    return (
        [entry for entry in streams if isinstance(entry, dict)] if isinstance(streams, list) else []
    )


def _per_stream(end: dict[str, Any]) -> tuple[StreamSummary, ...]:
    summaries = []
    for entry in _end_streams(end):
        sent = _dict(entry.get("sender")) or _dict(entry.get("udp"))
        received = _dict(entry.get("receiver"))
        socket = _opt(sent or received, "socket")
        label = f"stream {int(socket)}" if socket is not None else "stream"
        summaries.append(_summary(label, sent, received))
    return tuple(summaries)


def _out_of_order(end: dict[str, Any]) -> int | None:
    counts = [_opt(_dict(entry.get("udp")), "out_of_order") for entry in _end_streams(end)]
    present = [int(count) for count in counts if count is not None]
    return sum(present) if present else None


def _header(test_start: dict[str, Any], end: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    pairs = [(key, str(value)) for key, value in test_start.items() if _scalar(value)]
    for key in ("sender_tcp_congestion", "receiver_tcp_congestion"):
        if _scalar(end.get(key)):
            pairs.append((key, str(end[key])))
    return tuple(pairs)


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _interval_warnings(acc: IntervalAccumulator) -> list[Message]:
    warnings = []
    if acc.omitted:
        warnings.append(catalogue.omitted_intervals(acc.omitted))
    if acc.zero_length:
        warnings.append(catalogue.zero_length_intervals(acc.zero_length))
    if acc.repeated:
        warnings.append(fidelity.repeated_intervals(acc.repeated))
    if acc.damaged:
        warnings.append(catalogue.skipped_lines(acc.damaged))
    return warnings


def _error(text: str | None) -> Message | None:
    if text is None:
        return None
    if "interrupt" in text.lower():
        return catalogue.iperf3_interrupted(text)
    return catalogue.iperf3_reported_error(text)


def _streams(test_start: dict[str, Any], start: dict[str, Any], bidir: bool) -> int | None:
    count = _opt(test_start, "num_streams")
    if count is not None and count > 0:
        return int(count)
    connected = start.get("connected")
    if isinstance(connected, list) and connected:
        return max(1, len(connected) // 2) if bidir else len(connected)
    return None


def _span(acc: IntervalAccumulator) -> float | None:
    return acc.end_s[-1] - acc.start_s[0] if acc.count else None


def _version(text: object) -> str | None:
    match = _VERSION.search(text) if isinstance(text, str) else None
    return match.group(1) if match else None


def _role(start: dict[str, Any]) -> str | None:
    if "connecting_to" in start:
        return "client"
    if "accepted_connection" in start:
        return "server"
    return None


def _peer(start: dict[str, Any]) -> tuple[str | None, int | None]:
    block = _dict(start.get("connecting_to")) or _dict(start.get("accepted_connection"))
    host, port = block.get("host"), _opt(block, "port")
    return (host if isinstance(host, str) else None), (None if port is None else int(port))


def _server(parts: JsonParts) -> BenchResult | None:
    """The server's own report when the client ran with --get-server-output."""
    embedded = parts.members.get("server_output_json")
    text = parts.members.get("server_output_text")
    try:
        if isinstance(embedded, dict):
            return build_result(JsonParts(embedded, parts.server_intervals), damage=None)
        if isinstance(text, str):
            return parse_iperf3_text_lines(text.splitlines())
    except BenchLogError:
        return None
    return None
