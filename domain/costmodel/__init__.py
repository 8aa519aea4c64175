"""Cost per effective training hour (ETH) of rental offers, exactly as fixed in COST-MODEL.md.

Pure Python and numpy: the Django layer loads the GPU table from its database and passes it in, so
the model never reads data on its own. Every figure of COST-MODEL.md steps 1-8 is in the result.
Offers are evaluated column-wise with numpy because ranking 10,000 offers must take well under
0.1 s; `offer_problems` stays the per-offer authority on what is wrong with an input.

Currency: `rank` compares offers in one currency only. If every offer has the same currency and no
`fx_to_cny` is given, results keep that currency; otherwise every offer is converted to CNY (results
then say `currency="CNY"`) and an offer whose currency has no rate becomes a problem, never a guess.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields, make_dataclass
from functools import lru_cache
from operator import attrgetter
from typing import Any

import numpy as np

from domain.messages import Message

HOURS_PER_MONTH = 730.0
REFERENCE_GPU = "H100-SXM"
FABRIC_EFFICIENCY: Mapping[str, float] = {"tcp": 0.55, "roce": 0.90, "ib": 0.95}
STRATEGY_FACTOR: Mapping[str, float] = {
    "ddp": 1.0,
    "zero1": 1.0,
    "zero2": 1.0,
    "fsdp": 1.5,
    "zero3": 1.5,
}
MEASURED_KINDS = ("link", "collective")


@dataclass(frozen=True, slots=True)
class GpuSpec:
    key: str
    tflops_bf16: float
    memory_gb: float
    intra_node_gbyte_s: float
    default_mfu: float


# Seed rows of the admin-editable GPU table; Ascend 910B's figure is FP16 (no BF16 one published).
DEFAULT_GPU_TABLE: tuple[GpuSpec, ...] = (
    GpuSpec("H100-SXM", 989.0, 80.0, 450.0, 0.45),
    GpuSpec("H800-SXM", 989.0, 80.0, 200.0, 0.45),
    GpuSpec("H200-SXM", 989.0, 141.0, 450.0, 0.45),
    GpuSpec("H20", 148.0, 96.0, 450.0, 0.45),
    GpuSpec("H100-PCIe", 756.0, 80.0, 63.0, 0.40),
    GpuSpec("A100-SXM4-80GB", 312.0, 80.0, 300.0, 0.50),
    GpuSpec("A100-SXM4-40GB", 312.0, 40.0, 300.0, 0.50),
    GpuSpec("A800-SXM4-80GB", 312.0, 80.0, 200.0, 0.50),
    GpuSpec("L40S", 362.0, 48.0, 31.0, 0.35),
    GpuSpec("RTX4090", 165.0, 24.0, 31.0, 0.35),
    GpuSpec("Ascend910B", 320.0, 64.0, 56.0, 0.40),
)


def default_gpus() -> dict[str, GpuSpec]:
    """The default GPU table keyed by GPU key, as `evaluate` and `rank` expect it."""
    return {spec.key: spec for spec in DEFAULT_GPU_TABLE}


@dataclass(frozen=True, slots=True)
class Workload:
    params_b: float
    tokens_per_step: float
    flops_per_token_factor: float = 6.0
    grad_bytes: float = 2.0
    strategy: str = "ddp"
    overlap: float = 0.5
    mfu: float | None = None
    nodes: int | None = None
    train_tokens: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Offer:
    id: str
    gpu: str
    gpus_per_node: int
    nodes: int
    price_per_node_month: float
    currency: str = "CNY"
    monthly_fees: float = 0.0
    nic_gbps: float
    nics_per_node: int = 1
    fabric: str
    rack_uplink_gbps: float | None = None
    servers_per_rack: int | None = None
    measured_gbps: float | None = None
    measured_kind: str = "link"
    availability: float = 0.99
    measured_p50_gbps: float | None = None
    whole_offer_only: bool = False
    pfc: bool | None = None
    ecn: bool | None = None
    vendor_flags: tuple[Message, ...] = ()
    label: str = ""


@dataclass(frozen=True, slots=True)
class Scenario:
    """Uniform what-if adjustments; `mfu_scale` applies to the reference GPU's mfu as well."""

    mfu_scale: float = 1.0
    bandwidth_scale: float = 1.0


BASE_SCENARIO = Scenario()


@dataclass(frozen=True, slots=True)
class OfferResult:
    rank: int
    offer_id: str
    cost_per_eth: float
    cost_per_eth_low: float
    cost_per_eth_high: float
    currency: str
    step_time_s: float
    compute_time_s: float
    comm_time_s: float
    exposed_comm_s: float
    utilisation: float
    eth_per_hour: float
    hourly_cost: float
    job_hours: float | None
    job_cost: float | None
    bandwidth_gbps: float
    bandwidth_basis: str
    nodes_used: int
    oversubscription: float
    volume_bytes: float
    tokens_per_gpu_to_hide_comm: float
    warnings: tuple[Message, ...]


