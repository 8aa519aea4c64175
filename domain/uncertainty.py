"""Uncertainty of the cost per effective training hour, ties with the winner, and the headline.

Range of one offer's cost per ETH, on the training model's own terms (docs/MODEL.md §15.1). An
ETH is an hour of the reference GPU at a fixed mfu, so at a fixed bill the cost per ETH is
proportional to ``step time ÷ model compute time`` of the offer's step. The step the ranking
priced is taken as given: ``S = C + N + R`` with ``C`` the compute, ``N`` the exposed
communication that crosses the servers' NICs (the part the network figure moves) and ``R``
everything else (pipeline bubble, optimizer, traffic inside a server), which follows the GPU and
is held in proportion to ``C``. An end of the range is ``cost × (R + C + N' · C / C') / S``, with
``N'`` the network time and ``C'`` the compute under that end's inputs:

- measured bandwidth counted as verified: the offer is priced at its typical figure; the low end
  takes the high end of the measured range (the snapshot's ``measured_p50_gbps``, the quote's
  ``measured_high_gbps``), the high end its low end (``evidence.low_gbps``: the worst test, less
  the margin for ports not tested together); both capped at the quoted NICs as the ranking caps
  them. Network time scales as typical ÷ figure. A missing figure moves nothing on its side;
- unverified bandwidth (a claim, or evidence the policy does not count): untested links often
  reach well under their port speed, so the high end assumes :data:`UNVERIFIED_BANDWIDTH_FACTOR`
  (half) of the rate priced, the network time doubles; the low end keeps the rate;
- overlap: the data-parallel traffic ``T`` runs beside a window ``W`` of compute and overlap hides
  ``η · min(W, T)`` of it (steptime: ``η`` the fitted overlap efficiency, 0.6); the result
  carries only the exposed part ``E``, so ``T`` is recovered from it as
  ``min(E / (1 − η), E + η · W)`` (the inverse of ``E = T − η · min(W, T)``) and each end
  re-applies the overlap to its own traffic with ``η`` ± :data:`OVERLAP_BAND` (0.15, clamped to
  0-1): the shift of the share hidden. Tensor, context, pipeline and expert traffic crossing the
  servers scales with the bandwidth as exposed (the model hides little of it);
- mfu: ± :data:`MFU_BAND` (10 %) on every GPU alike, reference included (the ETH unit stays), so
  it changes only how long the compute is against the network time and how much traffic hides
  (higher mfu: worse end);
- the model itself (availability, GPU table, fitted constants): ± :data:`MODEL_BAND` (2 %) on both
  ends, so two offers 0.7 % apart are never told apart by the model alone.

A one-node offer sends nothing over the network and keeps only the model band. Latency terms are
scaled with the bandwidth too (the result does not separate them), which widens the range a little.

Ties: an eligible offer whose (risk-adjusted) range reaches the winner's range is
``tie_with_winner``; :func:`headline` then says what decides between them instead of naming a
winner by a fraction of a percent. Column-wise with numpy: 10,000 offers take a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from domain.messages import Message
from domain.trainmodel.calibration import cal

_Array = np.ndarray[Any, Any]

UNVERIFIED_BANDWIDTH_FACTOR = 0.5
OVERLAP_BAND = 0.15
MFU_BAND = 0.10
MODEL_BAND = 0.02


@dataclass(frozen=True, slots=True)
class StepParts:
    """One ranking's offers as columns (arrays of one length), in seconds per step."""

    step_s: _Array  # the step as ranked
    compute_s: _Array  # its model compute
    dp_net_s: _Array  # exposed data-parallel time of a group spanning servers (else 0)
    other_net_s: _Array  # exposed tensor/context, pipeline and expert traffic crossing servers
    dp_window_s: _Array  # the compute the data-parallel traffic runs beside


