"""Inference serving and mixed (training + serving) plans: sizing, cost per million served tokens
and the month-by-month bandwidth line (DOMAIN.md §3, §6; seed 004 §4, §7, §8).

Serving wants stable public bandwidth with peak capacity, not inter-node fabric. The model:

* A replica is `gpus_per_replica` GPUs of one node serving one copy of the model. Its throughput
  is `tokens_per_s_per_replica` generated tokens per second under batching; if not given, the GPU's
  default for a 7B model at bf16 (`SERVING_GPU_DEFAULTS`), times the GPUs of the replica, times
  7 / params_b, times the precision speed-up. Prefilling one input token costs `prefill_weight` of
  generating one (default 0.1), so a request loads a replica with `tokens_out + w * tokens_in`.
* Replicas = ceil(peak requests/s / requests/s one replica carries); nodes = ceil(GPUs / GPUs per
  node of the offer).
* Latency of one request = tokens_out / per-stream decode speed + prefill; the per-stream speed is
  the GPU's default (7B bf16) scaled like throughput, with tensor parallelism giving `g ** 0.8`.
* Public bandwidth (outbound payload) needed = peak requests/s * payload bytes * 8 * (1 + headroom);
  monthly traffic = mean requests/s * payload bytes * seconds per month (30 days, as billed).
* Traffic over the month (`billing.TrafficProfile.simple`): each day `peak_hours_per_day` hours at
  the peak, the rest at the level that keeps the mean; 8,640 five-minute samples.
* Cost per million served tokens = (compute rent for the nodes used + other fees + bandwidth bill)
  / (mean requests/s * (tokens_in + tokens_out) * seconds per month / 1e6).

Bandwidth bills come from `domain.billing` (fixed / per-GB / 95th percentile); this module only
builds the traffic the bill needs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from domain import billing, money
from domain.messages import Message

# The serving month is the billing month of 95th-percentile billing: 30 days, 8,640 samples.
SECONDS_PER_MONTH = 30 * 86_400.0
SAMPLES_PER_DAY = 288  # five-minute samples
DAYS_PER_SAMPLED_MONTH = 30  # 30 * 288 = 8,640 samples, the usual 95th-percentile month
REFERENCE_PARAMS_B = 7.0
TP_EXPONENT = 0.8  # tensor parallelism: g GPUs decode one stream about g**0.8 times faster
MEMORY_USABLE_FOR_WEIGHTS = 0.8  # the rest is KV cache and activations

# Bytes per parameter and throughput speed-up against bf16 (decode is memory-bound).
PRECISIONS: dict[str, tuple[float, float]] = {
    "fp32": (4.0, 0.5),
    "bf16": (2.0, 1.0),
    "fp16": (2.0, 1.0),
    "fp8": (1.0, 1.6),
    "int8": (1.0, 1.5),
    "int4": (0.5, 2.2),
}


@dataclass(frozen=True, slots=True)
class ServingGpuDefault:
    """Planning figures for a 7B model at bf16 on one GPU (vLLM-class server, continuous batching).

    `tokens_per_s`: generated tokens per second of one GPU at a healthy batch;
    `stream_tokens_per_s`: decode speed of a single request. Rough public figures, about
    proportional to memory bandwidth; a team with its own measurement enters
    `tokens_per_s_per_replica` instead.
    """

    tokens_per_s: float
    stream_tokens_per_s: float
    memory_gb: float


SERVING_GPU_DEFAULTS: dict[str, ServingGpuDefault] = {
    "H100-SXM": ServingGpuDefault(3000.0, 150.0, 80.0),
    "H800-SXM": ServingGpuDefault(3000.0, 150.0, 80.0),
    "H200-SXM": ServingGpuDefault(3600.0, 200.0, 141.0),
    "H20": ServingGpuDefault(1800.0, 170.0, 96.0),
    "H100-PCIe": ServingGpuDefault(2200.0, 100.0, 80.0),
    "A100-SXM4-80GB": ServingGpuDefault(1500.0, 100.0, 80.0),
    "A100-SXM4-40GB": ServingGpuDefault(1300.0, 85.0, 40.0),
    "A800-SXM4-80GB": ServingGpuDefault(1500.0, 100.0, 80.0),
    "L40S": ServingGpuDefault(900.0, 45.0, 48.0),
    "RTX4090": ServingGpuDefault(700.0, 50.0, 24.0),
    "Ascend910B": ServingGpuDefault(1000.0, 70.0, 64.0),
}


class ServingInputError(Exception):
    """Impossible serving inputs; each message names what to fix."""

    def __init__(self, messages: Sequence[Message]) -> None:
        super().__init__("; ".join(m.en for m in messages))
        self.messages = tuple(messages)


# ---------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True, slots=True, kw_only=True)
class InferenceWorkload:
    params_b: float
    precision: str = "bf16"
    mean_rps: float
    peak_rps: float
    tokens_in: float
    tokens_out: float
    response_bytes: float
    latency_target_s: float | None = None
    gpus_per_replica: int = 1
    tokens_per_s_per_replica: float | None = None
    prefill_weight: float = 0.1
    bandwidth_headroom: float = 0.3
    peak_hours_per_day: float = 4.0


@dataclass(frozen=True, slots=True, kw_only=True)
class ServingOffer:
    """One offer as serving sees it; money in the offer's currency, `fx_to_cny` converts.

    `plans` are the public-bandwidth billing plans the offer has (usually one), each a
    `(kind, price)` pair: kind `fixed` / `p95` priced per Mbit/s and month, `per_gb` per GB.
    `public_bandwidth_mbps` is the most the offer can carry (0: not stated).
    """

    id: str
    label: str = ""
    vendor: str = ""
    gpu: str
    gpus_per_node: int
    nodes: int
    price_per_node_month: float
    monthly_fees: float = 0.0
    currency: str = "CNY"
    fx_to_cny: float = 1.0
    public_bandwidth_mbps: float = 0.0
    plans: tuple[tuple[str, float], ...] = ()
    whole_offer_only: bool = False
    bandwidth_elastic: bool = False


# ---------------------------------------------------------------------------------------------
# Validation


def _m(code: str, en: str, zh: str) -> Message:
    return Message(code, en, zh)


def _positive(name: str, value: float, en: str, zh: str) -> list[Message]:
    if not math.isfinite(value) or value <= 0:
        return [_m(f"{name}_not_positive", f"{en} must be above 0.", f"{zh}必须大于 0。")]
    return []


# Physical upper bounds of a workload's figures (the one home of these limits: the service checks
# them for the form and the API, the form's inputs carry them as `max`, and a stored value beyond
# them is a problem on the page instead of an overflow). Generous on purpose: each is far beyond
# any real service, and low enough that every derived figure (GPUs, Mbit/s, GB, tokens per
# month) stays a finite, printable number.
#   params_b 100,000 (100 trillion parameters; the largest published models are ~2 T);
#   requests/s 1,000,000 (a whole large web search engine's peak, for one model);
#   tokens in 10,000,000 (context windows are at most a few million), out 1,000,000;
#   response 100 MB per request (response_bytes); latency target one hour;
#   GPUs per replica 1,024 (a replica must fit in one node anyway);
#   tokens/s per replica 10,000,000 (a GPU does a few thousand).
WORKLOAD_LIMITS: dict[str, tuple[float, str, str]] = {
    "params_b": (100_000.0, "Model size (billions)", "模型参数量（十亿）"),
    "mean_rps": (1_000_000.0, "Mean requests per second", "平均每秒请求数"),
    "peak_rps": (1_000_000.0, "Peak requests per second", "峰值每秒请求数"),
    "tokens_in": (10_000_000.0, "Tokens in per request", "每个请求的输入 token 数"),
    "tokens_out": (1_000_000.0, "Tokens out per request", "每个请求的输出 token 数"),
    "response_bytes": (100_000_000.0, "Response payload (bytes)", "响应大小（字节）"),
    "latency_target_s": (3_600.0, "The latency target (s)", "延迟目标（秒）"),
    "gpus_per_replica": (1_024.0, "GPUs per replica", "每副本 GPU 数"),
    "tokens_per_s_per_replica": (
        10_000_000.0,
        "Tokens per second per replica",
        "每副本每秒 token 数",
    ),
}


def _too_large(w: InferenceWorkload) -> list[Message]:
    found: list[Message] = []
    for name, (high, en, zh) in WORKLOAD_LIMITS.items():
        value = getattr(w, name)
        if value is not None and value > high:  # inf too; NaN is refused by the other checks
            found.append(
                _m(
                    f"{name}_too_large",
                    f"{en} must be at most {high:,.0f}.",
                    f"{zh}不能超过 {high:,.0f}。",
                )
            )
    return found


def workload_problems(w: InferenceWorkload) -> list[Message]:
    """Everything wrong with a workload on its own (offer-independent)."""
    found = _too_large(w)
    found += _positive("params_b", w.params_b, "Model size (billions)", "模型参数量（十亿）")
    found += _positive("mean_rps", w.mean_rps, "Mean requests per second", "平均每秒请求数")
    found += _positive("peak_rps", w.peak_rps, "Peak requests per second", "峰值每秒请求数")
    found += _positive("response_bytes", w.response_bytes, "Response payload", "响应大小")
    if w.precision not in PRECISIONS:
        found.append(
            _m(
                "precision_unknown",
                f"Unknown precision {w.precision!r}; use one of {', '.join(PRECISIONS)}.",
                f"未知精度 {w.precision!r}。",
            )
        )
    if not found and w.peak_rps < w.mean_rps:
        found.append(
            _m(
                "peak_below_mean",
                f"Peak requests/s ({w.peak_rps:g}) is below the mean ({w.mean_rps:g}).",
                f"峰值每秒请求数（{w.peak_rps:g}）低于平均值（{w.mean_rps:g}）。",
            )
        )
    if not (w.tokens_out > 0 and math.isfinite(w.tokens_out)):
        found.append(
            _m(
                "zero_tokens_out",
                "Tokens out per request must be above 0: a request "
                "that generates nothing serves no tokens.",
                "每个请求的输出 token 数必须大于 0。",
            )
        )
    if not (w.tokens_in >= 0 and math.isfinite(w.tokens_in)):
        found.append(
            _m(
                "tokens_in_negative",
                "Tokens in per request cannot be negative.",
                "每个请求的输入 token 数不能为负。",
            )
        )
    if w.gpus_per_replica < 1:
        found.append(
            _m(
                "gpus_per_replica",
                "A replica needs at least one GPU.",
                "每个副本至少需要一块 GPU。",
            )
        )
    if w.tokens_per_s_per_replica is not None and not w.tokens_per_s_per_replica > 0:
        found += _positive(
            "tokens_per_s", -1.0, "Tokens per second per replica", "每副本每秒 token 数"
        )
    if w.latency_target_s is not None and not w.latency_target_s > 0:
        found += _positive("latency_target", -1.0, "The latency target", "延迟目标")
    if not 0 <= w.bandwidth_headroom <= 5:
        found.append(
            _m(
                "headroom_range",
                "Bandwidth headroom must be between 0 and 5 (0–500 %).",
                "带宽余量必须在 0 到 5 之间。",
            )
        )
    if not 0 < w.peak_hours_per_day <= 24:
        found.append(
            _m(
                "peak_hours_range",
                "Peak hours per day must be above 0 and at most 24.",
                "每日峰值小时数必须大于 0 且不超过 24。",
            )
        )
    if not 0 <= w.prefill_weight <= 1:
        found.append(
            _m(
                "prefill_weight_range",
                "Prefill weight must be between 0 and 1.",
                "预填充权重必须在 0 到 1 之间。",
            )
        )
    if not found and w.latency_target_s is not None:
        best = best_latency_s(w)
        if best > w.latency_target_s:
            found.append(
                _m(
                    "latency_unreachable",
                    f"No GPU in the table can answer within {w.latency_target_s:g} s: the "
                    f"fastest needs {best:.2f} s. Raise the target, shorten the answers or "
                    "use more GPUs per replica.",
                    f"表中没有 GPU 能在 {w.latency_target_s:g} 秒内响应：最快也需要 "
                    f"{best:.2f} 秒。请放宽目标、缩短输出或增加每副本 GPU。",
                )
            )
    return found


def validate(w: InferenceWorkload) -> None:
    problems = workload_problems(w)
    if problems:
        raise ServingInputError(problems)


# ---------------------------------------------------------------------------------------------
# Sizing


def _scale(w: InferenceWorkload) -> float:
    return REFERENCE_PARAMS_B / w.params_b * PRECISIONS.get(w.precision, (2.0, 1.0))[1]


def replica_tokens_per_s(w: InferenceWorkload, gpu: str) -> float | None:
    """Generated tokens per second of one replica (the input, else the GPU default)."""
    if w.tokens_per_s_per_replica is not None:
        return w.tokens_per_s_per_replica
    spec = SERVING_GPU_DEFAULTS.get(gpu)
    return None if spec is None else spec.tokens_per_s * w.gpus_per_replica * _scale(w)


def latency_s(w: InferenceWorkload, gpu: str) -> float | None:
    """Time to answer one request: prefill (about 50x faster per token) plus decode."""
    spec = SERVING_GPU_DEFAULTS.get(gpu)
    if spec is None:
        return None
    tp: float = math.pow(w.gpus_per_replica, TP_EXPONENT)
    stream = spec.stream_tokens_per_s * _scale(w) * tp
    return float((w.tokens_out + w.tokens_in / 50.0) / stream)


def best_latency_s(w: InferenceWorkload) -> float:
    values = [x for g in SERVING_GPU_DEFAULTS if (x := latency_s(w, g)) is not None]
    return min(values)


def public_bandwidth_mbps(w: InferenceWorkload) -> float:
    """Outbound public bandwidth for the peak payload, with headroom (Mbit/s)."""
    return w.peak_rps * w.response_bytes * 8 / 1e6 * (1 + w.bandwidth_headroom)


def monthly_traffic_gb(w: InferenceWorkload) -> float:
    return w.mean_rps * w.response_bytes * SECONDS_PER_MONTH / 1e9


def monthly_tokens(w: InferenceWorkload) -> float:
    return w.mean_rps * (w.tokens_in + w.tokens_out) * SECONDS_PER_MONTH


@dataclass(frozen=True, slots=True)
class Sizing:
    gpu: str
    replica_tokens_per_s: float
    replica_rps: float
    replicas: int
    gpus: int
    nodes: int
    latency_s: float | None
    bandwidth_mbps: float
    mean_mbps: float
    monthly_traffic_gb: float
    monthly_tokens: float


def size(w: InferenceWorkload, gpu: str, gpus_per_node: int) -> Sizing:
    """Replicas and nodes for the peak on a GPU model; raises ServingInputError."""
    validate(w)
    tps = replica_tokens_per_s(w, gpu)
    if tps is None:
        raise ServingInputError(
            [
                _m(
                    "gpu_no_default",
                    f"No serving default for GPU {gpu}: enter tokens per second per replica.",
                    f"GPU {gpu} 没有推理默认值：请填写每副本每秒 token 数。",
                )
            ]
        )
    if w.gpus_per_replica > gpus_per_node:
        raise ServingInputError(
            [
                _m(
                    "replica_spans_nodes",
                    f"A replica of {w.gpus_per_replica} GPUs does not fit in a node "
                    f"of {gpus_per_node}.",
                    f"{w.gpus_per_replica} 卡的副本放不进 {gpus_per_node} 卡的节点。",
                )
            ]
        )
    load = w.tokens_out + w.prefill_weight * w.tokens_in
    replica_rps = tps / load
    replicas = max(1, math.ceil(w.peak_rps / replica_rps - 1e-9))
    gpus = replicas * w.gpus_per_replica
    per_node = gpus_per_node // w.gpus_per_replica * w.gpus_per_replica  # whole replicas per node
    nodes = math.ceil(gpus / per_node)
    return Sizing(
        gpu=gpu,
        replica_tokens_per_s=tps,
        replica_rps=replica_rps,
        replicas=replicas,
        gpus=gpus,
        nodes=nodes,
        latency_s=latency_s(w, gpu),
        bandwidth_mbps=public_bandwidth_mbps(w),
        mean_mbps=w.mean_rps * w.response_bytes * 8 / 1e6,
        monthly_traffic_gb=monthly_traffic_gb(w),
        monthly_tokens=monthly_tokens(w),
    )


# ---------------------------------------------------------------------------------------------
# Bandwidth bills


BILLING_KINDS = ("fixed", "per_gb", "p95")  # as quotes store them


def peak_hours_whole_samples(mean_mbps: float, peak_mbps: float, peak_hours: float) -> float:
    """Hours at the peak the mean can hold, in whole five-minute samples (base never negative)."""
    if peak_mbps <= mean_mbps:
        return 24.0
    return math.floor(min(peak_hours, 24.0 * mean_mbps / peak_mbps) * 12 + 1e-9) / 12


def serving_traffic(w: InferenceWorkload) -> billing.TrafficProfile:
    """A 30-day month of 8,640 five-minute samples: each day the peak hours, then the base.

    Raises ServingInputError on a workload with impossible figures (never an overflow)."""
    validate(w)
    peak = w.peak_rps * w.response_bytes * 8 / 1e6
    mean = w.mean_rps * w.response_bytes * 8 / 1e6
    hours = peak_hours_whole_samples(mean, peak, w.peak_hours_per_day)
    try:
        return billing.TrafficProfile.simple(mean, max(peak, mean), hours)
    except billing.BillingError as exc:  # figures beyond any bill (e.g. a stored overflow)
        raise ServingInputError([exc.message]) from exc


def billing_plan(
    kind: str, price: float, *, need_mbps: float, capacity_mbps: float
) -> billing.Plan:
    """The plan the team would buy on an offer: a fixed plan sized to the need (up to what the
    offer carries), per-GB, or 95th percentile, at the offer's price."""
    if kind == "fixed":
        mbps = float(math.ceil(need_mbps - 1e-9))
        if capacity_mbps > 0:
            mbps = min(mbps, capacity_mbps)
        mbps = max(mbps, 1.0)
        return billing.FixedPlan(mbps=mbps, price_month=mbps * price)
    if kind == "per_gb":
        return billing.PerGbPlan(price_per_gb=price)
    if kind == "p95":
        return billing.Percentile95Plan(price_per_mbps_month=price)
    raise ServingInputError(
        [_m("billing_unknown", f"Unknown billing model {kind!r}.", f"未知计费方式 {kind!r}。")]
    )


