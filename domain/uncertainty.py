"""Uncertainty of the cost per effective training hour, ties with the winner, and the headline.

Range of one offer's cost per ETH. The cost model gives, per offer, the compute time per step
``t_c``, the communication time ``t_x`` and the overlap ``o`` of the workload; its cost is
``cost = base * (1 + t_e / t_c)`` with ``t_e = max(0, t_x - o * t_c)`` (COST-MODEL.md steps 4-8,
``base`` = cost with no exposed communication). The range moves the uncertain inputs together:

- measured bandwidth (accepted evidence): the model ranks on the P5 interval throughput; the low
  end takes the median (P50), i.e. ``t_x * P5 / P50``; the high end keeps P5;
- unverified (nominal) bandwidth: untested links often reach well under their port speed, so the
  high end assumes only :data:`UNVERIFIED_BANDWIDTH_FACTOR` (half) of it (``t_x / 0.5``);
- overlap: ± :data:`OVERLAP_BAND` (0.15, clamped to 0-1) of hidden communication;
- mfu: ± :data:`MFU_BAND` (10 %) on every GPU alike, reference included (the ETH unit stays), so
  it changes only ``t_c`` and with it how much communication hides (higher mfu: worse end);
- the first-order model itself (availability, per-GPU mfu table, hours per month): ± ``MODEL_BAND``
  (2 %) on both ends, so two offers 0.7 % apart are never told apart by the model alone.

``low = base * (1 + t_e_low / t_c_low) * (1 - MODEL_BAND)`` and the same with the high-end inputs
times ``(1 + MODEL_BAND)``; a one-node offer moves no gradients and keeps only the model band.

Ties: an eligible offer whose (risk-adjusted) range reaches the winner's range is
``tie_with_winner``; :func:`headline` then says what decides between them instead of naming a
winner by a fraction of a percent. Column-wise with numpy: 10,000 offers take a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from domain.messages import Message

_Array = np.ndarray[Any, Any]

UNVERIFIED_BANDWIDTH_FACTOR = 0.5
OVERLAP_BAND = 0.15
MFU_BAND = 0.10
MODEL_BAND = 0.02


def cost_ranges(
    cost: _Array,
    compute_s: _Array,
    comm_s: _Array,
    overlap: float,
    measured: _Array,
    p5_over_p50: _Array,
) -> tuple[_Array, _Array]:
    """Low and high cost per ETH of every offer (arrays of equal length; p5_over_p50 is 1 where
    there is no median figure)."""
    t_c = np.asarray(compute_s, dtype=float)
    t_x = np.asarray(comm_s, dtype=float)
    base = cost / (1.0 + np.maximum(0.0, t_x - overlap * t_c) / t_c)
    t_c_lo, t_c_hi = t_c / (1.0 - MFU_BAND), t_c / (1.0 + MFU_BAND)
    o_lo, o_hi = min(1.0, overlap + OVERLAP_BAND), max(0.0, overlap - OVERLAP_BAND)
    t_x_lo = np.where(measured, t_x * p5_over_p50, t_x)
    t_x_hi = np.where(measured, t_x, t_x / UNVERIFIED_BANDWIDTH_FACTOR)
    low = base * (1.0 + np.maximum(0.0, t_x_lo - o_lo * t_c_lo) / t_c_lo) * (1.0 - MODEL_BAND)
    high = base * (1.0 + np.maximum(0.0, t_x_hi - o_hi * t_c_hi) / t_c_hi) * (1.0 + MODEL_BAND)
    return np.minimum(low, cost), np.maximum(high, cost)


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