def network_parts(
    detail: Mapping[str, Any] | None, comm_s: float, gpus_per_node: int, nodes_used: int
) -> tuple[float, float, float]:
    """(exposed DP time crossing servers, other exposed time crossing servers, DP window) of one
    result, from its breakdown (rank.detail: the layout and the step split). Placement as in
    links.py: tp innermost, then cp, dp, pp; a group of n ranks `stride` apart leaves its server
    when n × stride > gpus per server; expert groups are consecutive ranks. Without a breakdown
    every exposed second of a multi-server offer counts as network time, none as data-parallel."""
    if nodes_used <= 1:
        return 0.0, 0.0, 0.0
    step = (detail or {}).get("step")
    layout = (detail or {}).get("layout")
    if not isinstance(step, Mapping) or not isinstance(layout, Mapping):
        return 0.0, comm_s, 0.0
    g = max(1, gpus_per_node)
    tp, cp, dp = (int(layout.get(k) or 1) for k in ("tp", "cp", "dp"))
    pp, ep = int(layout.get("pp") or 1), int(layout.get("ep") or 1)
    compute = float(step.get("compute_s") or 0.0)
    dp_s = float(step.get("dp_s") or 0.0) if dp * cp > 1 and tp * cp * dp > g else 0.0
    other = float(step.get("tp_s") or 0.0) if tp * cp > g else 0.0
    other += float(step.get("pp_transfer_s") or 0.0) if tp * cp * dp * pp > g else 0.0
    other += float(step.get("ep_s") or 0.0) if ep > g else 0.0
    return dp_s, other, _dp_window(compute, layout, step)


def _dp_window(compute: float, layout: Mapping[str, Any], step: Mapping[str, Any]) -> float:
    """The compute data-parallel traffic hides behind (steptime._dp_exposed_s): DDP's all-reduce
    the last microbatch's backward; ZeRO-1/2 the reduce-scatter behind it and the all-gather
    behind its forward; DeepSpeed's ZeRO-2 without pipeline reduces behind every microbatch's
    backward; ZeRO-3 gathers and reduces beside every microbatch."""
    m = max(1, int(step.get("microbatches") or 1))
    zero, pp = int(layout.get("zero_stage") or 0), int(layout.get("pp") or 1)
    bwd = 0.75 if layout.get("recompute") == "full" else 2.0 / 3.0
    c_mb = compute / m
    if zero == 3:
        return compute
    if zero == 2 and pp == 1:
        return bwd * compute + (1.0 - bwd) * c_mb
    return bwd * c_mb if zero == 0 else c_mb


def bandwidth_times(
    verified: _Array, typical: _Array, high: _Array, low: _Array, nominal: _Array
) -> tuple[_Array, _Array]:
    """Network time at the low and the high end as a multiple of the time priced: measured and
    verified, typical ÷ high and typical ÷ low (each capped at the quoted NICs, nominal ≤ 0: no
    cap; a missing figure, nan, keeps 1); otherwise 1 and 1 ÷ UNVERIFIED_BANDWIDTH_FACTOR."""
    nominal = np.asarray(nominal, dtype=float)
    cap = np.where(nominal > 0, nominal, np.inf)

    def ratio(figure: _Array) -> _Array:
        f = np.minimum(np.asarray(figure, dtype=float), cap)
        t = np.minimum(np.asarray(typical, dtype=float), cap)
        ok = np.isfinite(f) & (f > 0) & np.isfinite(t) & (t > 0)
        return np.where(ok, t / np.where(ok, f, 1.0), 1.0)

    measured = np.asarray(verified, dtype=bool)
    t_low = np.where(measured, np.minimum(1.0, ratio(high)), 1.0)
    t_high = np.where(measured, np.maximum(1.0, ratio(low)), 1.0 / UNVERIFIED_BANDWIDTH_FACTOR)
    return t_low, t_high


def cost_ranges(
    cost: _Array, parts: StepParts, dp_overlap: bool, time_low: _Array, time_high: _Array
) -> tuple[_Array, _Array]:
    """Low and high cost per ETH of every offer (arrays of equal length); `time_low` and
    `time_high` multiply the network time at each end (bandwidth_times)."""
    cost = np.asarray(cost, dtype=float)
    step = np.asarray(parts.step_s, dtype=float)
    c = np.asarray(parts.compute_s, dtype=float)
    e = np.asarray(parts.dp_net_s, dtype=float)
    o = np.asarray(parts.other_net_s, dtype=float)
    w = np.asarray(parts.dp_window_s, dtype=float)
    eta = cal().overlap_efficiency if dp_overlap else 0.0
    traffic = _dp_traffic(e, w, eta)
    usable = (step > 0) & (c > 0)
    safe_s = np.where(usable, step, 1.0)

    def end(times: _Array, mfu: float, eta_end: float) -> _Array:
        # mfu higher by `mfu`: the compute takes 1 / (1 + mfu) of its time, and so its window
        shrink = 1.0 / (1.0 + mfu)
        t = traffic * times
        exposed = t - eta_end * np.minimum(w * shrink, t)
        network = exposed + o * times
        factor = (safe_s - e - o + network / shrink) / safe_s
        return np.where(usable, cost * factor, cost)

    low = end(np.asarray(time_low, dtype=float), -MFU_BAND, _band(eta, +1, dp_overlap))
    high = end(np.asarray(time_high, dtype=float), MFU_BAND, _band(eta, -1, dp_overlap))
    return np.minimum(low * (1 - MODEL_BAND), cost), np.maximum(high * (1 + MODEL_BAND), cost)


