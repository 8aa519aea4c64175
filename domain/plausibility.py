"""Plausible inputs: hard and soft bounds of every quote and workload number.

A value beyond a *hard* bound cannot be real (a 99,999 Gbit/s NIC port, 64 GPUs in one server):
forms, the API and the importer refuse it. A value beyond a *soft* bound is possible but unusual
(a price per GPU far from the market for that card, a 90-month term): the analyst must confirm it,
the confirmation is stored on the quote version, and rankings mark the offer "confirmed outlier".

The checks read plain attributes, so a model instance, a form's cleaned data or a dict wrapped in a
namespace all work. Prices are compared per GPU and month in CNY (before VAT normalisation: the
ranges are wide enough for either). Pure Python.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from domain.messages import Message

HARD = "hard"
SOFT = "soft"


@dataclass(frozen=True, slots=True)
class Finding:
    """One value beyond a bound: `kind` is HARD or SOFT, `field` the input's name."""

    kind: str
    field: str
    value: float
    message: Message
    low: bool = False  # below the bound (else above)

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value, **self.message.as_dict()}


@dataclass(frozen=True, slots=True)
class Bound:
    """[hard_min, hard_max] must hold; [soft_min, soft_max] should. None: no bound that side.
    `above_min`: the hard minimum itself is excluded (availability in (0.9, 1])."""

    en: str
    zh: str
    unit: str = ""
    hard_min: float | None = None
    hard_max: float | None = None
    soft_min: float | None = None
    soft_max: float | None = None
    above_min: bool = False


# Quote version numbers. NIC per port: 1 to 800 Gbit/s (800G is the fastest port sold); at most
# 16 GPUs in one server for every card of the GPU table.
VERSION_BOUNDS: Mapping[str, Bound] = {
    "gpus_per_node": Bound("GPUs per node", "每节点 GPU 数", "", 1, 16, 1, 10),
    "nodes": Bound("nodes", "节点数", "", 1, 100_000, None, 1_024),
    "nic_gbps": Bound("NIC port speed", "网卡端口速率", " Gbit/s", 1, 800, 10, 400),
    "nics_per_node": Bound("NICs per node", "每节点网卡数", "", 1, 32, None, 10),
    "rack_uplink_gbps": Bound("rack uplink", "机架上行带宽", " Gbit/s", 1, 1_000_000, 10, 102_400),
    "servers_per_rack": Bound("servers per rack", "每机架服务器数", "", 1, 128, None, 48),
    "availability": Bound("availability", "可用性", "", 0.9, 1, 0.95, None, above_min=True),
    "term_months": Bound("term", "合同期", " months", 1, 120, None, 60),
    "trial_days": Bound("trial period", "试用期", " days", 0, 365, None, 90),
    "storage_tb": Bound("storage", "存储容量", " TB", 0, 1_000_000, None, 20_000),
    "public_bandwidth_mbps": Bound(
        "public bandwidth", "公网带宽", " Mbit/s", 0, 10_000_000, None, 100_000
    ),
    "price_per_node_month": Bound("price per node and month", "每节点月价", "", 0),
    "monthly_fees": Bound("other monthly fees", "其他月费", "", 0),
    "setup_fee": Bound("set-up fee", "一次性安装费", "", 0),
    "storage_price_tb_month": Bound("storage price per TB and month", "存储每 TB 月价", "", 0),
    "bandwidth_price": Bound("public bandwidth price", "公网带宽单价", "", 0),
    "fx_to_cny": Bound("rate to CNY", "人民币汇率", "", 0, None, None, None, above_min=True),
    # hours to replace a failed server: 0 is no repair at all, a month is the longest SLA seen
    "repair_hours": Bound("repair time", "修复时间", " hours", 0, 720, 0.5, 168, above_min=True),
}

# Typical rent per GPU and month in CNY (2025-26 market, the seeds' range); soft bounds are a fifth
# and four times of it, so only a price far from any market is questioned.
GPU_MONTH_CNY: Mapping[str, float] = {
    "H100-SXM": 12_000, "H800-SXM": 11_000, "H200-SXM": 15_000, "H20": 5_000,
    "H100-PCIe": 9_000, "A100-SXM4-80GB": 5_500, "A100-SXM4-40GB": 4_500,
    "A800-SXM4-80GB": 5_500, "L40S": 3_500, "RTX4090": 1_500, "Ascend910B": 5_000,
}  # fmt: skip
PRICE_LOW, PRICE_HIGH = 0.2, 4.0

# CNY per unit: a rate outside is most likely typed the wrong way round (0.14 for USD).
FX_RANGES: Mapping[str, tuple[float, float]] = {
    "USD": (5.0, 10.0), "EUR": (5.0, 11.0), "HKD": (0.6, 1.3), "JPY": (0.03, 0.1),
    "SGD": (4.0, 7.0),
}  # fmt: skip