# A frozen dataclass's __init__ costs about 4 us for 22 fields, too slow for 10,000 results; `rank`
# fills this mutable twin with the same slots and then turns each instance into an OfferResult.
_ResultTwin = make_dataclass(
    "_ResultTwin", [(f.name, f.type) for f in fields(OfferResult)], slots=True
)


@dataclass(frozen=True, slots=True)
class OfferProblem:
    offer_id: str
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class RankingOutcome:
    results: tuple[OfferResult, ...]
    problems: tuple[OfferProblem, ...]

    @property
    def winner(self) -> OfferResult | None:
        return self.results[0] if self.results else None


class ModelInputError(Exception):
    """Impossible model inputs; each message names the field to fix."""

    def __init__(self, messages: Iterable[Message]) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        super().__init__("; ".join(m.en for m in self.messages))


# ---------------------------------------------------------------------------------------------
# Input validation: per-offer messages

_KIND_TEXT: Mapping[str, tuple[str, str]] = {
    "not_positive": ("must be a positive number", "必须为正数"),
    "not_whole": ("must be a positive whole number", "必须为正整数"),
    "negative": ("must be a number of zero or more", "必须为不小于 0 的数"),
    "out_of_range": ("must be a number in {rng}", "必须为 {rng} 范围内的数"),
    "unknown": ("must be one of {rng}", "必须是以下之一：{rng}"),
    "exceeds_offer": ("must not exceed the offer's {rng} nodes", "不能超过报价的 {rng} 个节点"),
    "below_p5": ("must be at least measured_gbps ({rng})", "不能小于 measured_gbps（{rng}）"),
    "empty": ("must be a non-empty text", "必须为非空文本"),
    "bad_code": (
        "must be a three-letter code in capitals such as CNY",
        "必须为三位大写货币代码，如 CNY",
    ),
    "bad_row": (
        "must be a GPU table row with positive TFLOPS and default mfu in (0, 1]",
        "必须是 TFLOPS 为正、默认 mfu 在 (0, 1] 内的 GPU 表行",
    ),
    "missing_row": ("must have the reference GPU {rng} as a row", "必须包含参考 GPU {rng} 这一行"),
    "duplicate": ("must be unique within one ranking", "在同一次排名中必须唯一"),
    "wrong_type": ("must be of type {rng}", "类型必须为 {rng}"),
    "not_object": ("must be a JSON object", "必须为 JSON 对象"),
    "not_list": ("must be a JSON list", "必须为 JSON 列表"),
}


def field_message(owner: str, name: str, kind: str, got: object, rng: str = "") -> Message:
    """A validation message whose code and text name the field (`offer_nodes_not_whole`)."""
    en, zh = _KIND_TEXT[kind]
    return Message(
        f"{owner}_{name}_{kind}",
        f"{owner}.{name} {en.format(rng=rng)}; got {got!r}.",
        f"{owner}.{name} {zh.format(rng=rng)}，当前为 {got!r}。",
    )


def _real(x: object) -> float | None:
    """The value as a finite float, or None (bool, Decimal and text are not numbers here)."""
    if type(x) is float or type(x) is int:
        try:
            f = float(x)
        except OverflowError:
            return None
        return f if math.isfinite(f) else None
    return None


_PASSES: Mapping[str, Callable[[float], bool]] = {
    "not_positive": lambda v: v > 0,
    "negative": lambda v: v >= 0,
    "[0, 1]": lambda v: 0 <= v <= 1,
    "(0, 1]": lambda v: 0 < v <= 1,
}
# (field, None allowed, problem kind, range): the checks of COST-MODEL.md's input tables.
_Rules = tuple[tuple[str, bool, str, str], ...]
_WORKLOAD_RULES: _Rules = (
    ("params_b", False, "not_positive", ""),
    ("tokens_per_step", False, "not_positive", ""),
    ("flops_per_token_factor", False, "not_positive", ""),
    ("grad_bytes", False, "not_positive", ""),
    ("overlap", False, "out_of_range", "[0, 1]"),
    ("mfu", True, "out_of_range", "(0, 1]"),
    ("nodes", True, "not_whole", ""),
    ("train_tokens", True, "not_positive", ""),
)
_OFFER_RULES: _Rules = (
    ("gpus_per_node", False, "not_whole", ""),
    ("nodes", False, "not_whole", ""),
    ("nics_per_node", False, "not_whole", ""),
    ("servers_per_rack", True, "not_whole", ""),
    ("price_per_node_month", False, "negative", ""),
    ("monthly_fees", False, "negative", ""),
    ("nic_gbps", False, "not_positive", ""),
    ("rack_uplink_gbps", True, "not_positive", ""),
    ("measured_gbps", True, "not_positive", ""),
    ("measured_p50_gbps", True, "not_positive", ""),
    ("availability", False, "out_of_range", "(0, 1]"),
)