def _band(eta: float, sign: int, on: bool) -> float:
    return min(1.0, max(0.0, eta + sign * OVERLAP_BAND)) if on else 0.0


def _dp_traffic(exposed: _Array, window: _Array, eta: float) -> _Array:
    """The data-parallel traffic whose exposed part is `exposed` when overlap hides
    ``eta · min(window, traffic)`` of it: the inverse of steptime's overlap."""
    if eta <= 0.0:
        return exposed
    if eta >= 1.0:
        return exposed + window
    return np.minimum(exposed / (1.0 - eta), exposed + eta * window)


def ties_with(winner: int, low: _Array, high: _Array, candidates: _Array) -> _Array:
    """True for each candidate (other than the winner) whose range overlaps the winner's."""
    if winner < 0:
        return np.zeros(len(low), dtype=bool)
    overlap = (low <= high[winner]) & (high >= low[winner]) & candidates
    overlap[winner] = False
    return np.asarray(overlap, dtype=bool)


# ---------------------------------------------------------------------------------------------
# Headline


@dataclass(frozen=True, slots=True)
class Contender:
    """What the headline needs to know about one eligible offer."""

    label: str
    cost: float  # risk-adjusted cost per ETH
    risk_marks: int
    premium_pct: float
    verified_bandwidth: bool


@dataclass(frozen=True, slots=True)
class Headline:
    message: Message
    deciders: tuple[Message, ...]  # what decides between tied offers (empty for a clear winner)


def headline(
    winner: Contender | None,
    runner_up: Contender | None,
    tied: Sequence[Contender],
    *,
    excluded: int,
    eligible_under_default: Sequence[str] = (),
) -> Headline:
    """The sentence over a ranking: a clear recommendation, a tie and what decides it, or why no
    offer can be recommended."""
    if winner is None:
        return Headline(_none_eligible(excluded, eligible_under_default), ())
    if tied:
        return Headline(_tie(winner, tied), _deciders(winner, tied))
    if runner_up is None:
        msg = Message(
            "recommend_only",
            f"{winner.label} is the only eligible offer.",
            f"{winner.label} 是唯一合格的报价。",
        )
    else:
        gap = _gap_pct(winner, runner_up)
        msg = Message(
            "recommend_clear",
            f"Recommended: {winner.label}, the cheapest eligible offer per effective training "
            f"hour, {gap:.1f}% below {runner_up.label}, beyond the uncertainty of both.",
            f"推荐：{winner.label}，每有效训练小时成本最低的合格报价，比 {runner_up.label} 低 "
            f"{gap:.1f}%，超出两者的不确定范围。",
        )
    extra = () if winner.verified_bandwidth else (_verify(winner.label),)
    return Headline(msg, extra)


def _gap_pct(a: Contender, b: Contender) -> float:
    return (b.cost - a.cost) / a.cost * 100.0 if a.cost else 0.0


def _none_eligible(excluded: int, under_default: Sequence[str]) -> Message:
    if under_default:
        names = _names(under_default)
        return Message(
            "none_eligible",
            f"No offer is eligible under the team's risk policy (all {excluded} excluded). "
            f"Under the default policy these would be: {names}.",
            f"按团队风险策略没有合格报价（{excluded} 个全部排除）。按默认策略合格的有：{names}。",
        )
    return Message(
        "none_eligible_default",
        f"No offer is eligible (all {excluded} excluded), not even under the default policy: "
        "ask the vendors to resolve their critical findings, or add offers.",
        f"没有合格报价（{excluded} 个全部排除），按默认策略也没有："
        "请供应商解决严重问题，或增加报价。",
    )