WORKLOAD_BOUNDS: Mapping[str, Bound] = {
    "params_b": Bound("parameters", "参数量", " billion", 0, 100_000, 0.1, 2_000, above_min=True),
    "tokens_per_step": Bound("tokens per step", "每步 token 数", "", 1, 1e10, 1e4, 1e8),
    "flops_per_token_factor": Bound(
        "FLOPs per token factor", "每 token FLOPs 系数", "", 1, 24, 6, 8
    ),
    "grad_bytes": Bound("bytes per gradient element", "梯度元素字节数", "", 0.5, 8, 1, 4),
    "overlap": Bound("overlap", "通信重叠比例", "", 0, 1),
    "mfu": Bound("mfu", "MFU", "", 0, 1, 0.1, 0.7, above_min=True),
    "nodes": Bound("nodes used", "使用节点数", "", 1, 100_000, None, 1_024),
    "train_tokens": Bound("tokens of the whole job", "训练总 token 数", "", 1, 1e15, 1e8, 1e14),
}


# Vendor records, keyed by the model's name (vendors/models.py). The network's per-server numbers
# share the quote's bounds: a NIC port is the same NIC wherever it is entered.
VENDOR_BOUNDS: Mapping[str, Mapping[str, Bound]] = {
    "vendor": {
        "registered_capital_cny": Bound(
            "registered capital", "注册资本", " CNY", 0, 1e13, 100_000, 1e11
        ),
        "founded_year": Bound("founding year", "成立年份", "", 1800, 2100, 1949, None),
    },
    "slaterms": {
        # an SLA promises more than 90 %; below 99 % is possible but unusual for GPU rental
        "availability": Bound("SLA availability", "SLA 可用性", "", 0.9, 1, 0.99, None, True),
        "response_minutes": Bound("response time", "响应时间", " minutes", 0, 10_080, None, 240),
        "hw_replacement_hours": Bound(
            "hardware replacement time", "硬件更换时间", " hours", 0, 720, None, 72
        ),
    },
    "datacentre": {
        "power_per_rack_kw": Bound(
            "power per rack", "单机柜功率", " kW", 0, 300, 4, 140, above_min=True
        ),
    },
    "networkprofile": {
        n: VERSION_BOUNDS[n]
        for n in ("nic_gbps", "nics_per_node", "rack_uplink_gbps", "servers_per_rack")
    },
}


def _real(value: Any) -> float | None:
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        x = float(Decimal(str(value)))
    except (InvalidOperation, ValueError, TypeError):
        return None
    return x if math.isfinite(x) else None


# Beyond this a value is named by its order of magnitude: a 1e40 token count was echoed as a
# grouped 41-digit number.
ECHO_DIGITS_MAX = 1e18


def _show(x: float) -> str:
    if abs(x) >= ECHO_DIGITS_MAX:
        return f"{x:.3g}".replace("e+", "×10^")
    return f"{x:,.6g}" if abs(x) < 1e6 else f"{x:,.0f}"


def subnormal(x: float) -> bool:
    """A float so close to 0 that it has lost precision (1e-320): never a typed amount."""
    return x != 0 and abs(x) < sys.float_info.min


def number_problem(value: Any) -> Message | None:
    """Why a JSON value is not a usable number: true/false (JSON booleans are not numbers,
    though Python reads True as 1) or a subnormal float. None when it is fine or not a number
    at all (the field's own parsing says so)."""
    if isinstance(value, bool):
        return Message("number_boolean", f"{str(value).lower()} is not a number; enter a number.",
                       f"{str(value).lower()} 不是数字；请输入数字。")  # fmt: skip
    try:
        x = float(Decimal(str(value))) if value is not None and value != "" else 0.0
    except (InvalidOperation, ValueError, TypeError):
        return None
    if subnormal(x):
        return Message("number_subnormal",
                       f"{value} is too close to 0 to be a real amount; enter 0 or a usual value.",
                       f"{value} 过于接近 0，不是有效数值；请输入 0 或常见数值。")  # fmt: skip
    return None


def _check(name: str, x: float, b: Bound) -> Finding | None:
    label = f"{b.en} {_show(x)}{b.unit}"
    label_zh = f"{b.zh} {_show(x)}{_unit_zh(b.unit)}"
    low_bad = b.hard_min is not None and (x <= b.hard_min if b.above_min else x < b.hard_min)
    # -0 is not "0": a sign typed on an amount that cannot be negative, and a subnormal value
    # (1e-320) next to a lower bound of 0 is noise, not a quantity
    if b.hard_min is not None and b.hard_min >= 0:
        low_bad = low_bad or (x == 0 and math.copysign(1.0, x) < 0) or subnormal(x)
    if low_bad or (b.hard_max is not None and x > b.hard_max):
        rng = _range(b)
        if b.hard_max is not None and x > b.hard_max * 1000:  # not a slip of a digit: no echo
            return Finding(HARD, name, x, low=False, message=Message(
                f"implausible_{name}",
                f"{b.en.capitalize()} is out of range: it must be {rng[0]}.",
                f"{b.zh}超出范围：应{rng[1]}。",
            ))  # fmt: skip
        return Finding(HARD, name, x, low=low_bad, message=Message(
            f"implausible_{name}",
            f"{label} is impossible: it must be {rng[0]}.",
            f"{label_zh} 不可能成立：应{rng[1]}。",
        ))  # fmt: skip
    if (b.soft_min is not None and x < b.soft_min) or (b.soft_max is not None and x > b.soft_max):
        return _unusual(name, x, label, label_zh, b.soft_min, b.soft_max)
    return None


