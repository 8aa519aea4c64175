"""From a cost ranking to a recommendation a buyer can sign: eligibility, ranges, ties, headline.

The one decision of a training ranking, computed once by the ranking job and stored: the risk
rule is :mod:`domain.eligibility` (findings, unverified claims, the policy's actions and
premium), the ranges and the headline :mod:`domain.uncertainty`, the runner-up, savings and
term fits :mod:`.summary`; an RFQ's mandatory-requirement standings knock bids out or rank them
last. Inputs are the run's snapshot (the policy it was started with, each offer's findings and
standing) and the ranking's outcome; the output is the decision fields of every result (the
page, exports, API and RFQ evaluation render them) and the run's ``decision``.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from domain import eligibility as el
from domain import labels, ranking
from domain import uncertainty as un
from domain.decision import summary as dd
from domain.evidence.linkrates import port_achievable_gbps
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
    # the job outlasts the offer's contract term (domain/decision.py): a warning on the offer
    term_warning: dict[str, str] | None = None


_Key = tuple[tuple[str, str, str, str, str], ...]


# the reasons that say how an eligible offer is ranked (eligibility.assess)
RANKED_AS = frozenset({"risk_premium", "risk_marked"})


def _finding_key(snapshot: Mapping[str, Any], offer: Mapping[str, Any], offer_id: str) -> _Key:
    """An offer's findings as a hashable key: offers of one vendor site share it."""
    stored = snapshot.get("risk_findings")
    rows: Sequence[Mapping[str, Any]]
    if stored is None:  # a run stored before the risk policy: its flags were the critical ones
        rows = [{**f, "severity": "critical"} for f in offer.get("vendor_flags") or ()]
    else:
        rows = stored.get(offer_id) or ()
    return tuple((r["code"], r.get("severity", "critical"), r.get("subject", ""), r["en"], r["zh"])
                 for r in rows)  # fmt: skip


def _items(key: _Key) -> tuple[el.RiskItem, ...]:
    return tuple(
        el.finding_item({"code": c, "severity": s, "subject": sub, "en": en, "zh": zh})
        for c, s, sub, en, zh in key
    )


def _assessments(
    snapshot: Mapping[str, Any],
    offers: Mapping[str, Mapping[str, Any]],
    results: Sequence[ranking.OfferResult],
    policy: el.RiskPolicy,
) -> list[el.Assessment]:
    """Each result's assessment; offers with the same findings and claims share one (10,000
    offers from a few vendors are a few dozen assessments)."""
    memo: dict[tuple[Any, ...], el.Assessment] = {}
    out = []
    for r in results:
        o = offers.get(r.offer_id, _NO_OFFER)
        nic = float(o.get("nic_gbps") or 0.0)
        nominal = nic * float(o.get("nics_per_node") or 1)
        measured = r.bandwidth_basis == "measured"
        trust = _evidence_trust(o)
        verified = el.counts_as_verified(measured=measured, trust=trust, policy=policy)
        figure = float(o.get("measured_gbps") or 0.0)
        fkey = _finding_key(snapshot, o, r.offer_id)
        key = (fkey, nic if nic > el.MAX_NIC_PORT_GBPS else 0.0,
               None if verified or r.nodes_used <= 1 else (measured, nominal, figure))  # fmt: skip
        found = memo.get(key)
        if found is None:
            risks = el.offer_risks(
                _items(fkey), nic_gbps=nic, nominal_gbps=nominal, bandwidth_measured=measured,
                nodes_used=r.nodes_used, policy=policy, evidence_trust=trust,
                measured_gbps=figure or None,
            )  # fmt: skip
            found = memo[key] = el.assess(risks, policy)
        out.append(found)
    return out


_NO_OFFER: Mapping[str, Any] = {}


def _evidence_trust(offer: Mapping[str, Any]) -> str | None:
    """The weakest trust level of the logs behind an offer's measured figure, as the snapshot
    carries it in the figure's derivation (benchmarks.services.quote_measured_update)."""
    evidence = offer.get("evidence")
    trust = evidence.get("trust") if isinstance(evidence, Mapping) else None
    return trust if isinstance(trust, str) else None


