"""Monthly cost of public (Internet) bandwidth under the usual billing plans (DOMAIN.md §6).

Public bandwidth serves inference and data transfer, not gradient sync, so it is billed apart from
the training fabric. Three plans are common in the Chinese rental market (seed 004): fixed
bandwidth (固定带宽), per-traffic (按流量) and peak / burstable billing (峰值计费), usually at the
95th percentile of 5-minute samples. A traffic profile stands for one billing month; costs are in
the plan's own currency.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from domain.messages import Message

FIVE_MINUTES_S = 300.0
# Mbit/s times seconds gives Mbit; 8 Mbit make a MB and 1,000 MB a GB (carriers bill decimal GB).
_MBIT_PER_GB = 8_000.0


class BillingError(Exception):
    """Unusable billing input; `message` says what to fix, `bad_rows` lists CSV row numbers."""

    def __init__(self, message: Message, bad_rows: tuple[int, ...] = ()) -> None:
        self.message = message
        self.bad_rows = bad_rows
        super().__init__(message.en)


def _error(code: str, en: str, zh: str, bad_rows: tuple[int, ...] = ()) -> BillingError:
    return BillingError(Message(code, en, zh), bad_rows)


def _check_amount(name: str, value: float, *, positive: bool = False) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (positive and value == 0):
        rule_en, rule_zh = ("above 0", "大于 0") if positive else ("0 or more", "不小于 0")
        raise _error(
            f"billing_{name}_invalid",
            f"{name} must be a number {rule_en}; got {value!r}.",
            f"{name} 必须为{rule_zh}的数，当前为 {value!r}。",
        )


@dataclass(frozen=True, slots=True)
class FixedPlan:
    """Pay `price_month` for `mbps` of capacity; traffic above it is not carried."""

    kind: ClassVar[str] = "fixed"
    mbps: float
    price_month: float


@dataclass(frozen=True, slots=True)
class PerGbPlan:
    """Pay per GB transferred beyond `included_gb`."""

    kind: ClassVar[str] = "per_gb"
    price_per_gb: float
    included_gb: float = 0.0


@dataclass(frozen=True, slots=True)
class Percentile95Plan:
    """Pay per Mbps of the month's 95th-percentile 5-minute sample, at least `commit_mbps`."""

    kind: ClassVar[str] = "percentile95"
    price_per_mbps_month: float
    commit_mbps: float = 0.0


Plan = FixedPlan | PerGbPlan | Percentile95Plan


@dataclass(frozen=True, slots=True)
class TrafficProfile:
    """One billing month of traffic as evenly spaced samples in Mbit/s."""

    samples_mbps: tuple[float, ...]
    interval_s: float = FIVE_MINUTES_S

    @classmethod
    def from_samples(
        cls, samples_mbps: Iterable[float], interval_s: float = FIVE_MINUTES_S
    ) -> TrafficProfile:
        samples = tuple(float(s) for s in samples_mbps)
        _check_amount("interval_s", interval_s, positive=True)
        if not samples:
            raise _error(
                "billing_no_samples", "The traffic profile has no samples.", "流量曲线没有采样点。"
            )
        bad = [i for i, s in enumerate(samples, 1) if not (math.isfinite(s) and s >= 0)]
        if bad:
            first_bad = samples[bad[0] - 1]
            raise _error(
                "billing_bad_samples",
                f"Samples must be finite and 0 or more; sample {bad[0]} is {first_bad!r}.",
                f"采样值必须为不小于 0 的有限数；第 {bad[0]} 个采样为 {first_bad!r}。",
            )
        return cls(samples, float(interval_s))

    @classmethod
    def simple(
        cls,
        mean_mbps: float,
        peak_mbps: float,
        hours_at_peak_per_day: float,
        *,
        days: int = 30,
        interval_s: float = FIVE_MINUTES_S,
    ) -> TrafficProfile:
        """A month of `days` days of samples, each day the same: first its peak hours at
        `peak_mbps` (rounded to whole samples, at least one when hours > 0), then a flat base
        chosen so that the month's mean is `mean_mbps`. Where the peak sits in the day does not
        change any plan's bill, only how many samples are at the peak.
        """
        for name, value in (("mean_mbps", mean_mbps), ("peak_mbps", peak_mbps)):
            _check_amount(name, value)
        _check_amount("hours_at_peak_per_day", hours_at_peak_per_day)
        per_day = round(86_400 / interval_s)
        at_peak = min(per_day, round(hours_at_peak_per_day * 3600 / interval_s))
        at_peak = max(at_peak, 1 if hours_at_peak_per_day > 0 else 0)
        base = mean_mbps if at_peak == 0 else _base_level(mean_mbps, peak_mbps, at_peak, per_day)
        day = (float(peak_mbps),) * at_peak + (base,) * (per_day - at_peak)
        return cls.from_samples(day * days, interval_s)

    @property
    def peak_mbps(self) -> float:
        return max(self.samples_mbps)

    @property
    def monthly_gb(self) -> float:
        return math.fsum(self.samples_mbps) * self.interval_s / _MBIT_PER_GB

    def percentile95_mbps(self) -> float:
        """Sort the samples, drop the top 5% (432 of 8,640) and return the highest remaining."""
        ordered = sorted(self.samples_mbps)
        dropped = len(ordered) * 5 // 100
        return ordered[len(ordered) - dropped - 1]