# ---------------------------------------------------------------------------------------------
# Cost per million served tokens, per offer


@dataclass(frozen=True, slots=True)
class PlanBill:
    kind: str
    price: float
    bill_cny: float
    cost_per_million_cny: float


@dataclass(frozen=True, slots=True)
class ServingResult:
    rank: int
    offer_id: str
    sizing: Sizing
    nodes_billed: int
    compute_cny_month: float
    bills: tuple[PlanBill, ...]
    best_plan: str
    bandwidth_cny_month: float
    total_cny_month: float
    cost_per_million_cny: float
    warnings: tuple[Message, ...]
    # the team's risk policy (domain/decision_serving.py); defaults: not assessed, eligible
    eligible: bool = True
    risk_premium_pct: float = 0.0
    risk_adjusted_cost_per_million_cny: float | None = None
    risk_marks: tuple[Message, ...] = ()
    eligibility_reasons: tuple[Message, ...] = ()


@dataclass(frozen=True, slots=True)
class ServingProblem:
    offer_id: str
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class ServingOutcome:
    results: tuple[ServingResult, ...]
    problems: tuple[ServingProblem, ...]
    traffic_gb: float = 0.0
    bandwidth_mbps: float = 0.0
    monthly_tokens: float = 0.0
    measured: bool = False  # the bills come from uploaded samples, not the modelled profile

    @property
    def winner(self) -> ServingResult | None:
        """The best eligible offer (results are in decision order once decided)."""
        return next((r for r in self.results if r.eligible), None)


