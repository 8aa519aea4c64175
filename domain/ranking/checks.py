"""Input checks of a ranking: per-offer messages, and the checks run once per ranking.

`offer_problems` is the per-offer authority on what is wrong with an offer; the column-wise
screen in :mod:`.columns` only decides which offers need it. The job itself is checked by the
training model (`check_model`) and `workload_problems`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

from domain import money
from domain.messages import Message
from domain.ranking.inputs import FABRICS, MEASURED_KINDS, Offer, Scenario, Workload
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.gpus import GpuSpec
from domain.trainmodel.inputs import check_model


class ModelInputError(Exception):
    """Impossible model inputs; each message names the field to fix."""

    def __init__(self, messages: Iterable[Message]) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        super().__init__("; ".join(m.en for m in self.messages))


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
        "must be a GPU table row with positive TFLOPS and an efficiency in (0, 1]",
        "必须是 TFLOPS 为正、效率在 (0, 1] 内的 GPU 表行",
    ),
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
    """What is impossible about the job itself (the architecture by the training model's rules)."""
    out = _rule_problems("workload", w, _WORKLOAD_RULES)
    batch = _real(w.parallel.global_batch_tokens)
    if batch is None or batch <= 0:
        out.append(
            field_message(
                "workload", "tokens_per_step", "not_positive", w.parallel.global_batch_tokens
            )
        )
    try:
        check_model(w.model)
    except TrainModelError as exc:
        out += exc.messages
    return out


def _currency_ok(cur: object) -> bool:
    return (
        isinstance(cur, str) and len(cur) == 3 and cur.isascii() and cur.isalpha() and cur.isupper()
    )


def offer_problems(o: Offer, w: Workload, gpus: Mapping[str, GpuSpec]) -> list[Message]:
    """What is impossible about an offer for this workload (empty when it can be evaluated)."""
    out = _rule_problems("offer", o, _OFFER_RULES)
    out += _choice("offer", "gpu", o.gpu, gpus) or _gpu_spec_problems(gpus[o.gpu])
    out += _choice("offer", "fabric", o.fabric, FABRICS)
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
    tflops, efficiency = _real(spec.bf16_tflops), _real(spec.efficiency)
    if (tflops or 0.0) > 0 and 0 < (efficiency or 0.0) <= 1:
        return []
    return [field_message("gpus", "spec", "bad_row", spec.key)]


def check_job(w: Workload, sc: Scenario) -> None:
    """Check the workload and the what-if once per ranking; raise ModelInputError on any."""
    problems = workload_problems(w) + _rule_problems("scenario", sc, _SCENARIO_RULES)
    problems += _scenario_range_problems(sc)
    if problems:
        raise ModelInputError(problems)


_SCENARIO_RULES: _Rules = (
    ("mfu_scale", False, "not_positive", ""),
    ("bandwidth_scale", False, "not_positive", ""),
)


def _fx_rate(currency: str, target: str | None, fx: Mapping[str, float]) -> float | Message:
    if target is None or currency == target:
        return 1.0
    rate = money.rate_from(currency, {currency: _real(fx.get(currency))})
    if rate is None:
        return Message(
            "offer_currency_no_fx_rate",
            f"offer.currency {currency} has no valid rate to CNY in fx_to_cny; add one so the "
            "offer can be compared.",
            f"offer.currency {currency} 在 fx_to_cny 中没有有效的人民币汇率，请补充后再比较。",
        )
    return float(rate)


def _scenario_range_problems(sc: Scenario) -> list[Message]:
    """The what-if knobs of the failure and checkpoint model, within what anyone can mean."""
    bad: list[Message] = []
    if not (math.isfinite(sc.mtbf_scale) and 0.01 <= sc.mtbf_scale <= 100):
        bad.append(
            Message(
                "scenario_mtbf_scale",
                f"The failure-rate scale must be between 0.01 and 100 (got {sc.mtbf_scale:g}).",
                f"故障间隔倍数必须在 0.01 到 100 之间（当前为 {sc.mtbf_scale:g}）。",
            )
        )
    if not (math.isfinite(sc.storage_scale) and 0.01 <= sc.storage_scale <= 100):
        bad.append(
            Message(
                "scenario_storage_scale",
                "The checkpoint storage speed scale must be between 0.01 and 100 "
                f"(got {sc.storage_scale:g}).",
                f"检查点存储写入速度倍数必须在 0.01 到 100 之间（当前为 {sc.storage_scale:g}）。",
            )
        )
    write = sc.checkpoint_write_s
    if write is not None and not (math.isfinite(write) and 0 <= write <= 86_400):
        bad.append(
            Message(
                "scenario_checkpoint_write_s",
                f"The checkpoint write time must be 0 to 86,400 seconds (got {write:g}).",
                f"检查点写入时间必须在 0 到 86,400 秒之间（当前为 {write:g}）。",
            )
        )
    return bad
