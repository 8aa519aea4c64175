"""The RFQ's evaluation on the team's rules: mandatory requirements, the team's risk policy and
its tax basis, the same rules the ranking applies.

A bid stands in one of four places (`status`):

- ``conforming``: meets every mandatory requirement and the policy keeps it: ranked;
- ``ranked_last``: fails a mandatory requirement and the RFQ ranks such bids after every
  conforming one (domain/rfq_rules.py, `Rfq.nonconforming`);
- ``knocked_out``: fails a mandatory requirement: shown with the reason, not ranked;
- ``excluded``: the team's risk policy excludes the vendor or the offer (the RFQ's ranking run
  holds the policy's verdict, `RankingResult.eligible`): shown with the reason, not ranked.

An award to a knocked-out, ranked-last or excluded bidder is refused unless overridden (see
`sourcing.services.award_propose`); `answer_blockers` says why.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import get_language

from domain import eligibility, money
from domain import rfq_rules as rules
from domain.messages import Message
from rankings.selectors import team_risk_policy
from vendors.selectors import vendor_findings

from .models import Answer, Rfq
from .terms import terms_standing

VERDICT_SCORES = {"pass": 1.0, "warn": 0.6, "fail": 0.0, "unknown": 0.0, "": 0.0}
CONFORMING, RANKED_LAST, KNOCKED_OUT, EXCLUDED = (
    rules.CONFORMING, rules.RANKED_LAST, rules.KNOCKED_OUT, "excluded",
)  # fmt: skip
_GROUP = {CONFORMING: 0, RANKED_LAST: 1, KNOCKED_OUT: 2, EXCLUDED: 2}


def _message(data: dict[str, str]) -> Message:
    return Message(data.get("code", ""), data.get("en", ""), data.get("zh", ""))


def _result_exclusion(result: Any) -> list[Message]:
    """The policy's exclusion reasons stored on a ranking result (empty when eligible)."""
    if result.eligible:
        return []
    # the RFQ's own knock-out is the bid's standing, not the policy's exclusion
    reasons = [
        _message(d)
        for d in (result.eligibility_reasons or ())
        if not str(d.get("code", "")).startswith("rfq.")
    ]
    excluded = [m for m in reasons if m.code == "risk_excluded"]
    if result.risk_action == "knocked_out":
        return excluded  # knocked out by the RFQ; excluded too only if the policy said so
    return excluded or reasons


def _live_exclusion(rfq: Rfq, answer: Answer) -> list[Message]:
    """The policy applied to the bidder's findings now (no ranking result to read): the
    vendor-wide findings and those of its data centre, and an impossible NIC claim."""
    policy = team_risk_policy(team=rfq.team)
    dc = answer.vendor.data_centres.first()
    own = f"datacentre:{dc.pk}" if dc is not None else ""
    items = [
        eligibility.finding_item({"code": f.code, "severity": str(f.severity),
                                  "subject": f.subject, "en": f.message.en, "zh": f.message.zh})
        for f in vendor_findings(answer.vendor)
        if f.subject == own or not f.subject.startswith("datacentre")
    ]  # fmt: skip
    nic = float(answer.terms.get("nic_gbps") or 0)
    risks = eligibility.offer_risks(
        items, nic_gbps=nic, nominal_gbps=nic, bandwidth_measured=True, nodes_used=1,
        policy=policy,
    )  # fmt: skip
    assessment = eligibility.assess(risks, policy)
    return [m for m in assessment.reasons if m.code == "risk_excluded"]


def result_for(rfq: Rfq, answer: Answer) -> Any:
    """The answer's result in the RFQ's finished ranking, or None."""
    run = rfq.ranking_run
    if run is None or run.status != "done" or answer.quote_id is None:
        return None
    return run.results.filter(quote_version_id=answer.quote.current_version_id).first()


def answer_blockers(rfq: Rfq, answer: Answer, result: Any = None) -> list[Message]:
    """Why an award to this bidder is refused: its failed mandatory requirements and the risk
    policy's exclusion (from the RFQ's ranking, else applied now); empty when none."""
    out: list[Message] = []
    standing = terms_standing(rfq, answer.terms)
    if standing.mandatory_gaps:
        out.append(rules.knocked_out_reason(standing))
    result = result if result is not None else result_for(rfq, answer)
    out += _result_exclusion(result) if result is not None else _live_exclusion(rfq, answer)
    return out


def comparable_month(rfq: Rfq, answer: Answer) -> dict[str, Any] | None:
    """The bid's month in CNY on the team's tax basis (domain/money.py), with the basis; None
    when its terms cannot be billed (a foreign currency without a rate)."""
    t = answer.terms

    def dec(name: str) -> Decimal:
        return Decimal(str(t.get(name) or 0))

    fx = t.get("fx_to_cny")
    terms = money.Terms(
        nodes=int(t.get("nodes") or 0), price_per_node_month=dec("price_per_node_month"),
        currency=str(t.get("currency") or "CNY"),
        fx_to_cny=None if fx in (None, "") else Decimal(str(fx)),
        monthly_fees=dec("monthly_fees"), setup_fee=dec("setup_fee"),
        term_months=int(t.get("term_months") or 12),
        prices_include_vat=t.get("prices_include_vat"),
        vat_rate=None if t.get("vat_rate") is None else Decimal(str(t["vat_rate"])),
        invoice_type=str(t.get("invoice_type") or ""),
    )  # fmt: skip
    bill = money.monthly_bill(terms, basis=rfq.team.tax_basis)
    try:
        amount = bill.comparable
    except money.MoneyError:
        return None
    return {"amount": amount, "assumed": bill.tax_assumed, "basis": bill.basis}