def _offer_problems(
    w: InferenceWorkload, o: ServingOffer, s: Sizing, *, bandwidth_priced_apart: bool = False
) -> list[Message]:
    found: list[Message] = []
    if s.nodes > o.nodes:
        found.append(
            _m(
                "offer_too_small",
                f"The peak needs {s.nodes} nodes ({s.replicas} replicas); the offer has {o.nodes}.",
                f"峰值需要 {s.nodes} 个节点（{s.replicas} 个副本），该报价只有 {o.nodes} 个。",
            )
        )
    if (
        w.latency_target_s is not None
        and s.latency_s is not None
        and s.latency_s > w.latency_target_s
    ):
        found.append(
            _m(
                "latency_missed",
                f"{o.gpu} answers in about {s.latency_s:.2f} s, above the target of "
                f"{w.latency_target_s:g} s.",
                f"{o.gpu} 约需 {s.latency_s:.2f} 秒，超过 {w.latency_target_s:g} 秒的目标。",
            )
        )
    memory = memory_problem(w, o.gpu)
    if memory is not None:
        found.append(memory)
    if not o.fx_to_cny > 0:
        found.append(
            _m(
                "fx_missing",
                f"Give a rate from {o.currency} to CNY.",
                f"请提供 {o.currency} 兑人民币汇率。",
            )
        )
    if not o.plans and s.bandwidth_mbps > 0 and not bandwidth_priced_apart:
        found.append(
            _m(
                "bandwidth_price_unknown",
                "Public-bandwidth price unknown: the offer states none, so its monthly cost "
                "cannot be known. Ask the vendor for its bandwidth price.",
                "公网带宽价格未知：报价没有写明，无法算出每月成本。请向供应商索取带宽价格。",
            )
        )
    for kind, price in o.plans:
        if kind not in BILLING_KINDS or not (price >= 0 and math.isfinite(price)):
            found.append(
                _m(
                    "plan_invalid",
                    f"Billing plan {kind} at {price} is not valid.",
                    f"计费方案 {kind}（{price}）无效。",
                )
            )
    return found