def _rule_problems(owner: str, obj: object, rules: _Rules) -> list[Message]:
    out: list[Message] = []
    for name, optional, kind, rng in rules:
        value = getattr(obj, name)
        if value is None and optional:
            continue
        if kind == "not_whole":
            ok = type(value) is int and value >= 1
        else:
            real = _real(value)
            ok = real is not None and _PASSES[rng or kind](real)
        if not ok:
            out.append(field_message(owner, name, kind, value, rng))
    return out


def _choice(owner: str, name: str, value: object, options: Iterable[str]) -> list[Message]:
    if isinstance(value, str) and value in options:
        return []
    return [field_message(owner, name, "unknown", value, ", ".join(options))]


def workload_problems(w: Workload) -> list[Message]:
    out = _rule_problems("workload", w, _WORKLOAD_RULES)
    return out + _choice("workload", "strategy", w.strategy, STRATEGY_FACTOR)


def _currency_ok(cur: object) -> bool:
    return (
        isinstance(cur, str) and len(cur) == 3 and cur.isascii() and cur.isalpha() and cur.isupper()
    )


def offer_problems(o: Offer, w: Workload, gpus: Mapping[str, GpuSpec]) -> list[Message]:
    """What is impossible about an offer for this workload (empty when it can be evaluated)."""
    out = _rule_problems("offer", o, _OFFER_RULES)
    out += _choice("offer", "gpu", o.gpu, gpus) or _gpu_spec_problems(gpus[o.gpu])
    out += _choice("offer", "fabric", o.fabric, FABRIC_EFFICIENCY)
    out += _choice("offer", "measured_kind", o.measured_kind, MEASURED_KINDS)
    if not isinstance(o.id, str) or not o.id:
        out.append(field_message("offer", "id", "empty", o.id))
    if not _currency_ok(o.currency):
        out.append(field_message("offer", "currency", "bad_code", o.currency))
    p5, p50 = _real(o.measured_gbps), _real(o.measured_p50_gbps)
    if p50 is not None and (p5 is None or p50 < p5):
        out.append(field_message("offer", "measured_p50_gbps", "below_p5", p50, repr(p5)))
    if type(o.nodes) is int and type(w.nodes) is int and w.nodes > o.nodes:
        out.append(field_message("workload", "nodes", "exceeds_offer", w.nodes, str(o.nodes)))
    return out


def _gpu_spec_problems(spec: GpuSpec) -> list[Message]:
    if (_real(spec.tflops_bf16) or 0.0) > 0 and 0 < (_real(spec.default_mfu) or 0.0) <= 1:
        return []
    return [field_message("gpus", "spec", "bad_row", spec)]


def _reference(w: Workload, gpus: Mapping[str, GpuSpec], sc: Scenario) -> GpuSpec:
    """Validate the workload, scenario and reference GPU once per ranking; raise on any."""
    problems = workload_problems(w)
    problems += _rule_problems("scenario", sc, _SCENARIO_RULES)
    ref = gpus.get(REFERENCE_GPU)
    if ref is None:
        problems.append(field_message("gpus", "reference", "missing_row", None, REFERENCE_GPU))
    else:
        problems += _gpu_spec_problems(ref)
    if problems:
        raise ModelInputError(problems)
    assert ref is not None
    return ref


_SCENARIO_RULES: _Rules = (
    ("mfu_scale", False, "not_positive", ""),
    ("bandwidth_scale", False, "not_positive", ""),
)


def _fx_rate(currency: str, target: str | None, fx: Mapping[str, float]) -> float | Message:
    if target is None or currency == target:
        return 1.0
    rate = _real(fx.get(currency))
    if rate is None or rate <= 0:
        return Message(
            "offer_currency_no_fx_rate",
            f"offer.currency {currency} has no valid rate to CNY in fx_to_cny; add one so the "
            "offer can be compared.",
            f"offer.currency {currency} 在 fx_to_cny 中没有有效的人民币汇率，请补充后再比较。",
        )
    return rate


# ---------------------------------------------------------------------------------------------
# Column-wise screening and evaluation

