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
    "too_large": ("must be at most {rng}", "不能超过 {rng}"),
    "unknown": ("must be one of {rng}", "必须是以下之一：{rng}"),
    "exceeds_offer": ("must not exceed the offer's {rng} servers", "不能超过报价的 {rng} 台服务器"),
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


# The fields as a buyer names them (a message names the field, never the code's name for it).
_FIELD_WORDS: Mapping[str, tuple[str, str]] = {
    "workload.nodes": ("The number of servers the workload uses", "工作负载使用的服务器数量"),
    "workload.train_tokens": ("The workload's tokens to train on", "工作负载的训练总 token 数"),
    "workload.tokens_per_step": ("The workload's global batch (tokens per step)",
                                 "工作负载的全局批量（每步 token 数）"),
    "workload.params_b": ("The model size (billions of parameters)", "模型规模（十亿参数）"),
    "workload.overlap": ("The share of communication hidden behind compute",
                         "通信被计算掩盖的比例"),
    "workload.strategy": ("The parallel strategy", "并行策略"),
    "offer.gpus_per_node": ("The offer's GPUs per server", "报价的每台服务器 GPU 数"),
    "offer.nodes": ("The offer's number of servers", "报价的服务器数量"),
    "offer.nics_per_node": ("The offer's network ports per server", "报价的每台服务器网口数"),
    "offer.price_per_node_month": ("The offer's rent per server and month",
                                   "报价的每台服务器月租"),
    "offer.monthly_fees": ("The offer's other monthly fees", "报价的其他月费"),
    "offer.nic_gbps": ("The offer's port speed", "报价的网口速率"),
    "offer.availability": ("The offer's availability", "报价的可用性"),
    "offer.gpu": ("The offer's GPU model", "报价的 GPU 型号"),
    "offer.fabric": ("The offer's network fabric", "报价的网络类型"),
    "offer.currency": ("The offer's currency", "报价的币种"),
}  # fmt: skip


def _shown(value: object) -> str:
    """A value as a message prints it: grouped whole numbers, short decimals, no code repr."""
    real = _real(value)
    if real is not None:
        if real.is_integer() and abs(real) < 1e15:
            return f"{int(real):,}"
        return f"{real:,.6g}" if abs(real) < 1e15 else "—"
    text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def field_message(owner: str, name: str, kind: str, got: object, rng: str = "") -> Message:
    """A validation message whose code names the field (`offer_nodes_not_whole`) and whose text
    names it as a buyer does ("The offer's number of servers must be …; it is 0.")."""
    en, zh = _KIND_TEXT[kind]
    word_en, word_zh = _FIELD_WORDS.get(f"{owner}.{name}", (f"{owner}.{name}", f"{owner}.{name}"))
    return Message(
        f"{owner}_{name}_{kind}",
        f"{word_en} {en.format(rng=rng)}; it is {_shown(got)}.",
        f"{word_zh}{zh.format(rng=rng)}，当前为 {_shown(got)}。",
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


MONEY_CEILING = 1e12  # per server and month, or per month: no rent comes near it
MONEY_CEILING_TEXT = "1,000,000,000,000"

_PASSES: Mapping[str, Callable[[float], bool]] = {
    "not_positive": lambda v: v > 0,
    "negative": lambda v: v >= 0,
    "[0, 1]": lambda v: 0 <= v <= 1,
    "(0, 1]": lambda v: 0 < v <= 1,
    # a ceiling: beyond it a rent is a typing error, and its arithmetic overflows (a rent of
    # 1e308 made the bill infinite and the offer "ranked" without a cost). An implausible NIC
    # claim is not refused here: the plausibility rule excludes it with its reason
    MONEY_CEILING_TEXT: lambda v: v <= MONEY_CEILING,
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
    ("price_per_node_month", False, "too_large", MONEY_CEILING_TEXT),
    ("monthly_fees", False, "negative", ""),
    ("monthly_fees", False, "too_large", MONEY_CEILING_TEXT),
    ("nic_gbps", False, "not_positive", ""),
    ("rack_uplink_gbps", True, "not_positive", ""),
    ("measured_gbps", True, "not_positive", ""),
    ("measured_p50_gbps", True, "not_positive", ""),
    ("availability", False, "out_of_range", "(0, 1]"),
    ("delivered_ratio", True, "negative", ""),
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