def _offer_warnings(o: ServingOffer, s: Sizing) -> list[Message]:
    warnings: list[Message] = []
    if o.public_bandwidth_mbps <= 0:
        warnings.append(
            _m(
                "public_bandwidth_unstated",
                "The offer states no public bandwidth: ask the vendor what it can carry.",
                "报价未写明公网带宽：请向供应商确认可承载的带宽。",
            )
        )
    elif o.public_bandwidth_mbps < s.bandwidth_mbps:
        warnings.append(
            _m(
                "public_bandwidth_short",
                f"The offer's public bandwidth ({o.public_bandwidth_mbps:g} Mbit/s) cannot "
                f"carry the peak ({s.bandwidth_mbps:.0f} Mbit/s with headroom).",
                f"报价的公网带宽（{o.public_bandwidth_mbps:g} Mbit/s）承载不了峰值"
                f"（含余量 {s.bandwidth_mbps:.0f} Mbit/s）。",
            )
        )
    return warnings


def _bills(
    o: ServingOffer, s: Sizing, traffic: billing.TrafficProfile, compute: float
) -> tuple[list[PlanBill], list[billing.BillingResult]]:
    plans = [
        billing_plan(kind, price, need_mbps=s.bandwidth_mbps, capacity_mbps=o.public_bandwidth_mbps)
        for kind, price in o.plans
    ]
    try:
        results = [billing.monthly_cost(plan, traffic) for plan in plans]
    except billing.BillingError as exc:
        raise ServingInputError([exc.message]) from exc
    tokens_m = s.monthly_tokens / 1e6
    bills = [
        PlanBill(kind, price, r.cost * o.fx_to_cny, (compute + r.cost * o.fx_to_cny) / tokens_m)
        for (kind, price), r in zip(o.plans, results, strict=True)
    ]
    return bills, results