def _ranges(
    snapshot: Mapping[str, Any],
    offers: Mapping[str, Mapping[str, Any]],
    results: Sequence[ranking.OfferResult],
    policy: el.RiskPolicy = el.DEFAULT_POLICY,
) -> tuple[Any, Any]:
    """Each result's cost range (domain/uncertainty.py) from its step split and its offer's
    measured figures as the snapshot carries them: ``measured_gbps`` the typical figure priced,
    ``measured_p50_gbps`` the high end of the measured range (the quote's
    ``measured_high_gbps`` under its snapshot name), ``evidence.low_gbps`` the low end."""
    n = len(results)

    def verified(r: ranking.OfferResult) -> bool:
        trust = _evidence_trust(offers.get(r.offer_id, _NO_OFFER))
        return el.counts_as_verified(
            measured=r.bandwidth_basis == "measured", trust=trust, policy=policy
        )

    def figure(r: ranking.OfferResult, key: str) -> float:
        o = offers.get(r.offer_id, _NO_OFFER)
        found = (o.get("evidence") or {}).get("low_gbps") if key == "low" else o.get(key)
        return float(found) if isinstance(found, int | float) and found > 0 else np.nan

    def nominal(r: ranking.OfferResult) -> float:
        """What the quoted ports can carry per server: the cap the ranking puts on a measured
        figure too (ranking.network.credited_port_gbps), so both ends use the priced physics."""
        o = offers.get(r.offer_id, _NO_OFFER)
        nic = float(o.get("nic_gbps") or 0.0)
        port = port_achievable_gbps(str(o.get("fabric") or ""), nic) if nic > 0 else 0.0
        return (port or nic) * float(o.get("nics_per_node") or 1)

    def parts(r: ranking.OfferResult) -> tuple[float, float, float]:
        g = int(offers.get(r.offer_id, _NO_OFFER).get("gpus_per_node") or 1)
        return un.network_parts(r.model_detail, r.comm_time_s, g, r.nodes_used)

    split = np.array([parts(r) for r in results], dtype=float).reshape(n, 3)
    step = un.StepParts(
        np.fromiter((r.step_time_s for r in results), float, n),
        np.fromiter((r.compute_time_s for r in results), float, n),
        split[:, 0], split[:, 1], split[:, 2],
    )  # fmt: skip
    t_low, t_high = un.bandwidth_times(
        np.fromiter(map(verified, results), bool, n),
        np.fromiter((figure(r, "measured_gbps") for r in results), float, n),
        np.fromiter((figure(r, "measured_p50_gbps") for r in results), float, n),
        np.fromiter((figure(r, "low") for r in results), float, n),
        np.fromiter(map(nominal, results), float, n),
    )
    cost = np.fromiter((r.cost_per_eth for r in results), float, n)
    return un.cost_ranges(cost, step, dp_overlap(snapshot), t_low, t_high)


def scenario_overlap(snapshot: Mapping[str, Any]) -> float:
    """The overlap a snapshot is ranked with: its scenario's (a what-if), else the workload's."""
    chosen = (snapshot.get("scenario") or {}).get("overlap")
    return float(chosen if chosen is not None else snapshot["workload"].get("overlap", 0.5))


def dp_overlap(snapshot: Mapping[str, Any]) -> bool:
    """Whether the training model overlaps data-parallel traffic with compute in this ranking:
    a what-if's overlap decides alone (rank.py), else the workload's overlap above 0 and a given
    parallel request that does not turn it off (ranking.workload_of)."""
    chosen = (snapshot.get("scenario") or {}).get("overlap")
    if chosen is not None:
        return float(chosen) > 0
    given = ((snapshot.get("workload_architecture") or {}).get("parallel") or {}).get("dp_overlap")
    return scenario_overlap(snapshot) > 0 and given is not False


