"""The team's risk policy applied to a serving ranking, as to a training one.

The rule is :mod:`domain.eligibility` (one home): an offer whose vendor has a finding the policy
excludes is not eligible and is ranked after every eligible offer with its reason; a premium
raises the cost per million served tokens the ranking orders by; a mark is shown. Serving needs
no fabric between servers, so no bandwidth-verification risk is added here and findings about
the training fabric (`eligibility.TRAINING_ONLY_CODES`) are left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from domain import eligibility as el
from domain import serving as sv


def assess_offer(
    findings: Sequence[el.RiskItem], policy: el.RiskPolicy = el.DEFAULT_POLICY
) -> el.Assessment:
    """An offer's vendor findings under the policy (no claim of fabric bandwidth to check);
    findings about the training fabric between servers do not bear on serving."""
    relevant = tuple(f for f in findings if el.applies_to(f, "serving"))
    risks = el.offer_risks(relevant, nic_gbps=0.0, nominal_gbps=0.0, bandwidth_measured=True,
                           nodes_used=1, policy=policy)  # fmt: skip
    return el.assess(risks, policy)


def risk_adjusted_per_million(r: sv.ServingResult, a: el.Assessment) -> float:
    """Cost per million served tokens with the premium: a share of the cost plus the monthly
    premium (CNY) spread over the month's tokens."""
    tokens_m = r.sizing.monthly_tokens / 1e6
    extra = a.premium_cny_month / tokens_m if a.premium_cny_month and tokens_m > 0 else 0.0
    return r.cost_per_million_cny * (1.0 + a.premium_pct / 100.0) + extra


def decide(
    outcome: sv.ServingOutcome,
    findings: Mapping[str, Sequence[el.RiskItem]],
    policy: el.RiskPolicy = el.DEFAULT_POLICY,
) -> sv.ServingOutcome:
    """The outcome in decision order: eligible offers by risk-adjusted cost per million tokens,
    then the excluded ones by cost; each result carries its eligibility, premium and reasons.
    Eligible offers are ranked 1, 2, …; an excluded offer has no rank (0) and is listed apart
    with its reasons."""
    decided = []
    for r in outcome.results:
        a = assess_offer(tuple(findings.get(r.offer_id, ())), policy)
        decided.append(replace(
            r, eligible=a.eligible, risk_premium_pct=a.premium_pct,
            risk_adjusted_cost_per_million_cny=risk_adjusted_per_million(r, a),
            risk_marks=tuple(m.message for m in a.marks), eligibility_reasons=a.reasons,
        ))  # fmt: skip
    decided.sort(key=lambda r: (not r.eligible, r.risk_adjusted_cost_per_million_cny or 0.0,
                                r.offer_id))  # fmt: skip
    ranked = tuple(replace(r, rank=i if r.eligible else 0) for i, r in enumerate(decided, start=1))
    return replace(outcome, results=ranked)