def measured_sizing(s: Sizing, w: InferenceWorkload, traffic: billing.TrafficProfile) -> Sizing:
    """The sizing with its bandwidth figures taken from measured samples: the need is the measured
    peak with the workload's headroom, the volume the month's measured volume."""
    mean = math.fsum(traffic.samples_mbps) / len(traffic.samples_mbps)
    return replace(
        s,
        bandwidth_mbps=traffic.peak_mbps * (1 + w.bandwidth_headroom),
        mean_mbps=mean,
        monthly_traffic_gb=traffic.monthly_gb,
    )


def evaluate_offer(
    w: InferenceWorkload,
    o: ServingOffer,
    traffic: billing.TrafficProfile,
    *,
    measured: bool = False,
    bandwidth_priced_apart: bool = False,
) -> ServingResult:
    """One offer's figures (rank 0); raises ServingInputError when it cannot serve the workload.

    `measured`: `traffic` holds uploaded samples, which then also set the bandwidth need.
    `bandwidth_priced_apart`: the caller prices the bandwidth itself (a mixed plan's own price),
    so an offer without a bandwidth price is no problem; otherwise its price is unknown, a
    problem (never a bill of 0)."""
    s = size(w, o.gpu, o.gpus_per_node)
    if measured:
        s = measured_sizing(s, w, traffic)
    problems = _offer_problems(w, o, s, bandwidth_priced_apart=bandwidth_priced_apart)
    if problems:
        raise ServingInputError(problems)
    nodes = o.nodes if o.whole_offer_only else s.nodes
    compute = money.monthly_total(nodes, o.price_per_node_month, o.monthly_fees, o.fx_to_cny)
    bills, results = _bills(o, s, traffic, compute)
    warnings = _offer_warnings(o, s)
    best: PlanBill | None = None
    if bills:
        chosen = billing.cheapest([r.plan for r in results], traffic)
        best = bills[[r.plan for r in results].index(chosen.plan)]
        warnings += [m for r in results for m in r.warnings if m not in warnings]
    bandwidth = best.bill_cny if best else 0.0
    total = compute + bandwidth
    return ServingResult(
        rank=0,
        offer_id=o.id,
        sizing=s,
        nodes_billed=nodes,
        compute_cny_month=compute,
        bills=tuple(bills),
        best_plan=best.kind if best else "",
        bandwidth_cny_month=bandwidth,
        total_cny_month=total,
        cost_per_million_cny=total / (s.monthly_tokens / 1e6),
        warnings=tuple(warnings),
    )