_COLUMNS = (
    "id", "gpu", "gpus_per_node", "nodes", "price_per_node_month", "currency", "monthly_fees",
    "nic_gbps", "nics_per_node", "fabric", "rack_uplink_gbps", "servers_per_rack", "measured_gbps",
    "measured_kind", "availability", "measured_p50_gbps", "whole_offer_only", "pfc", "ecn",
    "vendor_flags",
)  # fmt: skip
_WHOLE = ("gpus_per_node", "nodes", "nics_per_node", "servers_per_rack")
_REALS = ("price_per_node_month", "monthly_fees", "nic_gbps", "availability")
_OPTIONAL = ("rack_uplink_gbps", "servers_per_rack", "measured_gbps", "measured_p50_gbps")
_Array = np.ndarray[Any, Any]


@dataclass(slots=True)
class _Table:
    """Offers as columns: raw values, and numbers as floats (nan where None or not a number)."""

    raw: dict[str, list[Any]]
    num: dict[str, _Array]
    none: dict[str, _Array]

    @classmethod
    def of(cls, offers: Sequence[Offer]) -> _Table:
        raw = {name: list(map(attrgetter(name), offers)) for name in _COLUMNS}
        num, none = {}, {}
        for name in {*_WHOLE, *_REALS, *_OPTIONAL}:
            allowed = {int, type(None)} if name in _WHOLE else {int, float, type(None)}
            col, kinds = raw[name], set(map(type, raw[name]))
            if not kinds <= allowed:
                col = [x if type(x) in allowed else math.nan for x in col]
            if type(None) in kinds:  # np.array turns None into nan; fromiter is faster without
                num[name] = np.array(col, dtype=float).reshape(len(col))
                none[name] = np.array([x is None for x in col], dtype=bool).reshape(len(col))
            else:
                num[name] = np.fromiter(col, float, len(col))
                none[name] = np.zeros(len(col), dtype=bool)
        return cls(raw, num, none)

    def take(self, keep: list[int]) -> _Table:
        raw = {name: [col[i] for i in keep] for name, col in self.raw.items()}
        num = {name: col[keep] for name, col in self.num.items()}
        return _Table(raw, num, {name: col[keep] for name, col in self.none.items()})


def _member(col: list[Any], options: Iterable[object]) -> _Array:
    valid = {x for x in set(col) if x in options}
    return np.array([x in valid for x in col], dtype=bool).reshape(len(col))


def _fast_valid(t: _Table, w: Workload, gpus: Mapping[str, GpuSpec]) -> _Array:
    """True where `offer_problems` would find nothing; the messages are built only for the rest."""
    raw, num, none = t.raw, t.num, t.none
    ok = _member(raw["gpu"], [k for k, s in gpus.items() if not _gpu_spec_problems(s)])
    ok &= _member(raw["fabric"], FABRIC_EFFICIENCY) & _member(raw["measured_kind"], MEASURED_KINDS)
    ok &= _member(raw["currency"], [x for x in set(raw["currency"]) if _currency_ok(x)])
    ok &= np.array([type(x) is str and x != "" for x in raw["id"]], dtype=bool).reshape(len(ok))
    for name in _WHOLE:
        ok &= (num[name] >= 1) | (none[name] & (name in _OPTIONAL))
    for name in ("price_per_node_month", "monthly_fees"):
        ok &= (num[name] >= 0) & np.isfinite(num[name])
    for name in ("nic_gbps", "rack_uplink_gbps", "measured_gbps", "measured_p50_gbps"):
        ok &= ((num[name] > 0) & np.isfinite(num[name])) | (none[name] & (name in _OPTIONAL))
    ok &= (num["availability"] > 0) & (num["availability"] <= 1)
    ok &= none["measured_p50_gbps"] | (num["measured_p50_gbps"] >= num["measured_gbps"])
    if w.nodes is not None:
        ok &= num["nodes"] >= w.nodes
    return ok


