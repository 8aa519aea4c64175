"""What a contract commits and what it pays back when the commitment is not met.

A contract's terms are plain frozen dataclasses; :func:`schedule_problems` and
:func:`terms_problems` say, in both languages, what is wrong with them, and
:func:`schedule_to_dict` / :func:`schedule_from_dict` are the one JSON shape of a compensation
schedule (the app stores it in a JSON field and checks it at the door with ``schedule_from_dict``).

Percentages are percent (``99.9`` means 99.9 %), credits are percent of the month's fee.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from domain.messages import Message

DEFAULT_TZ = "Asia/Shanghai"
OVERRUN_KINDS = ("response", "repair")
OverrunKind = Literal["response", "repair"]


@dataclass(frozen=True)
class Commitment:
    """The figures the vendor signed; ``None`` means the contract does not commit that figure."""

    bandwidth_gbps_per_server: float | None = None
    availability_pct: float | None = None
    p99_latency_us: float | None = None
    response_minutes: float | None = None
    repair_hours: float | None = None


@dataclass(frozen=True)
class AvailabilityBand:
    """A month whose availability is below ``below_pct`` earns ``credit_pct`` % of its fee.

    Of several bands, the worst one the month reaches applies (bands do not add up).
    """

    below_pct: float
    credit_pct: float


@dataclass(frozen=True)
class BandwidthClause:
    """Delivered below ``threshold_fraction`` x committed for at least ``min_duration_minutes``
    earns ``credit_pct_per_hour`` % of the month's fee per shortfall-hour of one server (pro rata
    to that server's share of the fee)."""

    threshold_fraction: float
    min_duration_minutes: float
    credit_pct_per_hour: float


@dataclass(frozen=True)
class LatencyClause:
    """P99 latency above the committed figure for at least ``min_duration_minutes`` earns
    ``credit_pct_per_hour`` % of the month's fee per hour of one server (pro rata, as bandwidth)."""

    min_duration_minutes: float
    credit_pct_per_hour: float


@dataclass(frozen=True)
class OverrunClause:
    """Each hour a response (or repair) takes beyond the committed time earns
    ``credit_pct_per_hour`` % of the month's fee."""

    kind: OverrunKind
    credit_pct_per_hour: float


@dataclass(frozen=True)
class Schedule:
    """The structured compensation schedule of a contract (or of a vendor's SLA)."""

    availability_bands: tuple[AvailabilityBand, ...] = ()
    bandwidth: BandwidthClause | None = None
    overruns: tuple[OverrunClause, ...] = ()
    cap_pct: float = 100.0
    claim_window_days: int = 30
    latency: LatencyClause | None = None


@dataclass(frozen=True)
class MaintenanceWindow:
    """An agreed maintenance window (aware datetimes): its time counts neither way."""

    start: datetime
    end: datetime


@dataclass(frozen=True)
class ContractTerms:
    """Everything the engine needs to know about a signed contract."""

    commitment: Commitment
    schedule: Schedule
    monthly_fee: Decimal
    currency: str
    hosts: tuple[str, ...]
    term_start: datetime
    term_end: datetime
    maintenance: tuple[MaintenanceWindow, ...] = field(default=())
    tz: str = DEFAULT_TZ


class ScheduleShapeError(ValueError):
    """A stored or submitted schedule does not have the expected shape or values."""

    def __init__(self, messages: Sequence[Message]) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        super().__init__("; ".join(m.en for m in self.messages))


# --- checks ---