def rank_offers(
    w: InferenceWorkload,
    offers: Iterable[ServingOffer],
    measured: billing.TrafficProfile | None = None,
) -> ServingOutcome:
    """Offers by cost per million served tokens (CNY), cheapest first; raises on a bad workload.

    `measured`: a month of uploaded samples billed instead of the modelled traffic profile."""
    validate(w)
    traffic = measured if measured is not None else serving_traffic(w)
    results: list[ServingResult] = []
    problems: list[ServingProblem] = []
    for o in offers:
        try:
            results.append(evaluate_offer(w, o, traffic, measured=measured is not None))
        except ServingInputError as exc:
            problems.append(ServingProblem(o.id, exc.messages))
    results.sort(key=lambda r: (r.cost_per_million_cny, r.offer_id))
    ranked = tuple(replace(r, rank=i) for i, r in enumerate(results, start=1))
    need = public_bandwidth_mbps(w)
    if measured is not None:
        need = measured.peak_mbps * (1 + w.bandwidth_headroom)
    return ServingOutcome(
        ranked, tuple(problems), traffic.monthly_gb, need, monthly_tokens(w), measured is not None
    )


# ---------------------------------------------------------------------------------------------
# Mixed plans: a training part and a serving part, month by month


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanPart:
    """One part of a mixed plan: compute rent per month over its months, and its bandwidth need.

    Months are 1-based and inclusive. `vendor` groups parts that share one bandwidth contract.
    """

    role: str  # "training" or "serving"
    label: str
    vendor: str
    compute_cny_month: float
    first_month: int
    last_month: int
    bandwidth_mbps: float
    # the bandwidth kept in the part's vendor's months when the part is not running (light phase)
    idle_mbps: float = 0.0