NAMES_SHOWN = 5


def _names(labels: Sequence[str]) -> str:
    """At most NAMES_SHOWN names: a tie among thousands of offers stays one readable line."""
    shown = ", ".join(labels[:NAMES_SHOWN])
    return shown + (f", … (+{len(labels) - NAMES_SHOWN})" if len(labels) > NAMES_SHOWN else "")


def _tie(winner: Contender, tied: Sequence[Contender]) -> Message:
    names = _names([t.label for t in tied])
    gap = max(_gap_pct(winner, t) for t in tied)
    return Message(
        "tie",
        f"No clear winner: {winner.label} and {len(tied)} other offer(s) ({names}) cost the same "
        f"per effective training hour within the uncertainty range (at most {gap:.1f}% apart). "
        "Decide on risk, verified evidence and contract terms, not on this difference.",
        f"没有明确的胜出者：{winner.label} 与另外 {len(tied)} 个报价（{names}）的每有效训练小时"
        f"成本在不确定范围内相同（相差不超过 {gap:.1f}%）。请根据风险、已验证的证据和合同条款决定，"
        "而不是这点差价。",
    )


def _deciders(winner: Contender, tied: Sequence[Contender]) -> tuple[Message, ...]:
    """What decides between tied offers, from their facts: who carries fewer risk marks (and
    premiums), whose bandwidth is verified rather than only claimed, then the contract terms."""
    every = [winner, *tied]
    group = every[:NAMES_SHOWN]
    counts = "; ".join(f"{c.label}: {c.risk_marks}" for c in group)
    fewest = min(c.risk_marks for c in every)
    if all(c.risk_marks == fewest for c in every):
        risk = Message(
            "decide_risk",
            f"Risk marks: {counts} — the same for all, so risk does not decide.",
            f"风险标记数：{counts}——各方相同，风险不构成区别。",
        )
    else:
        best = _names([c.label for c in every if c.risk_marks == fewest])
        risk = Message(
            "decide_risk",
            f"Risk marks: {counts} — {best} carries the fewest ({fewest}).",
            f"风险标记数：{counts}——{best} 最少（{fewest} 项）。",
        )
    out = [risk]
    premiums = [c for c in group if c.premium_pct]
    if premiums:
        listed = "; ".join(f"{c.label}: +{c.premium_pct:g}%" for c in premiums)
        en = f"Risk premiums already counted in the cost: {listed}."
        out.append(Message("decide_premium", en, f"已计入成本的风险溢价：{listed}。"))
    verified = [c.label for c in every if c.verified_bandwidth]
    claimed = [c.label for c in every if not c.verified_bandwidth]
    if verified and claimed:
        out.append(
            Message(
                "decide_evidence",
                f"Bandwidth verified by benchmark evidence: {_names(verified)}; "
                f"{_names(claimed)} only claimed it — verified evidence counts for more.",
                f"带宽经测试证据验证的：{_names(verified)}；{_names(claimed)} 仅为声称值——"
                "已验证的证据更有分量。",
            )
        )
    elif verified:
        out.append(
            Message(
                "decide_evidence",
                f"Bandwidth verified by benchmark evidence for all of them ({_names(verified)}): "
                "evidence does not decide.",
                f"各方带宽均经测试证据验证（{_names(verified)}）：证据不构成区别。",
            )
        )
    else:
        out.append(_verify(_names(claimed)))
    out.append(
        Message(
            "decide_contract",
            "Compare the contract terms: bandwidth written into the contract, compensation "
            "when it is not met, hardware-replacement and response times.",
            "比较合同条款：带宽是否写入合同、未达标时的赔付、硬件更换与响应时间。",
        )
    )
    return tuple(out)


def _verify(labels: str) -> Message:
    return Message(
        "decide_verify",
        f"No accepted benchmark evidence for {labels}: run the trial benchmark (iperf3 / "
        "ib_write_bw, many server pairs at once) before signing.",
        f"{labels} 没有认可的测试证据：签约前请在试用期内做带宽测试（iperf3 / ib_write_bw，"
        "多对服务器并发）。",
    )