def _sla_score(rfq: Rfq, answer: Answer) -> float:
    availability = Decimal(str(answer.terms.get("availability") or 0))
    shortfall = float(rfq.min_availability - availability)
    return 1.0 if shortfall <= 0 else max(0.0, 1.0 - 100 * shortfall)


def _diligence_score(premium_pct: float) -> float:
    """Due diligence as the run's decision judged it: the share of the cost the team's risk
    policy does not add as a premium (excluded bids have no score at all)."""
    return max(0.0, min(1.0, 1.0 - premium_pct / 100.0))


def _row(rfq: Rfq, answer: Answer, result: Any, lang: str) -> dict[str, Any]:
    standing = terms_standing(rfq, answer.terms)
    exclusion = _result_exclusion(result)
    status = EXCLUDED if exclusion else standing.status
    reasons = exclusion + ([rules.knocked_out_reason(standing)] if standing.mandatory_gaps else [])
    verdict = answer.evidence_run.verdict if answer.evidence_run_id else ""
    return {"answer": answer, "answer_id": answer.pk, "vendor": answer.vendor.name_for_reader(),
            # the decision's rank: a knocked-out or excluded bid has none
            "cost_rank": result.shown_rank, "cost_per_eth": result.deciding_cost_per_eth,
            "currency": result.currency, "monthly_rent": result.monthly_rent, "verdict": verdict,
            "status": status, "reasons": [m.text(lang) for m in reasons],
            "reason_codes": [m.code for m in reasons],
            # the deciding figure of the run's decision (risk premiums included)
            "_cost": result.risk_adjusted_cost_per_eth or result.cost_per_eth,
            "_premium_pct": float(result.risk_premium_pct or 0.0)}  # fmt: skip


def rfq_evaluation(rfq: Rfq) -> dict[str, Any]:
    """Weighted scores beside cost per ETH, from the RFQ's finished ranking, on the team's rules.

    cost = cheapest deciding cost per ETH (risk premiums included, as the run's decision ranks)
    among the ranked bids / this cost, so 0..1 (costs on the team's tax basis); network =
    verdict of the supplier's benchmark evidence (pass 1, warning 0.6, none or fail 0);
    diligence = 1 − the risk premium the team's policy puts on the bid in the run's decision (1
    without one: the policy's one rule, not a scale of its own); sla = 1 at or above the minimum
    availability, minus 1 per percentage point below it. Total = weighted mean with the RFQ's
    stated weights. Bids that fail a mandatory requirement are knocked out (no position) or
    ranked after every conforming bid, as the RFQ says; bids the team's risk policy excludes
    have no position either, and neither has a score.
    """
    weights = {k: float(v) for k, v in (rfq.weights or {}).items()}
    empty = {"weights": weights, "rows": [], "ready": False}
    run = rfq.ranking_run
    if run is None or run.status != "done":
        return empty
    answers = rfq.answers.select_related("vendor", "evidence_run", "quote").order_by("pk")
    by_version = {a.quote.current_version_id: a for a in answers if a.quote_id}
    lang = get_language() or "en"
    rows = [_row(rfq, by_version[r.quote_version_id], r, lang)
            for r in run.results.order_by("rank") if r.quote_version_id in by_version]  # fmt: skip
    if not rows:
        return empty | {"ready": True}
    ranked = [row["_cost"] for row in rows if _GROUP[row["status"]] < 2 and row["_cost"] > 0]
    best = min(ranked) if ranked else 0.0
    total_weight = sum(weights.values()) or 1.0
    for row in rows:
        answer = row["answer"]
        cost = row.pop("_cost")
        premium = row.pop("_premium_pct")
        if _GROUP[row["status"]] >= 2:  # knocked out or excluded: no position and no score
            row["scores"], row["total"] = None, None
            continue
        row["scores"] = {
            "cost": best / cost if cost > 0 else 0.0,
            "network": VERDICT_SCORES.get(row["verdict"], 0.0),
            "diligence": _diligence_score(premium),
            "sla": _sla_score(rfq, answer),
        }
        row["total"] = sum(weights.get(k, 0.0) * v for k, v in row["scores"].items()) / (
            total_weight
        )
    rows.sort(key=lambda row: (_GROUP[row["status"]], -(row["total"] or 0.0),
                               row["cost_rank"] is None, row["cost_rank"] or 0))  # fmt: skip
    position = 0
    for row in rows:
        if _GROUP[row["status"]] < 2:
            position += 1
            row["position"] = position
        else:
            row["position"] = None
    return {"weights": weights, "rows": rows, "ready": True}
