"""From a cost ranking to a recommendation a buyer can sign: eligibility, ranges, ties, headline.

Glue only: the rule is :mod:`domain.eligibility`, the ranges and the headline
:mod:`domain.uncertainty`. Inputs are the run's snapshot (the policy it was started with and
each offer's findings) and the cost model's outcome; the output is the extra fields of every
:class:`~rankings.models.RankingResult` and the run's ``decision``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from domain import costmodel as cm
from domain import eligibility as el
from domain import uncertainty as un
from domain.messages import Message


@dataclass(slots=True)
class OfferDecision:
    eligible: bool
    risk_action: str
    risk_marks: list[dict[str, str]]
    eligibility_reasons: list[dict[str, str]]
    risk_premium_pct: float
    risk_premium_month: float
    risk_adjusted_cost_per_eth: float
    risk_adjusted_low: float
    risk_adjusted_high: float
    cost_per_eth_low: float
    cost_per_eth_high: float
    decision_rank: int | None = None
    tie_with_winner: bool = False
    recommended: bool = False


def _findings(snapshot: Mapping[str, Any], offer: Mapping[str, Any]) -> tuple[el.RiskItem, ...]:
    stored = snapshot.get("risk_findings")
    if stored is None:  # a run stored before the risk policy: its flags were the critical ones
        rows = [{**f, "severity": "critical"} for f in offer.get("vendor_flags") or ()]
    else:
        rows = stored.get(str(offer.get("id")), ())
    return _items(tuple((r["code"], r.get("severity", "critical"), r.get("subject", ""), r["en"],
                         r["zh"]) for r in rows))  # fmt: skip


_ITEM_CACHE: dict[tuple[Any, ...], tuple[el.RiskItem, ...]] = {}


def _items(key: tuple[Any, ...]) -> tuple[el.RiskItem, ...]:
    found = _ITEM_CACHE.get(key)
    if found is None:
        found = tuple(
            el.finding_item({"code": c, "severity": s, "subject": sub, "en": en, "zh": zh})
            for c, s, sub, en, zh in key
        )
        if len(_ITEM_CACHE) < 4096:
            _ITEM_CACHE[key] = found
    return found


def _assessments(
    snapshot: Mapping[str, Any],
    results: Sequence[cm.OfferResult],
    policy: el.RiskPolicy,
) -> list[el.Assessment]:
    offers = {str(o.get("id")): o for o in snapshot["offers"]}
    out = []
    for r in results:
        o = offers.get(r.offer_id, {})
        nic = float(o.get("nic_gbps") or 0.0)
        risks = el.offer_risks(
            _findings(snapshot, o), nic_gbps=nic,
            nominal_gbps=nic * float(o.get("nics_per_node") or 1),
            bandwidth_measured=r.bandwidth_basis == "measured", nodes_used=r.nodes_used,
            policy=policy,
        )  # fmt: skip
        out.append(el.assess(risks, policy))
    return out


def _ranges(snapshot: Mapping[str, Any], results: Sequence[cm.OfferResult]) -> tuple[Any, Any]:
    offers = {str(o.get("id")): o for o in snapshot["offers"]}

    def ratio(r: cm.OfferResult) -> float:
        o = offers.get(r.offer_id, {})
        p5, p50 = o.get("measured_gbps"), o.get("measured_p50_gbps")
        return float(p5) / float(p50) if p5 and p50 else 1.0

    return un.cost_ranges(
        np.fromiter((r.cost_per_eth for r in results), float, len(results)),
        np.fromiter((r.compute_time_s for r in results), float, len(results)),
        np.fromiter((r.comm_time_s for r in results), float, len(results)),
        float(snapshot["workload"].get("overlap", 0.5)),
        np.fromiter((r.bandwidth_basis == "measured" for r in results), bool, len(results)),
        np.fromiter(map(ratio, results), float, len(results)),
    )


def decide(
    snapshot: Mapping[str, Any], outcome: cm.RankingOutcome
) -> tuple[list[OfferDecision], dict[str, Any]]:
    """Per result (in the outcome's order) its decision fields, and the run's decision."""
    results = outcome.results
    policy = el.policy_from_dict(snapshot.get("risk_policy"))
    if not results:
        return [], {"policy": el.policy_to_dict(policy), "recommended": None, "eligible": 0,
                    "excluded": 0, "all_excluded": False, "tie": False, "tied": []}  # fmt: skip
    assessed = _assessments(snapshot, results, policy)
    low, high = _ranges(snapshot, results)
    fx = snapshot.get("fx_to_cny") or {}
    pct = np.array([a.premium_pct for a in assessed]) / 100.0
    money = np.array([_in_currency(a.premium_cny_month, r.currency, fx)
                      for a, r in zip(assessed, results, strict=True)])  # fmt: skip
    eth = np.array([r.eth_per_hour for r in results])
    extra = np.where(money > 0, money / el.HOURS_PER_MONTH / eth, 0.0)
    cost = np.array([r.cost_per_eth for r in results])
    adj, adj_low, adj_high = (x * (1 + pct) + extra for x in (cost, low, high))
    eligible = np.array([a.eligible for a in assessed], dtype=bool)
    order = [i for i in np.lexsort((np.arange(len(results)), adj)).tolist() if eligible[i]]
    winner = order[0] if order else -1
    tied = un.ties_with(winner, adj_low, adj_high, eligible)
    rows = [
        OfferDecision(
            a.eligible,
            a.action,
            [m.as_dict() for m in a.marks],
            [m.as_dict() for m in a.reasons],
            a.premium_pct,
            float(money[i]),
            float(adj[i]),
            float(adj_low[i]),
            float(adj_high[i]),
            float(low[i]),
            float(high[i]),
            tie_with_winner=bool(tied[i]),
            recommended=i == winner,
        )  # fmt: skip
        for i, a in enumerate(assessed)
    ]
    for position, i in enumerate(order, start=1):
        rows[i].decision_rank = position
    run = _run_decision(snapshot, results, rows, order, tied.nonzero()[0].tolist(), policy)
    return rows, run


def _in_currency(cny: float, currency: str, fx: Mapping[str, float]) -> float:
    if not cny or currency == "CNY":
        return cny
    rate = fx.get(currency)
    return cny / float(rate) if rate else 0.0  # no rate: the money part cannot be applied


def _contender(label: str, row: OfferDecision, r: cm.OfferResult) -> un.Contender:
    return un.Contender(label, row.risk_adjusted_cost_per_eth, len(row.risk_marks),
                        row.risk_premium_pct, r.bandwidth_basis == "measured")  # fmt: skip


def _run_decision(
    snapshot: Mapping[str, Any],
    results: Sequence[cm.OfferResult],
    rows: list[OfferDecision],
    order: list[int],
    tied: list[int],
    policy: el.RiskPolicy,
) -> dict[str, Any]:
    offers = {str(o.get("id")): o for o in snapshot["offers"]}

    def label(i: int) -> str:
        o = offers.get(results[i].offer_id, {})
        return " · ".join(x for x in (o.get("vendor"), o.get("label")) if x) or results[i].offer_id

    excluded = len(results) - len(order)
    position = {i: p for p, i in enumerate(order)}
    under_default: list[dict[str, str]] = []
    if not order:
        defaults = _assessments(snapshot, results, el.DEFAULT_POLICY)
        under_default = [{"id": results[i].offer_id, "label": label(i)}
                         for i, a in enumerate(defaults) if a.eligible]  # fmt: skip
    contenders = [_contender(label(i), rows[i], results[i]) for i in order[:2]]
    head = un.headline(
        contenders[0] if contenders else None,
        contenders[1] if len(contenders) > 1 else None,
        [_contender(label(i), rows[i], results[i]) for i in sorted(tied, key=position.get)],
        excluded=excluded,
        eligible_under_default=[d["label"] for d in under_default],
    )
    return {
        "policy": el.policy_to_dict(policy),
        "policy_note": policy_note(policy).as_dict(),
        "recommended": results[order[0]].offer_id if order else None,
        "eligible": len(order),
        "excluded": excluded,
        "all_excluded": not order,
        "tie": bool(tied),
        "tied": [results[i].offer_id for i in tied],
        "headline": head.message.as_dict(),
        "deciders": [m.as_dict() for m in head.deciders],
        "eligible_under_default": under_default,
    }


def policy_note(policy: el.RiskPolicy) -> Message:
    """One line on the policy a run used (for pages and reports)."""
    parts_en, parts_zh = [], []
    for s in el.SEVERITIES:
        rule = policy.rule(s)
        en, zh = el.SEVERITY_NAMES[s]
        pct = f" +{rule.premium_pct:g}%" if rule.action == "premium" and rule.premium_pct else ""
        parts_en.append(f"{en}: {rule.action}{pct}")
        parts_zh.append(f"{zh}：{_ACTION_ZH[rule.action]}{pct}")
    return Message("risk_policy", "Risk policy — " + "; ".join(parts_en),
                   "风险策略——" + "；".join(parts_zh))  # fmt: skip


_ACTION_ZH = {"exclude": "排除", "premium": "标注并计溢价", "mark": "仅标注", "ignore": "忽略"}