def _base_level(mean: float, peak: float, at_peak: int, per_day: int) -> float:
    if peak < mean or (at_peak == per_day and not math.isclose(peak, mean)):
        raise _error(
            "billing_peak_below_mean",
            f"peak_mbps ({peak:g}) must be at least mean_mbps ({mean:g}), and equal it when the "
            "peak lasts all day.",
            f"peak_mbps（{peak:g}）不能小于 mean_mbps（{mean:g}），全天峰值时两者必须相等。",
        )
    if at_peak == per_day:
        return float(peak)
    base = (mean * per_day - peak * at_peak) / (per_day - at_peak)
    if base < 0:
        raise _error(
            "billing_mean_too_low",
            f"A mean of {mean:g} Mbps cannot include {at_peak} peak samples a day at {peak:g} "
            "Mbps; raise the mean or shorten the peak.",
            f"平均 {mean:g} Mbps 无法容纳每天 {at_peak} 个 {peak:g} Mbps 的峰值采样；"
            "请提高平均值或缩短峰值时长。",
        )
    return base


@dataclass(frozen=True, slots=True)
class BillingResult:
    plan: Plan
    plan_kind: str
    cost: float
    billed_mbps: float | None
    billed_gb: float | None
    carries_peak: bool
    warnings: tuple[Message, ...]


def monthly_cost(plan: Plan, profile: TrafficProfile) -> BillingResult:
    """The month's bill for the profile under the plan."""
    if isinstance(plan, FixedPlan):
        return _fixed(plan, profile)
    if isinstance(plan, PerGbPlan):
        _check_amount("price_per_gb", plan.price_per_gb)
        _check_amount("included_gb", plan.included_gb)
        billed_gb = max(0.0, profile.monthly_gb - plan.included_gb)
        cost = float(billed_gb * plan.price_per_gb)
        return BillingResult(plan, plan.kind, cost, None, billed_gb, True, ())
    return _percentile95(plan, profile)


def _fixed(plan: FixedPlan, profile: TrafficProfile) -> BillingResult:
    _check_amount("mbps", plan.mbps, positive=True)
    _check_amount("price_month", plan.price_month)
    over = [s for s in profile.samples_mbps if s > plan.mbps]
    warnings: tuple[Message, ...] = ()
    if over:
        share = 100.0 * len(over) / len(profile.samples_mbps)
        lost_gb = math.fsum(s - plan.mbps for s in over) * profile.interval_s / _MBIT_PER_GB
        warnings = (
            Message(
                "fixed_plan_peak_not_carried",
                f"Traffic above the fixed {plan.mbps:g} Mbps is not carried: {len(over)} samples "
                f"({share:.1f}% of the time) exceed it, up to {profile.peak_mbps:g} Mbps, about "
                f"{lost_gb:.1f} GB a month.",
                f"超出固定带宽 {plan.mbps:g} Mbps 的流量无法承载：{len(over)} 个采样"
                f"（{share:.1f}% 的时间）超出，峰值 {profile.peak_mbps:g} Mbps，"
                f"每月约 {lost_gb:.1f} GB。",
            ),
        )
    cost, capacity = float(plan.price_month), float(plan.mbps)
    return BillingResult(plan, plan.kind, cost, capacity, None, not over, warnings)


def _percentile95(plan: Percentile95Plan, profile: TrafficProfile) -> BillingResult:
    _check_amount("price_per_mbps_month", plan.price_per_mbps_month)
    _check_amount("commit_mbps", plan.commit_mbps)
    p95 = profile.percentile95_mbps()
    billed = float(max(p95, plan.commit_mbps))
    warnings: list[Message] = []
    if plan.commit_mbps > p95:
        warnings.append(
            Message(
                "commit_above_usage",
                f"The {plan.commit_mbps:g} Mbps commitment is above the 95th percentile "
                f"({p95:g} Mbps): the month is billed at the commitment.",
                f"承诺带宽 {plan.commit_mbps:g} Mbps 高于 95 计费值（{p95:g} Mbps），"
                "本月按承诺带宽计费。",
            )
        )
    if profile.interval_s != FIVE_MINUTES_S:
        warnings.append(
            Message(
                "samples_not_five_minute",
                "95th-percentile billing uses 5-minute samples; these are "
                f"{profile.interval_s:g} s apart, so the bill is an estimate.",
                f"95 计费按 5 分钟采样计算；当前采样间隔为 {profile.interval_s:g} 秒，"
                "结果仅为估算。",
            )
        )
    cost = float(billed * plan.price_per_mbps_month)
    return BillingResult(plan, plan.kind, cost, billed, None, True, tuple(warnings))