@dataclass(frozen=True, slots=True, kw_only=True)
class MixedPlanInput:
    parts: tuple[PlanPart, ...]
    horizon_months: int
    price_cny_mbps_month: float
    elastic_premium: float = 0.0  # elastic bandwidth often costs a little more per Mbit/s


@dataclass(frozen=True, slots=True)
class MonthCost:
    month: int
    compute_cny: dict[str, float]  # per role
    need_mbps: float
    bandwidth_fixed_cny: float
    bandwidth_elastic_cny: float

    @property
    def total_fixed_cny(self) -> float:
        return sum(self.compute_cny.values()) + self.bandwidth_fixed_cny

    @property
    def total_elastic_cny(self) -> float:
        return sum(self.compute_cny.values()) + self.bandwidth_elastic_cny


@dataclass(frozen=True, slots=True)
class MixedPlanOutcome:
    months: tuple[MonthCost, ...]
    total_fixed_cny: float
    total_elastic_cny: float
    saving_cny: float
    monthly_average_cny: float  # elastic
    shares: dict[str, float] = field(default_factory=dict)  # training / serving / bandwidth
    totals: dict[str, float] = field(default_factory=dict)


def mixed_plan_problems(p: MixedPlanInput) -> list[Message]:
    found: list[Message] = []
    if not 1 <= p.horizon_months <= 120:
        found.append(
            _m("horizon_range", "The plan spans 1 to 120 months.", "计划期限为 1 到 120 个月。")
        )
    if not (p.price_cny_mbps_month >= 0 and math.isfinite(p.price_cny_mbps_month)):
        found.append(
            _m(
                "bandwidth_price_negative",
                "The bandwidth price cannot be negative.",
                "带宽价格不能为负。",
            )
        )
    if not 0 <= p.elastic_premium <= 3:
        found.append(
            _m(
                "premium_range",
                "The elastic premium must be between 0 and 3 (0–300 %).",
                "弹性带宽溢价必须在 0 到 3 之间。",
            )
        )
    if not p.parts:
        found.append(
            _m(
                "no_parts",
                "A mixed plan needs a training or a serving part.",
                "混合方案至少需要训练或推理部分之一。",
            )
        )
    for part in p.parts:
        if not 1 <= part.first_month <= part.last_month:
            found.append(
                _m(
                    f"{part.role}_months",
                    f"The {part.role} part must start in month 1 or later and end no "
                    "earlier than it starts.",
                    f"{part.role} 部分的起止月份无效。",
                )
            )
        if min(part.compute_cny_month, part.bandwidth_mbps, part.idle_mbps) < 0:
            found.append(
                _m(
                    f"{part.role}_negative",
                    f"The {part.role} part has a negative figure.",
                    f"{part.role} 部分有负数。",
                )
            )
    return found


