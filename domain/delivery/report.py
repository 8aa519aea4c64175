"""The delivery engine's results, frozen, and their JSON round trip.

The app stores ``report_to_dict(report)`` in a JSON field and renders pages from
``report_from_dict(...)`` without running the engine again. Datetimes are ISO 8601 with their
offset (UTC), amounts are decimal strings, messages are ``{"code", "en", "zh"}``.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, fields, is_dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Any, Union, get_args, get_origin, get_type_hints

from domain.delivery.terms import Commitment
from domain.messages import Message

REPORT_VERSION = 1

# Clause / episode kinds.
AVAILABILITY = "availability"
BANDWIDTH = "bandwidth"
LATENCY = "latency"
RESPONSE = "response"
REPAIR = "repair"


@dataclass(frozen=True)
class Episode:
    """Something that went wrong: a shortfall, a latency excess, an overrun, a month's downtime.

    ``host`` is empty for contract-wide episodes. ``credited`` is False when no clause pays for it
    (too short, or no clause in the schedule) — it is still shown; ``breach`` is False only when it
    is shorter than the clause's minimum duration (not a breach of the contract). ``worst`` and
    ``mean`` are in ``unit`` (lowest delivered Gbit/s, highest latency in µs, overrun hours,
    availability %).
    """

    kind: str
    host: str
    start: datetime
    end: datetime
    duration_h: float
    committed: float | None
    worst: float | None
    mean: float | None
    unit: str
    credited: bool
    claim_deadline: datetime
    claim_deadline_passed: bool
    sentence: Message
    reference: str = ""
    breach: bool = True


@dataclass(frozen=True)
class Credit:
    """What one clause pays for one episode in one month (before the month's cap)."""

    clause: str
    month: str
    episode_index: int
    credit_pct: float
    credit_amount: Decimal
    currency: str
    claim_deadline: datetime
    claim_deadline_passed: bool
    sentence: Message


@dataclass(frozen=True)
class TimelinePoint:
    """The contract in one window, over its hosts (for the delivered-vs-committed chart)."""

    start: datetime
    end: datetime
    delivered_gbps_min: float | None
    delivered_gbps_mean: float | None
    p99_latency_us_max: float | None
    hosts_measured: int
    hosts_below: int
    hosts_no_data: int
    # servers whose only figure is traffic below the threshold (an idle job, not a test): such a
    # window's figures say how busy the job was, not what the link carries
    hosts_inconclusive: int = 0

    @property
    def idle_only(self) -> bool:
        """Every measured server only showed traffic below the threshold (no test, no breach)."""
        return self.hosts_measured > 0 and self.hosts_inconclusive >= self.hosts_measured


@dataclass(frozen=True)
class MonthReport:
    """One calendar month (in the contract's time zone) within the term.

    Hours are per server (host-hours divided by the number of hosts) so that
    ``compliant_h + breach_h + inconclusive_h + no_data_h == scheduled_h``.
    """

    month: str
    start: datetime
    end: datetime
    fee_amount: Decimal
    scheduled_h: float
    maintenance_h: float
    downtime_h: float
    availability_pct: float | None
    compliant_h: float
    breach_h: float
    inconclusive_h: float
    no_data_h: float
    delivered_gbps_mean: float | None
    credits_pct_uncapped: float
    credits_pct: float
    cap_applied: bool
    credit_amount: Decimal
    claimable_amount: Decimal
    sentence: Message
    #: the month has not ended at ``now``: its availability is so far, and no availability band
    #: is credited until it ends (added 2026-12; a stored report without it reads False)
    in_progress: bool = False


@dataclass(frozen=True)
class DeliveryReport:
    """Everything the contract page, the claim pack and the vendor standing need."""

    currency: str
    commitment: Commitment
    computed_at: datetime
    months: tuple[MonthReport, ...]
    episodes: tuple[Episode, ...]
    credits: tuple[Credit, ...]
    timeline: tuple[TimelinePoint, ...]
    notes: tuple[Message, ...]
    measured_h: float
    delivered_ratio: float | None
    breaches: int
    credit_amount: Decimal
    claimable_amount: Decimal


@dataclass(frozen=True)
class TrackRecord:
    """A vendor's standing over its contracts' reports.

    ``delivered_ratio``: delivered ÷ committed bandwidth over every measured server-hour (each
    window counted at most at 100 %: over-delivery in one hour does not hide a shortfall in
    another); ``None`` when nothing was measured.
    """

    contracts: int
    measured_h: float
    delivered_ratio: float | None
    breaches: int
    credit_amounts: tuple[tuple[str, Decimal], ...]
    sentence: Message


# --- JSON round trip ------------------------------------------------------------------------------


def _dump(value: Any) -> Any:
    if isinstance(value, Message):
        return value.as_dict()
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _dump(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (tuple, list)):
        return [_dump(v) for v in value]
    return value


@cache
def _typed_fields(tp: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's (field name, type) pairs: resolving the annotations once per class, not
    once per stored point (a 90-day term has 2,160 timeline points), made loading a report
    several times faster."""
    hints = get_type_hints(tp)
    return tuple((f.name, hints[f.name]) for f in fields(tp))


def _load(tp: Any, value: Any) -> Any:
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        return None if value is None else _load(args[0], value)
    if origin is tuple:
        parts = get_args(tp)
        if len(parts) == 2 and parts[1] is Ellipsis:
            return tuple(_load(parts[0], v) for v in value)
        return tuple(_load(a, v) for a, v in zip(parts, value, strict=True))
    if tp is Message:
        return Message(str(value["code"]), str(value["en"]), str(value["zh"]))
    if isinstance(tp, type) and is_dataclass(tp):
        return tp(**{name: _load(hint, value[name]) for name, hint in _typed_fields(tp)
                     if name in value})  # fmt: skip
    if tp is datetime:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            raise ValueError("naive datetime in a stored report")
        return moment
    if tp is Decimal:
        return Decimal(value)
    if tp is float:
        return float(value)
    if tp is int:
        return int(value)
    if tp is bool:
        return bool(value)
    if tp is str:
        return str(value)
    return value


def report_to_dict(report: DeliveryReport) -> dict[str, Any]:
    """The report as JSON-safe values (with a format version)."""
    out = _dump(report)
    assert isinstance(out, dict)
    out["version"] = REPORT_VERSION
    return out


def report_from_dict(data: dict[str, Any]) -> DeliveryReport:
    """Rebuild a stored report; raises ``ValueError`` when it is not one this code wrote."""
    if not isinstance(data, dict) or data.get("version") != REPORT_VERSION:
        raise ValueError("not a stored delivery report of this version")
    try:
        report = _load(DeliveryReport, data)
    except (KeyError, TypeError, AttributeError, ArithmeticError) as exc:
        raise ValueError(f"stored delivery report has a bad shape: {exc}") from exc
    assert isinstance(report, DeliveryReport)
    return report


def track_record_to_dict(record: TrackRecord) -> dict[str, Any]:
    out = _dump(record)
    assert isinstance(out, dict)
    return out


def track_record_from_dict(data: dict[str, Any]) -> TrackRecord:
    try:
        record = _load(TrackRecord, data)
    except (KeyError, TypeError, AttributeError, ArithmeticError) as exc:
        raise ValueError(f"stored track record has a bad shape: {exc}") from exc
    assert isinstance(record, TrackRecord)
    return record


def downsample_timeline(
    points: tuple[TimelinePoint, ...] | list[TimelinePoint], max_points: int
) -> list[TimelinePoint]:
    """At most ``max_points`` points for a chart: runs of ``ceil(n / max_points)`` consecutive
    windows merged into one that keeps what a reader looks for — the lowest server's lowest
    figure (a dip stays visible), the mean of the measured means, the highest P99, the most
    servers below and measured; idle-only windows give figures only to a run of nothing else.
    A merged point has no data only when none of its windows had any (a gap narrower than a
    point is not drawn; the months table still counts it)."""
    if max_points < 1:
        raise ValueError("max_points must be at least 1")
    pts = list(points)
    if len(pts) <= max_points:
        return pts
    size = -(-len(pts) // max_points)
    out: list[TimelinePoint] = []
    for i in range(0, len(pts), size):
        run = pts[i : i + size]
        # an idle window's low traffic is not a dip: the figures come from the other windows
        # of the run when it has any
        shown = [p for p in run if not p.idle_only] or run
        mins = [p.delivered_gbps_min for p in shown if p.delivered_gbps_min is not None]
        means = [p.delivered_gbps_mean for p in shown if p.delivered_gbps_mean is not None]
        lats = [p.p99_latency_us_max for p in run if p.p99_latency_us_max is not None]
        out.append(
            TimelinePoint(
                start=run[0].start,
                end=run[-1].end,
                delivered_gbps_min=min(mins) if mins else None,
                delivered_gbps_mean=sum(means) / len(means) if means else None,
                p99_latency_us_max=max(lats) if lats else None,
                hosts_measured=max(p.hosts_measured for p in run),
                hosts_below=max(p.hosts_below for p in run),
                hosts_no_data=min(p.hosts_no_data for p in run),
                hosts_inconclusive=min(p.hosts_inconclusive for p in run),
            )
        )
    return out