def cheapest(plans: Sequence[Plan], profile: TrafficProfile) -> BillingResult:
    """The cheapest plan that carries the peak; if none does, the cheapest of all (it warns)."""
    if not plans:
        raise _error(
            "billing_no_plans", "Give at least one plan to compare.", "请至少提供一种计费方案。"
        )
    results = [monthly_cost(plan, profile) for plan in plans]
    carrying = [r for r in results if r.carries_peak] or results
    return min(carrying, key=lambda r: r.cost)


# ---------------------------------------------------------------------------------------------
# CSV of 5-minute samples

# Unit named in the header -> factor to Mbit/s; "bytes" are bytes moved in one sample interval.
_UNITS = {"bps": 1e-6, "kbps": 1e-3, "mbps": 1.0, "gbps": 1e3, "bytes": None}
_TIME_COLUMNS = {"timestamp", "time", "date", "datetime", "ts"}


def _unit_of(column: str) -> str | None:
    tokens = re.findall(r"[a-z0-9]+", column.lower())
    return tokens[-1] if tokens and tokens[-1] in _UNITS else None


def parse_samples_csv(
    text_lines: Iterable[str], *, interval_s: float = FIVE_MINUTES_S
) -> tuple[float, ...]:
    """Samples in Mbit/s from a CSV such as `timestamp,mbps`; several unit columns (in and out)
    give one sample each row, the larger, as carriers bill the busier direction."""
    reader = csv.reader(line.lstrip("\ufeff") for line in text_lines)
    header = next((row for row in reader if any(cell.strip() for cell in row)), None)
    if header is None:
        raise _error("csv_empty", "The CSV file is empty.", "CSV 文件为空。")
    columns = [(i, _unit_of(name)) for i, name in enumerate(header)]
    units = [(i, unit) for i, unit in columns if unit is not None]
    if not units:
        raise _header_error(header)
    samples: list[float] = []
    bad_rows: list[int] = []
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        values = [_cell_mbps(row, i, unit, interval_s) for i, unit in units]
        if any(v is None for v in values):
            bad_rows.append(reader.line_num)
        else:
            samples.append(max(v for v in values if v is not None))
    if bad_rows:
        raise _bad_rows_error(tuple(bad_rows))
    if not samples:
        raise _error(
            "csv_no_samples",
            "The CSV file has a header but no samples.",
            "CSV 文件只有表头，没有采样数据。",
        )
    return tuple(samples)


def _cell_mbps(row: list[str], index: int, unit: str, interval_s: float) -> float | None:
    try:
        value = float(row[index])
    except (IndexError, ValueError):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    factor = _UNITS[unit]
    return value * 8 / interval_s / 1e6 if factor is None else value * factor


def _header_error(header: list[str]) -> BillingError:
    known = ", ".join(_UNITS)
    named = [c for c in header if c.strip() and c.strip().lower() not in _TIME_COLUMNS]
    if not named or all(_is_number(c) for c in named):
        return _error(
            "csv_missing_unit",
            f"The CSV needs a header that states the unit, such as timestamp,mbps ({known}).",
            f"CSV 需要注明单位的表头，例如 timestamp,mbps（可用：{known}）。",
        )
    return _error(
        "csv_unknown_unit",
        f"Unknown unit in the CSV header {','.join(header)!r}; use one of {known}.",
        f"CSV 表头 {','.join(header)!r} 中的单位无法识别；请使用 {known} 之一。",
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _bad_rows_error(rows: tuple[int, ...]) -> BillingError:
    more = len(rows) - 10
    listed_en = ", ".join(str(r) for r in rows[:10]) + (f" and {more} more" if more > 0 else "")
    listed_zh = "、".join(str(r) for r in rows[:10]) + (f" 行等共 {len(rows)}" if more > 0 else "")
    return _error(
        "csv_bad_rows",
        f"Rows without a valid number of 0 or more in every unit column: {listed_en}.",
        f"以下行的单位列缺少有效的非负数值：第 {listed_zh} 行。",
        rows,
    )