def _part_active(part: PlanPart, month: int) -> bool:
    return part.first_month <= month <= part.last_month


def _vendor_need(parts: Sequence[PlanPart], month: int) -> float | None:
    """Bandwidth the vendor's contract carries in a month; None outside the contract window."""
    if not min(p.first_month for p in parts) <= month <= max(p.last_month for p in parts):
        return None
    return sum(p.bandwidth_mbps if _part_active(p, month) else p.idle_mbps for p in parts)


def mixed_plan(p: MixedPlanInput) -> MixedPlanOutcome:
    """Month-by-month cost: elastic bandwidth pays each month's need, fixed the contract's peak.

    Parts at one vendor share one bandwidth contract, running from the first part's start to the
    last part's end; between its parts' phases it carries their idle bandwidth.
    """
    problems = mixed_plan_problems(p)
    if problems:
        raise ServingInputError(problems)
    by_vendor: dict[str, list[PlanPart]] = {}
    for part in p.parts:
        by_vendor.setdefault(part.vendor, []).append(part)
    needs = {
        v: [_vendor_need(ps, m) for m in range(1, p.horizon_months + 1)]
        for v, ps in by_vendor.items()
    }
    peaks = {v: max((x for x in n if x is not None), default=0.0) for v, n in needs.items()}
    price, elastic_price = p.price_cny_mbps_month, p.price_cny_mbps_month * (1 + p.elastic_premium)
    months: list[MonthCost] = []
    for i, month in enumerate(range(1, p.horizon_months + 1)):
        compute: dict[str, float] = {}
        for part in p.parts:
            share = part.compute_cny_month if _part_active(part, month) else 0.0
            compute[part.role] = compute.get(part.role, 0.0) + share
        live = {v: n[i] for v, n in needs.items() if n[i] is not None}
        need = sum(x for x in live.values() if x is not None)
        fixed = sum(peaks[v] * price for v in live)
        months.append(MonthCost(month, compute, need, fixed, need * elastic_price))
    return _mixed_outcome(months)


def _mixed_outcome(months: list[MonthCost]) -> MixedPlanOutcome:
    totals: dict[str, float] = {}
    for mc in months:
        for role, cny in mc.compute_cny.items():
            totals[role] = totals.get(role, 0.0) + cny
    totals["bandwidth"] = sum(mc.bandwidth_elastic_cny for mc in months)
    total_elastic = sum(mc.total_elastic_cny for mc in months)
    total_fixed = sum(mc.total_fixed_cny for mc in months)
    shares = {k: (v / total_elastic if total_elastic else 0.0) for k, v in totals.items()}
    return MixedPlanOutcome(
        months=tuple(months),
        total_fixed_cny=total_fixed,
        total_elastic_cny=total_elastic,
        saving_cny=total_fixed - total_elastic,
        monthly_average_cny=total_elastic / len(months),
        shares=shares,
        totals=totals,
    )


def memory_problem(w: InferenceWorkload, gpu: str) -> Message | None:
    """The weights do not fit in the replica's memory (leaving room for the KV cache)."""
    spec = SERVING_GPU_DEFAULTS.get(gpu)
    mem = spec.memory_gb if spec else 0.0
    need = w.params_b * PRECISIONS.get(w.precision, (2.0, 1.0))[0]
    have = mem * w.gpus_per_replica * MEMORY_USABLE_FOR_WEIGHTS
    if mem and need > have:
        return _m(
            "weights_do_not_fit",
            f"{w.params_b:g}B weights at {w.precision} need {need:.0f} GB; {w.gpus_per_replica} "
            f"× {gpu} leave {have:.0f} GB for weights. Use more GPUs per replica.",
            f"{w.params_b:g}B 模型在 {w.precision} 下需要 {need:.0f} GB 显存，"
            f"{w.gpus_per_replica} 块 {gpu} 只有 {have:.0f} GB 可用。请增加每副本 GPU。",
        )
    return None