def _finite(value: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _pct_ok(value: float) -> bool:
    return _finite(value) and 0 <= value <= 100


def _band_problems(bands: Sequence[AvailabilityBand]) -> list[Message]:
    out: list[Message] = []
    for band in bands:
        if not _pct_ok(band.below_pct) or not _pct_ok(band.credit_pct):
            out.append(
                Message(
                    "band_out_of_range",
                    f"An availability band must have its threshold and credit between 0 and 100 % "
                    f"(got below {band.below_pct} %, credit {band.credit_pct} %).",
                    f"可用性档位的阈值和赔付比例须在 0 至 100% 之间（当前为低于 {band.below_pct}%，"
                    f"赔付 {band.credit_pct}%）。",
                )
            )
    thresholds = [b.below_pct for b in bands]
    if len(set(thresholds)) != len(thresholds):
        out.append(
            Message(
                "bands_overlap",
                "Two availability bands have the same threshold: they overlap, so it is not clear "
                "which credit applies.",
                "有两个可用性档位的阈值相同，档位重叠，无法确定适用哪一档赔付。",
            )
        )
    elif thresholds != sorted(thresholds, reverse=True):
        out.append(
            Message(
                "bands_unordered",
                "Availability bands must be listed from the highest threshold to the lowest.",
                "可用性档位须按阈值从高到低排列。",
            )
        )
    else:
        credits = [b.credit_pct for b in bands]
        if any(later < earlier for earlier, later in zip(credits, credits[1:], strict=False)):
            out.append(
                Message(
                    "bands_credit_decreasing",
                    "A lower availability band must earn at least the credit of the band above it.",
                    "可用性越低的档位，赔付比例不应低于其上一档。",
                )
            )
    return out


def _bandwidth_problems(clause: BandwidthClause) -> list[Message]:
    out: list[Message] = []
    if not (_finite(clause.threshold_fraction) and 0 < clause.threshold_fraction <= 1):
        out.append(
            Message(
                "threshold_out_of_range",
                f"The bandwidth threshold is a fraction of the committed figure, above 0 and at "
                f"most 1 (got {clause.threshold_fraction}).",
                f"带宽阈值是承诺值的比例，须大于 0 且不超过 1"
                f"（当前为 {clause.threshold_fraction}）。",
            )
        )
    out += _duration_and_rate("bandwidth", clause.min_duration_minutes, clause.credit_pct_per_hour)
    return out


def _duration_and_rate(what: str, minutes: float, pct_per_hour: float) -> list[Message]:
    out: list[Message] = []
    what_zh = {"bandwidth": "带宽", "latency": "延迟"}.get(what, what)
    if not (_finite(minutes) and minutes >= 0):
        out.append(
            Message(
                f"{what}_min_duration_negative",
                f"The {what} clause's minimum duration must be zero or more minutes.",
                f"{what_zh}条款的最短持续时间须为 0 分钟或以上。",
            )
        )
    if not _pct_ok(pct_per_hour):
        out.append(
            Message(
                f"{what}_rate_out_of_range",
                f"The {what} clause's credit per hour must be between 0 and 100 % of the fee.",
                f"{what_zh}条款的每小时赔付比例须在月费的 0 至 100% 之间。",
            )
        )
    return out


def _overrun_problems(overruns: Sequence[OverrunClause]) -> list[Message]:
    out: list[Message] = []
    kinds = [o.kind for o in overruns]
    if any(k not in OVERRUN_KINDS for k in kinds):
        out.append(
            Message(
                "overrun_kind_unknown",
                "An overrun clause is either for the response time or for the repair time.",
                "超时条款只能针对响应时间或修复时间。",
            )
        )
    if len(set(kinds)) != len(kinds):
        out.append(
            Message(
                "overrun_duplicate",
                "There are two overrun clauses of the same kind; keep one per kind.",
                "同一类超时条款出现了两次，每类只能保留一条。",
            )
        )
    if any(not _pct_ok(o.credit_pct_per_hour) for o in overruns):
        out.append(
            Message(
                "overrun_rate_out_of_range",
                "An overrun clause's credit per hour must be between 0 and 100 % of the fee.",
                "超时条款的每小时赔付比例须在月费的 0 至 100% 之间。",
            )
        )
    return out


def schedule_problems(schedule: Schedule) -> list[Message]:
    """Everything that makes a schedule unusable, each as a bilingual message (empty: usable)."""
    out = _band_problems(schedule.availability_bands)
    if schedule.bandwidth is not None:
        out += _bandwidth_problems(schedule.bandwidth)
    if schedule.latency is not None:
        out += _duration_and_rate(
            "latency", schedule.latency.min_duration_minutes, schedule.latency.credit_pct_per_hour
        )
    out += _overrun_problems(schedule.overruns)
    if not _pct_ok(schedule.cap_pct):
        out.append(
            Message(
                "cap_out_of_range",
                f"The cap on credits must be between 0 and 100 % of the month's fee "
                f"(got {schedule.cap_pct} %).",
                f"赔付上限须在当月费用的 0 至 100% 之间（当前为 {schedule.cap_pct}%）。",
            )
        )
    window = schedule.claim_window_days
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        out.append(
            Message(
                "claim_window_not_positive",
                "The claim window must be a whole number of days, at least one.",
                "索赔期限须为整数天，至少 1 天。",
            )
        )
    return out


def _commitment_problems(c: Commitment) -> list[Message]:
    out: list[Message] = []
    positives = {
        "bandwidth_gbps_per_server": ("committed bandwidth per server", "每台服务器承诺带宽"),
        "p99_latency_us": ("committed P99 latency", "承诺 P99 延迟"),
        "response_minutes": ("committed response time", "承诺响应时间"),
        "repair_hours": ("committed repair time", "承诺修复时间"),
    }
    for name, (en, zh) in positives.items():
        value = getattr(c, name)
        if value is not None and not (_finite(value) and value > 0):
            out.append(
                Message(f"{name}_not_positive", f"The {en} must be above zero.", f"{zh}须大于 0。")
            )
    if c.availability_pct is not None and not (
        _finite(c.availability_pct) and 0 < c.availability_pct <= 100
    ):
        out.append(
            Message(
                "availability_out_of_range",
                "The committed availability must be above 0 and at most 100 %.",
                "承诺可用性须大于 0 且不超过 100%。",
            )
        )
    return out


def _clause_needs_problems(terms: ContractTerms) -> list[Message]:
    """Clauses that refer to a figure the contract does not commit."""
    s, c = terms.schedule, terms.commitment
    out: list[Message] = []
    needs = [
        (s.bandwidth is not None, c.bandwidth_gbps_per_server, "bandwidth", "带宽"),
        (s.latency is not None, c.p99_latency_us, "P99 latency", "P99 延迟"),
        (bool(s.availability_bands), c.availability_pct, "availability", "可用性"),
        (
            any(o.kind == "response" for o in s.overruns),
            c.response_minutes,
            "response time",
            "响应时间",
        ),
        (any(o.kind == "repair" for o in s.overruns), c.repair_hours, "repair time", "修复时间"),
    ]
    for has_clause, committed, en, zh in needs:
        if has_clause and committed is None:
            out.append(
                Message(
                    "clause_without_commitment",
                    f"The schedule has a {en} clause but the contract commits no {en} figure.",
                    f"赔付表中有{zh}条款，但合同没有承诺{zh}指标。",
                )
            )
    if c.availability_pct is not None and any(
        b.below_pct > c.availability_pct for b in s.availability_bands
    ):
        out.append(
            Message(
                "band_above_commitment",
                "An availability band starts above the committed availability: it would credit a "
                "month that met the commitment.",
                "有可用性档位的阈值高于承诺可用性，会对达标的月份也给予赔付。",
            )
        )
    return out


def _term_problems(terms: ContractTerms) -> list[Message]:
    out: list[Message] = []
    stamps = [terms.term_start, terms.term_end]
    stamps += [t for m in terms.maintenance for t in (m.start, m.end)]
    if any(t.tzinfo is None or t.utcoffset() is None for t in stamps):
        out.append(
            Message(
                "naive_datetime",
                "Term and maintenance times must carry their time zone.",
                "合同期限和维护窗口的时间须带时区。",
            )
        )
        return out
    if terms.term_end <= terms.term_start:
        out.append(
            Message(
                "term_not_positive",
                "The term must end after it starts.",
                "合同期限的结束时间须晚于开始时间。",
            )
        )
    if any(m.end <= m.start for m in terms.maintenance):
        out.append(
            Message(
                "maintenance_not_positive",
                "A maintenance window must end after it starts.",
                "维护窗口的结束时间须晚于开始时间。",
            )
        )
    return out


def terms_problems(terms: ContractTerms) -> list[Message]:
    """The schedule's problems plus those of the contract around it (empty: the engine can run)."""
    out = schedule_problems(terms.schedule)
    out += _commitment_problems(terms.commitment)
    out += _clause_needs_problems(terms)
    out += _term_problems(terms)
    if not terms.hosts or len(set(terms.hosts)) != len(terms.hosts) or not all(terms.hosts):
        out.append(
            Message(
                "hosts_invalid",
                "A contract names its servers, each once.",
                "合同须列出其服务器，每台只列一次。",
            )
        )
    if not isinstance(terms.monthly_fee, Decimal) or not terms.monthly_fee.is_finite():
        out.append(Message("fee_invalid", "The monthly fee must be an amount.", "月费须为金额。"))
    elif terms.monthly_fee < 0:
        out.append(
            Message("fee_negative", "The monthly fee cannot be negative.", "月费不能为负数。")
        )
    try:
        ZoneInfo(terms.tz)
    except (ZoneInfoNotFoundError, ValueError):
        out.append(
            Message(
                "tz_unknown",
                f"Unknown time zone {terms.tz!r}.",
                f"未知时区 {terms.tz!r}。",
            )
        )
    return out


# --- JSON shape ---------------------------------------------------------------------------------


def schedule_to_dict(schedule: Schedule) -> dict[str, Any]:
    """The schedule as JSON-safe values (the one stored shape; see :func:`schedule_from_dict`)."""
    bw = schedule.bandwidth
    lat = schedule.latency
    return {
        "availability_bands": [
            {"below_pct": b.below_pct, "credit_pct": b.credit_pct}
            for b in schedule.availability_bands
        ],
        "bandwidth": None
        if bw is None
        else {
            "threshold_fraction": bw.threshold_fraction,
            "min_duration_minutes": bw.min_duration_minutes,
            "credit_pct_per_hour": bw.credit_pct_per_hour,
        },
        "latency": None
        if lat is None
        else {
            "min_duration_minutes": lat.min_duration_minutes,
            "credit_pct_per_hour": lat.credit_pct_per_hour,
        },
        "overruns": [
            {"kind": o.kind, "credit_pct_per_hour": o.credit_pct_per_hour}
            for o in schedule.overruns
        ],
        "cap_pct": schedule.cap_pct,
        "claim_window_days": schedule.claim_window_days,
    }


def _shape(where: str, expected: str) -> Message:
    return Message(
        "schedule_shape",
        f"Compensation schedule: {where} must be {expected}.",
        f"赔付表：{where} 须为{_EXPECTED_ZH.get(expected, expected)}。",
    )


_EXPECTED_ZH = {
    "an object": "对象",
    "a list": "列表",
    "a number": "数字",
    "a whole number": "整数",
    "'response' or 'repair'": "'response' 或 'repair'",
    "an object or null": "对象或 null",
}


class _Reader:
    """Collects shape messages while reading a mapping, so one pass reports every problem."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def obj(self, value: object, where: str) -> Mapping[str, Any] | None:
        if isinstance(value, Mapping):
            unknown = sorted(str(k) for k in value if not isinstance(k, str) or k not in _KNOWN)
            if unknown:
                self.messages.append(
                    Message(
                        "schedule_unknown_key",
                        f"Compensation schedule: unknown field(s) in {where}: "
                        f"{', '.join(unknown)}.",
                        f"赔付表：{where} 中有未知字段：{', '.join(unknown)}。",
                    )
                )
            return value
        self.messages.append(_shape(where, "an object"))
        return None

    def num(self, m: Mapping[str, Any], key: str, where: str) -> float:
        value = m.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.messages.append(_shape(f"{where}.{key}", "a number"))
            return 0.0
        return float(value)

    def whole(self, m: Mapping[str, Any], key: str, where: str) -> int:
        value = m.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            self.messages.append(_shape(f"{where}.{key}", "a whole number"))
            return 0
        return value

    def items(self, m: Mapping[str, Any], key: str) -> list[Any]:
        value = m.get(key, [])
        if not isinstance(value, list):
            self.messages.append(_shape(key, "a list"))
            return []
        return value


_KNOWN = frozenset(
    {
        "availability_bands",
        "bandwidth",
        "latency",
        "overruns",
        "cap_pct",
        "claim_window_days",
        "below_pct",
        "credit_pct",
        "threshold_fraction",
        "min_duration_minutes",
        "credit_pct_per_hour",
        "kind",
    }
)


def _optional(r: _Reader, m: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    value = m.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        r.messages.append(_shape(key, "an object or null"))
        return None
    return r.obj(value, key)


def schedule_from_dict(data: object) -> Schedule:
    """Read a stored schedule; raise :class:`ScheduleShapeError` (a ``ValueError``) with bilingual
    messages when its shape is wrong or :func:`schedule_problems` finds anything."""
    r = _Reader()
    top = r.obj(data, "schedule")
    if top is None:
        raise ScheduleShapeError(r.messages)
    bands = []
    for i, raw in enumerate(r.items(top, "availability_bands")):
        band = r.obj(raw, f"availability_bands[{i}]")
        if band is not None:
            where = f"availability_bands[{i}]"
            bands.append(
                AvailabilityBand(r.num(band, "below_pct", where), r.num(band, "credit_pct", where))
            )
    bandwidth = None
    bw = _optional(r, top, "bandwidth")
    if bw is not None:
        bandwidth = BandwidthClause(
            r.num(bw, "threshold_fraction", "bandwidth"),
            r.num(bw, "min_duration_minutes", "bandwidth"),
            r.num(bw, "credit_pct_per_hour", "bandwidth"),
        )
    latency = None
    lat = _optional(r, top, "latency")
    if lat is not None:
        latency = LatencyClause(
            r.num(lat, "min_duration_minutes", "latency"),
            r.num(lat, "credit_pct_per_hour", "latency"),
        )
    overruns = []
    for i, raw in enumerate(r.items(top, "overruns")):
        o = r.obj(raw, f"overruns[{i}]")
        if o is None:
            continue
        kind = o.get("kind")
        if kind not in OVERRUN_KINDS:
            r.messages.append(_shape(f"overruns[{i}].kind", "'response' or 'repair'"))
            continue
        overruns.append(OverrunClause(kind, r.num(o, "credit_pct_per_hour", f"overruns[{i}]")))
    schedule = Schedule(
        availability_bands=tuple(bands),
        bandwidth=bandwidth,
        overruns=tuple(overruns),
        cap_pct=r.num(top, "cap_pct", "schedule") if "cap_pct" in top else 100.0,
        claim_window_days=r.whole(top, "claim_window_days", "schedule")
        if "claim_window_days" in top
        else 30,
        latency=latency,
    )
    if r.messages:
        raise ScheduleShapeError(r.messages)
    problems = schedule_problems(schedule)
    if problems:
        raise ScheduleShapeError(problems)
    return schedule