def _evaluate(
    w: Workload,
    t: _Table,
    gpus: Mapping[str, GpuSpec],
    ref: GpuSpec,
    sc: Scenario,
    rates: _Array,
    currencies: list[str],
) -> tuple[list[Any], _Array]:
    """COST-MODEL.md steps 1-8 for valid offers: OfferResult columns without the rank, and costs."""
    raw, num, size = t.raw, t.num, len(rates)
    n = num["nodes"] if w.nodes is None else np.full(size, float(w.nodes))
    peak, mfu, capacity = _capacity(w, t, gpus, ref, sc, n)
    params = w.params_b * 1e9
    t_c = (
        w.flops_per_token_factor
        * params
        * w.tokens_per_step
        / (n * num["gpus_per_node"] * peak * mfu)
    )
    volume = STRATEGY_FACTOR[w.strategy] * 2.0 * (n - 1) / n * params * w.grad_bytes
    b, measured, oversub = _bandwidth(t, n)
    b *= sc.bandwidth_scale
    hidden = w.overlap * t_c
    t_x = 8.0 * volume / (b * 1e9)
    t_e = np.maximum(0.0, t_x - hidden)
    t_s = t_c + t_e
    eth = capacity * t_c / t_s
    billed = np.where(np.array(raw["whole_offer_only"], dtype=bool), num["nodes"], n)
    hourly = (billed * num["price_per_node_month"] + num["monthly_fees"]) * rates / HOURS_PER_MONTH
    cost = hourly / eth
    # B is proportional to the measured figure, so at P50 the comm time shrinks by P5/P50.
    spread = measured & ~t.none["measured_p50_gbps"] & (volume > 0)
    t_x50 = np.where(spread, t_x * num["measured_gbps"] / num["measured_p50_gbps"], t_x)
    low = np.where(spread, hourly / (capacity * t_c / (t_c + np.maximum(0, t_x50 - hidden))), cost)
    job_h: Any = [None] * size
    job_c: Any = job_h
    if w.train_tokens is not None:
        job_h = w.train_tokens * t_s / w.tokens_per_step / num["availability"] / 3600
        job_c = hourly * job_h
    tau = _tokens_to_hide(w, t_x, peak * mfu, volume)
    basis = ["measured" if m else "nominal" for m in measured.tolist()]
    warns = _warnings_column(raw, n, peak, measured, oversub)
    cols: list[Any] = [raw["id"], cost, low, cost, currencies, t_s, t_c, t_x, t_e, t_c / t_s]
    cols += [eth, hourly, job_h, job_c, b, basis, n.astype(int), oversub, volume, tau, warns]
    return cols, cost


def _capacity(
    w: Workload, t: _Table, gpus: Mapping[str, GpuSpec], ref: GpuSpec, sc: Scenario, n: _Array
) -> tuple[_Array, _Array, _Array]:
    """Peak FLOP/s and mfu per GPU, and ETH per hour with no communication stall (U = 1)."""
    size = len(n)
    peak = np.array([gpus[k].tflops_bf16 for k in t.raw["gpu"]], dtype=float).reshape(size) * 1e12
    mfu_base = np.array([gpus[k].default_mfu for k in t.raw["gpu"]], dtype=float).reshape(size)
    mfu = np.minimum(1.0, (mfu_base if w.mfu is None else np.full(size, w.mfu)) * sc.mfu_scale)
    mfu_ref = min(1.0, (ref.default_mfu if w.mfu is None else w.mfu) * sc.mfu_scale)
    per_gpu = peak * mfu / (ref.tflops_bf16 * 1e12 * mfu_ref)
    return peak, mfu, n * t.num["gpus_per_node"] * per_gpu * t.num["availability"]


def _tokens_to_hide(w: Workload, t_x: _Array, achieved: _Array, volume: _Array) -> _Array:
    """Tokens per GPU per step at which the gradient traffic just hides under the compute.

    Per GPU and step t_c = k*P*tau/(F*m) grows with tau tokens while t_x does not depend on tau,
    so t_x = overlap*t_c exactly at tau = t_x*F*m/(overlap*k*P): roughly achieved FLOP/s over the
    node bandwidth, as COST-MODEL.md puts it. One node needs 0; with overlap 0 nothing hides (inf).
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tau = t_x * achieved / (w.overlap * w.flops_per_token_factor * w.params_b * 1e9)
    return np.where(volume == 0, 0.0, np.where(w.overlap == 0, math.inf, tau))


def _bandwidth(t: _Table, n: _Array) -> tuple[_Array, _Array, _Array]:
    """Effective per-node Gbit/s B, where it is measured, and the racks' oversubscription factor."""
    num = t.num
    nominal = num["nic_gbps"] * num["nics_per_node"]
    spr, uplink = num["servers_per_rack"], num["rack_uplink_gbps"]
    with np.errstate(invalid="ignore"):
        factor = np.minimum(1.0, uplink / (spr * nominal))
    factor = np.where((n > spr) & ~t.none["rack_uplink_gbps"], factor, 1.0)
    eff = np.array([FABRIC_EFFICIENCY[f] for f in t.raw["fabric"]], dtype=float).reshape(len(n))
    p5 = num["measured_gbps"]
    measured = ~t.none["measured_gbps"]
    collective = np.array([k == "collective" for k in t.raw["measured_kind"]], dtype=bool)
    # Accepted evidence already shows what the links reach, so the nominal rack maths stays out.
    b = np.where(measured, np.where(collective, p5, p5 * eff), nominal * eff * factor)
    return b, measured, factor


# ---------------------------------------------------------------------------------------------
# Warnings