def decide(
    snapshot: Mapping[str, Any], outcome: ranking.RankingOutcome
) -> tuple[list[OfferDecision], dict[str, Any]]:
    results = outcome.results
    policy = el.policy_from_dict(snapshot.get("risk_policy"))
    if not results:
        return [], {"policy": el.policy_to_dict(policy), "recommended": None, "eligible": 0,
                    "excluded": 0, "all_excluded": False, "tie": False, "tied": [],
                    "runner_up": None, "savings": [], "terms": {}, "term_short": []}  # fmt: skip
    offers = {str(o.get("id")): o for o in snapshot["offers"]}
    assessed = _assessments(snapshot, offers, results, policy)
    low, high = _ranges(snapshot, offers, results, policy)
    fx = snapshot.get("fx_to_cny") or {}
    pct = np.array([a.premium_pct for a in assessed]) / 100.0
    money = np.array([_in_currency(a.premium_cny_month, r.currency, fx)
                      for a, r in zip(assessed, results, strict=True)])  # fmt: skip
    eth = np.array([r.eth_per_hour for r in results])
    extra = np.where(money > 0, money / el.HOURS_PER_MONTH / eth, 0.0)
    cost = np.array([r.cost_per_eth for r in results])
    adj, adj_low, adj_high = (x * (1 + pct) + extra for x in (cost, low, high))
    eligible = np.array([a.eligible for a in assessed], dtype=bool)
    standing = _standings(snapshot, results)
    knocked = np.array([s == "knocked_out" for s, _ in standing], dtype=bool)
    last = np.array([s == "ranked_last" for s, _ in standing], dtype=bool)
    eligible &= ~knocked
    # RFQ bids that fail a mandatory requirement the RFQ ranks last come after every
    # conforming one; knocked-out bids are not ranked at all
    order = [i for i in np.lexsort((np.arange(len(results)), adj, last)).tolist() if eligible[i]]
    winner = order[0] if order else -1  # a conforming bid whenever there is one
    tied = un.ties_with(winner, adj_low, adj_high, eligible & (last == last[winner]))
    as_dicts: dict[int, tuple[list[dict[str, str]], list[dict[str, str]]]] = {}
    for a in assessed:  # shared assessments: their JSON form is built once
        if id(a) not in as_dicts:
            as_dicts[id(a)] = ([m.as_dict() for m in a.marks], [m.as_dict() for m in a.reasons])
    columns = zip(
        money.tolist(), adj.tolist(), adj_low.tolist(), adj_high.tolist(), low.tolist(),
        high.tolist(), tied.tolist(), strict=True,
    )  # fmt: skip
    gc_was_on = gc.isenabled()
    gc.disable()  # 10,000 small rows: a collection pass over the whole snapshot costs more
    try:
        rows = [
            OfferDecision(
                a.eligible,
                a.action,
                *as_dicts[id(a)],
                a.premium_pct,
                m,
                x,
                xl,
                xh,
                lo,
                hi,
                tie_with_winner=t,
                recommended=i == winner,
            )  # fmt: skip
            for i, (a, (m, x, xl, xh, lo, hi, t)) in enumerate(zip(assessed, columns, strict=True))
        ]
    finally:
        if gc_was_on:
            gc.enable()
    for position, i in enumerate(order, start=1):
        rows[i].decision_rank = position
    for row, (status, reason) in zip(rows, standing, strict=True):
        if status == "knocked_out":
            row.eligible = False
            row.risk_action = "knocked_out"
            row.recommended = False
            # knocked out: not ranked, so no "ranked with a premium / a mark" line beside it
            kept = [m for m in row.eligibility_reasons if m.get("code") not in RANKED_AS]
            row.eligibility_reasons = [reason, *kept]
        elif status == "ranked_last":
            row.risk_marks = [reason, *row.risk_marks]
    run = _run_decision(offers, results, rows, order, tied.nonzero()[0].tolist(), policy, snapshot)
    run.update(_summary(offers, results, rows, fx, tie=run["tie"]))
    for r, row in zip(results, rows, strict=True):
        term = run["terms"].get(r.offer_id)
        if term is not None and not term["fits"]:
            row.term_warning = term["message"]
    return rows, run


def _standings(
    snapshot: Mapping[str, Any], results: Sequence[ranking.OfferResult]
) -> list[tuple[str, dict[str, str]]]:
    """Each result's RFQ standing (the snapshot's `standings`, by offer id): conforming (""),
    "knocked_out" or "ranked_last", with the reason to print."""
    given = snapshot.get("standings") or {}
    out: list[tuple[str, dict[str, str]]] = []
    for r in results:
        found = given.get(r.offer_id)
        if isinstance(found, Mapping) and found.get("status") in ("knocked_out", "ranked_last"):
            out.append((str(found["status"]), dict(found.get("reason") or {})))
        else:
            out.append(("", {}))
    return out