_UNITS_ZH = {
    " months": " 个月", " days": " 天", " hours": " 小时", " minutes": " 分钟",
    " billion": "B", " CNY": " 元",
}  # fmt: skip


def _unit_zh(unit: str) -> str:
    return _UNITS_ZH.get(unit, unit)


def _range(b: Bound) -> tuple[str, str]:
    lo, hi = b.hard_min, b.hard_max
    if lo is not None and hi is not None:
        op = "above" if b.above_min else "from"
        op_zh = "大于" if b.above_min else "介于"
        if b.above_min:
            return (
                f"{op} {_show(lo)} and at most {_show(hi)}",
                f"{op_zh} {_show(lo)} 且不超过 {_show(hi)}",
            )
        return f"{op} {_show(lo)} to {_show(hi)}", f"{op_zh} {_show(lo)} 到 {_show(hi)} 之间"
    if lo is not None:
        if b.above_min:
            return f"above {_show(lo)}", f"大于 {_show(lo)}"
        return f"at least {_show(lo)}", f"不小于 {_show(lo)}"
    return f"at most {_show(hi or 0)}", f"不超过 {_show(hi or 0)}"


def _unusual(
    name: str, x: float, label: str, label_zh: str, lo: float | None, hi: float | None
) -> Finding:
    usual = " – ".join(_show(v) for v in (lo, hi) if v is not None)
    side, side_zh = ("below", "低于") if lo is not None and x < lo else ("above", "高于")
    return Finding(SOFT, name, x, low=side == "below", message=Message(
        f"unusual_{name}",
        f"{label} is {side} the usual range ({usual}); confirm it if it is right.",
        f"{label_zh} {side_zh}常见范围（{usual}）；如确认无误请勾选确认。",
    ))  # fmt: skip


def _checked(bounds: Mapping[str, Bound], get: Callable[[str], Any]) -> list[Finding]:
    out = []
    for name, b in bounds.items():
        x = _real(get(name))
        if x is not None:
            found = _check(name, x, b)
            if found is not None:
                out.append(found)
    return out


def quote_findings(v: Any, gpu_key: str | None = None) -> list[Finding]:
    """Every number of a quote version beyond a bound (attributes as on QuoteVersion)."""
    found = _checked(VERSION_BOUNDS, lambda n: getattr(v, n, None))
    hard = {f.field for f in found if f.kind == HARD}
    currency = str(getattr(v, "currency", "CNY") or "CNY").upper()
    fx = 1.0 if currency == "CNY" else _real(getattr(v, "fx_to_cny", None))
    if currency in FX_RANGES and fx is not None and "fx_to_cny" not in hard:
        lo, hi = FX_RANGES[currency]
        if not lo <= fx <= hi:
            label = f"1 {currency} = {_show(fx)} CNY"
            found.append(_unusual("fx_to_cny", fx, label, label, lo, hi))
    price = _real(getattr(v, "price_per_node_month", None))
    gpus = _real(getattr(v, "gpus_per_node", None))
    typical = GPU_MONTH_CNY.get(gpu_key or "")
    usable = {"price_per_node_month", "gpus_per_node", "fx_to_cny"}.isdisjoint(hard)
    if typical and price is not None and gpus and fx and usable:
        per_gpu = price * fx / gpus
        lo, hi = typical * PRICE_LOW, typical * PRICE_HIGH
        if not lo <= per_gpu <= hi:
            found.append(_unusual(
                "price_per_node_month", per_gpu,
                f"{gpu_key}: {_show(round(per_gpu))} CNY per GPU and month",
                f"{gpu_key}：每 GPU 每月 {_show(round(per_gpu))} 元", lo, hi,
            ))  # fmt: skip
    return found


def workload_findings(w: Any) -> list[Finding]:
    """Every number of a training workload beyond a bound."""
    return _checked(WORKLOAD_BOUNDS, lambda n: getattr(w, n, None))


def vendor_findings(kind: str, get: Callable[[str], Any]) -> list[Finding]:
    """Every number of a vendor record beyond a bound; `kind` is a key of VENDOR_BOUNDS (an
    unknown kind has no bounds), `get(name)` reads a field's value."""
    return _checked(VENDOR_BOUNDS.get(kind, {}), get)


def split(found: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(hard, soft)"""
    return [f for f in found if f.kind == HARD], [f for f in found if f.kind == SOFT]


CONFIRM_NEEDED = Message(
    "outliers_not_confirmed",
    "Some values are unusual; check them and confirm to save: tick “I confirm these unusual "
    "values” (API: confirm_outliers true; import: a confirm_outliers column with yes).",
    "部分数值不常见；请核对后确认再保存：勾选“我确认这些不常见的数值”"
    "（API：confirm_outliers 设为 true；导入：confirm_outliers 列填“是”）。",
)