# (last node count of the tier or None, recommended Gbit/s, English, Chinese), DOMAIN.md §2; the
# table leaves 9 servers out, so 9 joins the larger tier to err on the safe side.
_TIERS = (
    (8, 25.0, "2-8 servers: 25G/50G RoCE", "2–8 台服务器：25G/50G RoCE"),
    (32, 50.0, "10-32 servers: 50G/100G RoCE or IB", "10–32 台服务器：50G/100G RoCE 或 IB"),
    (None, 100.0, "over 32 servers: 100G/200G IB", "32 台以上服务器：以 100G/200G IB 为主"),
)
_CLASS_FLOOR = (
    50.0,
    "8-GPU A100/H100-class servers: 50G and up",
    "8 卡 A100/H100 级服务器：50G 以上",
)
_A100_CLASS_TFLOPS = 300.0

UNVERIFIED = Message(
    "bandwidth_unverified",
    "Inter-node bandwidth is nominal (port speed × fabric efficiency), not verified by accepted "
    "benchmark evidence.",
    "节点间带宽为标称值（端口速率 × 网络效率），尚未经认可的测试证据验证。",
)
ROCE_NO_LOSSLESS = Message(
    "roce_without_lossless",
    "RoCE without PFC/ECN lossless configuration collapses under congestion (TCP incast).",
    "RoCE 未启用 PFC/ECN 无损配置，拥塞时（TCP incast）性能会崩溃。",
)
ROCE_LOSSLESS_UNKNOWN = Message(
    "roce_lossless_unknown",
    "The offer does not state whether PFC and ECN are enabled on its RoCE network; ask the vendor.",
    "报价未说明 RoCE 网络是否启用 PFC 和 ECN，请向供应商确认。",
)


def _warnings_column(
    c: dict[str, list[Any]], n: _Array, peak: _Array, measured: _Array, oversub: _Array
) -> list[tuple[Message, ...]]:
    keys = zip(
        n.astype(int).tolist(),
        (np.array(c["nic_gbps"], dtype=float) * np.array(c["nics_per_node"])).tolist(),
        c["gpus_per_node"],
        (peak / 1e12).tolist(),
        oversub.tolist(),
        c["servers_per_rack"],
        list(map(_roce_state, c["fabric"], c["pfc"], c["ecn"])),
        measured.tolist(),
        strict=True,
    )  # fmt: skip
    return [
        _network_warnings(*key) + flags for key, flags in zip(keys, c["vendor_flags"], strict=True)
    ]


def _roce_state(fabric: str, pfc: bool | None, ecn: bool | None) -> int:
    """0: not RoCE or lossless; 1: PFC/ECN not stated; 2: one of them is off."""
    if fabric != "roce" or (pfc is True and ecn is True):
        return 0
    return 2 if pfc is False or ecn is False else 1


@lru_cache(maxsize=8192)
def _network_warnings(
    n: int, nominal: float, gpn: int, tflops: float, oversub: float, spr: int | None, roce: int,
    measured: bool,
) -> tuple[Message, ...]:  # fmt: skip
    """Network caveats of one offer for an n-server job; `roce` as `_roce_state` gives it."""
    if n == 1:  # one server moves no gradients between servers
        return ()
    out = [_tier_warning(n, nominal, gpn, tflops)]
    if oversub < 1.0:
        out.append(_oversubscribed(n, spr, oversub))
    out.append((None, ROCE_LOSSLESS_UNKNOWN, ROCE_NO_LOSSLESS)[roce])
    out.append(None if measured else UNVERIFIED)
    return tuple(m for m in out if m is not None)


def _tier_warning(n: int, nominal: float, gpn: int, tflops: float) -> Message | None:
    if nominal <= 10.0:
        return Message(
            "bandwidth_inference_only",
            f"{nominal:g} Gbit/s per server is inference-only bandwidth: training across {n} "
            "servers stalls in communication (25G is the floor, 50G the value choice).",
            f"每台服务器 {nominal:g} Gbit/s 仅适合推理：{n} 台服务器的多机训练会卡在通信上"
            "（25G 为底线，50G 为性价比之选）。",
        )
    rec, en, zh = next((t[1], t[2], t[3]) for t in _TIERS if t[0] is None or n <= t[0])
    if gpn >= 8 and tflops >= _A100_CLASS_TFLOPS and _CLASS_FLOOR[0] > rec:
        rec, en, zh = _CLASS_FLOOR
    if nominal >= rec:
        return None
    return Message(
        "bandwidth_below_tier",
        f"{nominal:g} Gbit/s per server is below the {rec:g}G recommended for {n} servers ({en}).",
        f"每台服务器 {nominal:g} Gbit/s 低于 {n} 台服务器规模的推荐值 {rec:g}G（{zh}）。",
    )