def _summary(
    offers: Mapping[str, Mapping[str, Any]],
    results: Sequence[ranking.OfferResult],
    rows: list[OfferDecision],
    fx: Mapping[str, Any],
    *,
    tie: bool = False,
) -> dict[str, Any]:
    """Runner-up, savings against eligible offers only (none in a tie), and contract-term fits
    (the one computation every page and export reads, domain/decision.py)."""
    facts = [
        dd.OfferFacts(
            r.offer_id,
            _label(offers, r),
            row.eligible,
            row.decision_rank,
            r.currency,
            r.hourly_cost,
            r.job_cost,
            r.job_hours,
            _term(offers.get(r.offer_id, _NO_OFFER)),
        )  # fmt: skip
        for r, row in zip(results, rows, strict=True)
    ]
    return dd.summarise(facts, fx, tie=tie)


def _term(offer: Mapping[str, Any]) -> float | None:
    term = offer.get("term_months")
    return float(term) if term else None


def _label(
    offers: Mapping[str, Mapping[str, Any]], r: ranking.OfferResult, *, english: bool = False
) -> str:
    o = offers.get(r.offer_id, {})
    vendor = (o.get("vendor_en") if english else None) or o.get("vendor")
    # a label the portal generated ("RFQ 2 · …") in the text's language
    label = labels.shown(o.get("label") or "", "en" if english else "zh")
    return " · ".join(x for x in (vendor, label) if x) or r.offer_id


def _in_currency(cny: float, currency: str, fx: Mapping[str, float]) -> float:
    if not cny or currency == "CNY":
        return cny
    rate = fx.get(currency)
    return cny / float(rate) if rate else 0.0  # no rate: the money part cannot be applied


def _contender(label: str, row: OfferDecision, r: ranking.OfferResult) -> un.Contender:
    return un.Contender(label, row.risk_adjusted_cost_per_eth, len(row.risk_marks),
                        row.risk_premium_pct, r.bandwidth_basis == "measured")  # fmt: skip


def _run_decision(
    offers: Mapping[str, Mapping[str, Any]],
    results: Sequence[ranking.OfferResult],
    rows: list[OfferDecision],
    order: list[int],
    tied: list[int],
    policy: el.RiskPolicy,
    snapshot: Mapping[str, Any],
) -> dict[str, Any]:
    def label(i: int) -> str:
        return _label(offers, results[i])

    excluded = len(results) - len(order)
    position = {i: p for p, i in enumerate(order)}
    under_default: list[dict[str, str]] = []
    if not order:
        defaults = _assessments(snapshot, offers, results, el.DEFAULT_POLICY)
        under_default = [{"id": results[i].offer_id, "label": label(i)}
                         for i, a in enumerate(defaults) if a.eligible]  # fmt: skip

    tied_in_order = sorted(tied, key=lambda i: position.get(i, 0))

    def head_with(name: Callable[[int], str]) -> un.Headline:
        contenders = [_contender(name(i), rows[i], results[i]) for i in order[:2]]
        return un.headline(
            contenders[0] if contenders else None,
            contenders[1] if len(contenders) > 1 else None,
            [_contender(name(i), rows[i], results[i]) for i in tied_in_order],
            excluded=excluded,
            eligible_under_default=[d["label"] for d in under_default],
        )

    head = head_with(label)
    # English readers get the vendors' English names where recorded (the Chinese text keeps
    # the legal Chinese names): the same decision, named for each reader.
    named = [*order[:2], *tied]
    if any(_label(offers, results[i], english=True) != label(i) for i in named):
        english = head_with(lambda i: _label(offers, results[i], english=True))
        head = un.Headline(
            Message(head.message.code, english.message.en, head.message.zh),
            tuple(Message(zh.code, en.en, zh.zh)
                  for en, zh in zip(english.deciders, head.deciders, strict=True)),
        )  # fmt: skip
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
    if policy.supplied_evidence_is_claim:
        parts_en.append("evidence the vendor supplied counts as a claim")
        parts_zh.append("供应商自行提供的证据视为声称值")
    return Message("risk_policy", "Risk policy — " + "; ".join(parts_en),
                   "风险策略——" + "；".join(parts_zh))  # fmt: skip


_ACTION_ZH = {"exclude": "排除", "premium": "标注并计溢价", "mark": "仅标注", "ignore": "忽略"}