def _oversubscribed(n: int, servers_per_rack: int | None, factor: float) -> Message:
    ratio = 1.0 / factor
    return Message(
        "rack_oversubscribed",
        f"The job spans racks ({n} servers, {servers_per_rack} per rack) and the rack uplink is "
        f"oversubscribed {ratio:.2g}:1; nominal bandwidth is scaled by {factor:.2f}.",
        f"作业跨机柜（{n} 台服务器，每柜 {servers_per_rack} 台），机柜上行收敛比 {ratio:.2g}:1；"
        f"标称带宽按 {factor:.2f} 折算。",
    )


# ---------------------------------------------------------------------------------------------
# Public entry points


def rank(
    workload: Workload,
    offers: Sequence[Offer],
    gpus: Mapping[str, GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    scenario: Scenario = BASE_SCENARIO,
) -> RankingOutcome:
    """Rank offers by cost per ETH; impossible offers become problems instead of failing the rest.

    Raises ModelInputError only when the workload, scenario or reference GPU row is impossible.
    """
    ref = _reference(workload, gpus, scenario)
    table: _Table | None = None
    fast = [False] * len(offers)
    with contextlib.suppress(TypeError, ValueError, OverflowError):  # odd objects: one by one
        table = _Table.of(offers)
        fast = _fast_valid(table, workload, gpus).tolist()
    currencies = {
        c for c in {o.currency for o in offers if type(o.currency) is str} if _currency_ok(c)
    }
    target = "CNY" if fx_to_cny is not None or len(currencies) > 1 else None
    rate_of = {cur: _fx_rate(cur, target, fx_to_cny or {}) for cur in currencies}
    keep, problems = _sort_out(offers, fast, workload, gpus, rate_of)
    if table is None:
        table = _Table.of([offers[i] for i in keep])
    elif len(keep) < len(offers):
        table = table.take(keep)
    return _ranked(workload, table, gpus, ref, scenario, target, rate_of, problems)


def _sort_out(
    offers: Sequence[Offer],
    fast: list[bool],
    w: Workload,
    gpus: Mapping[str, GpuSpec],
    rate_of: Mapping[str, float | Message],
) -> tuple[list[int], list[OfferProblem]]:
    """Indices of the offers to rank, and the problems of the others."""
    no_fx_gap = not any(isinstance(r, Message) for r in rate_of.values())
    if all(fast) and no_fx_gap and len({o.id for o in offers}) == len(offers):
        return list(range(len(offers))), []
    keep: list[int] = []
    problems: list[OfferProblem] = []
    seen: set[str] = set()
    for i, (o, good) in enumerate(zip(offers, fast, strict=True)):
        found = [] if good else offer_problems(o, w, gpus)
        rate = rate_of.get(o.currency) if _currency_ok(o.currency) else None
        found += [rate] if isinstance(rate, Message) else []
        if isinstance(o.id, str) and o.id in seen:
            found.append(field_message("offer", "id", "duplicate", o.id))
        seen.add(o.id if isinstance(o.id, str) else "")
        if found:
            problems.append(OfferProblem(str(o.id), tuple(found)))
        else:
            keep.append(i)
    return keep, problems


def _ranked(
    w: Workload,
    t: _Table,
    gpus: Mapping[str, GpuSpec],
    ref: GpuSpec,
    sc: Scenario,
    target: str | None,
    rate_of: Mapping[str, float | Message],
    problems: list[OfferProblem],
) -> RankingOutcome:
    if not t.raw["id"]:
        return RankingOutcome((), tuple(problems))
    currencies = t.raw["currency"] if target is None else [target] * len(t.raw["id"])
    rates = np.array([rate_of[c] for c in t.raw["currency"]], dtype=float)
    cols, cost = _evaluate(w, t, gpus, ref, sc, rates, currencies)
    order = np.lexsort((np.array(t.raw["id"], dtype=str), cost))
    by_rank = [x[order].tolist() if isinstance(x, np.ndarray) else _pick(x, order) for x in cols]
    results = list(map(_ResultTwin, range(1, len(order) + 1), *by_rank))
    for result in results:
        result.__class__ = OfferResult
    return RankingOutcome(tuple(results), tuple(problems))


def _pick(values: list[Any], order: _Array) -> list[Any]:
    return [values[j] for j in order.tolist()]


def evaluate(
    workload: Workload,
    offer: Offer,
    gpus: Mapping[str, GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    scenario: Scenario = BASE_SCENARIO,
) -> OfferResult:
    """One offer's figures (rank 1); raises ModelInputError when inputs are impossible.

    Without `fx_to_cny` the result keeps the offer's currency; with it, the result is in CNY.
    """
    fx = fx_to_cny if fx_to_cny is not None or offer.currency == "CNY" else None
    outcome = rank(workload, [offer], gpus, fx_to_cny=fx, scenario=scenario)
    if outcome.problems:
        raise ModelInputError(outcome.problems[0].messages)
    return outcome.results[0]


# Dict adapters for the CLI and the API: input names as in COST-MODEL.md


def _convert(owner: str, name: str, kind: str, value: object) -> tuple[object, Message | None]:
    """Check a JSON value against a dataclass field type written as text (`float | None`)."""
    if value is None and kind.endswith("| None"):
        return None, None
    base = kind.removesuffix(" | None")
    real = _real(value)  # JSON gives 8.0 for 8 at times: a whole float is fine for an int
    if real is not None and (base == "float" or (base == "int" and real.is_integer())):
        return (float(real) if base == "float" else int(real)), None
    if base in ("str", "bool") and type(value).__name__ == base:
        return value, None
    if name == "id" and type(value) is int:
        return str(value), None
    if base.startswith("tuple[Message") and isinstance(value, list):
        flags = [_message_from(v) for v in value]
        if all(f is not None for f in flags):
            return tuple(flags), None
    expected = "list of {code, en, zh}" if base.startswith("tuple") else kind
    return None, field_message(owner, name, "wrong_type", value, expected)


def _message_from(value: object) -> Message | None:
    if isinstance(value, dict) and all(isinstance(value.get(k), str) for k in ("code", "en", "zh")):
        return Message(value["code"], value["en"], value["zh"])
    return None


def _kwargs_from(owner: str, cls: type, data: object) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise ModelInputError([field_message(owner, "data", "not_object", type(data).__name__)])
    known = {f.name: f for f in fields(cls)}
    problems = [
        Message(
            f"{owner}_unknown_field",
            f"{owner}: unknown field {key!r}.",
            f"{owner}：未知字段 {key!r}。",
        )
        for key in data
        if key not in known
    ]
    kwargs: dict[str, Any] = {}
    for name, f in known.items():
        if name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                problems.append(
                    Message(
                        f"{owner}_{name}_missing",
                        f"{owner}.{name} is required.",
                        f"{owner}.{name} 为必填项。",
                    )
                )
            continue
        kwargs[name], problem = _convert(owner, name, str(f.type), data[name])
        problems.extend([problem] if problem else [])
    if problems:
        raise ModelInputError(problems)
    return kwargs


def workload_from_dict(data: object) -> Workload:
    """A Workload from JSON; ModelInputError lists missing, unknown and ill-typed fields."""
    return Workload(**_kwargs_from("workload", Workload, data))


def offer_from_dict(data: object) -> Offer:
    """An Offer from JSON (currency is upper-cased); ModelInputError as for workloads."""
    kwargs = _kwargs_from("offer", Offer, data)
    if isinstance(kwargs.get("currency"), str):
        kwargs["currency"] = kwargs["currency"].upper()
    return Offer(**kwargs)


def result_to_dict(result: OfferResult) -> dict[str, object]:
    """Output names of COST-MODEL.md; an infinite batch-to-hide figure (overlap 0) becomes None."""
    out: dict[str, object] = {f.name: getattr(result, f.name) for f in fields(OfferResult)}
    out["warnings"] = [m.as_dict() for m in result.warnings]
    if math.isinf(result.tokens_per_gpu_to_hide_comm):
        out["tokens_per_gpu_to_hide_comm"] = None
    return out


def outcome_to_dict(outcome: RankingOutcome) -> dict[str, object]:
    problems = [
        {"offer_id": p.offer_id, "messages": [m.as_dict() for m in p.messages]}
        for p in outcome.problems
    ]
    return {"results": [result_to_dict(r) for r in outcome.results], "problems": problems}


def request_from_dict(data: object) -> tuple[Workload, tuple[Offer, ...], tuple[OfferProblem, ...]]:
    """Parse `{"workload": {...}, "offers": [...]}`; a malformed offer is a problem, no failure."""
    if not isinstance(data, Mapping):
        raise ModelInputError([field_message("request", "data", "not_object", type(data).__name__)])
    if not isinstance(data.get("offers"), list):
        raise ModelInputError([field_message("request", "offers", "not_list", data.get("offers"))])
    workload = workload_from_dict(data.get("workload"))
    offers: list[Offer] = []
    problems: list[OfferProblem] = []
    for i, raw in enumerate(data["offers"]):
        try:
            offers.append(offer_from_dict(raw))
        except ModelInputError as exc:
            offer_id = raw.get("id") if isinstance(raw, Mapping) else None
            problems.append(OfferProblem(str(offer_id or f"#{i + 1}"), exc.messages))
    return workload, tuple(offers), tuple(problems)
