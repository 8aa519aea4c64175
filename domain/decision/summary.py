"""The parts of a ranking's decision that every page and export repeats: the runner-up among the
eligible offers, what the recommendation saves against eligible alternatives, and whether the
job fits each offer's contract term.

Computed once per ranking by the job (rankings/decision.py) and stored with the run's decision,
so the ranking page, dashboard, PDF, workbook, CSV and API read the same figures. An excluded
offer is never an alternative: comparing with it gave "¥1,871,407,584 saved, 2,287,603 hours
earlier" against an absurd offer nobody could sign.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from domain import money
from domain.messages import Message

HOURS_PER_MONTH = float(money.HOURS_PER_MONTH)


@dataclass(frozen=True, slots=True)
class OfferFacts:
    """What the decision summary needs of one ranked offer (money in the offer's currency)."""

    offer_id: str
    label: str
    eligible: bool
    decision_rank: int | None
    currency: str
    hourly_cost: float
    job_cost: float | None
    job_hours: float | None
    term_months: float | None = None


@dataclass(frozen=True, slots=True)
class TermFit:
    """Whether the whole job runs within an offer's contract term."""

    job_hours: float
    term_months: float

    @property
    def term_hours(self) -> float:
        return self.term_months * HOURS_PER_MONTH

    @property
    def fits(self) -> bool:
        return self.job_hours <= self.term_hours

    @property
    def share_in_term(self) -> float:
        """The share of the job the offer delivers within its term (1.0 when it fits)."""
        return min(1.0, self.term_hours / self.job_hours) if self.job_hours > 0 else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "job_hours": self.job_hours,
            "term_months": self.term_months,
            "term_hours": self.term_hours,
            "fits": self.fits,
            "share_in_term": self.share_in_term,
            "message": self.message().as_dict(),
        }

    def message(self) -> Message:
        months = self.job_hours / HOURS_PER_MONTH
        term = f"{self.term_months:g}"
        if self.fits:
            return Message(
                "job_fits_term",
                f"The job takes {self.job_hours:,.0f} hours ({months:.1f} months): it fits the "
                f"{term}-month contract term.",
                f"作业需 {self.job_hours:,.0f} 小时（{months:.1f} 个月），在 {term} 个月的合同期内"
                "可以完成。",
            )
        pct = self.share_in_term * 100
        return Message(
            "job_longer_than_term",
            f"The job takes {self.job_hours:,.0f} hours ({months:.1f} months), longer than the "
            f"{term}-month contract term: only {pct:.0f}% of it runs within the term. Extend the "
            "term or rent more nodes before signing.",
            f"作业需 {self.job_hours:,.0f} 小时（{months:.1f} 个月），超过 {term} 个月的合同期："
            f"合同期内只能完成 {pct:.0f}%。签约前请延长合同期或租用更多节点。",
        )


def term_fit(job_hours: float | None, term_months: float | None) -> TermFit | None:
    """The job against the term; None when either is unknown."""
    if job_hours is None or term_months is None or not math.isfinite(job_hours):
        return None
    if term_months <= 0 or job_hours < 0:
        return None
    return TermFit(float(job_hours), float(term_months))


def _cny(amount: float | None, currency: str, fx: Mapping[str, Any]) -> float | None:
    if amount is None or not math.isfinite(amount):
        return None
    rate = money.rate_from(currency, fx)
    return None if rate is None else float(Decimal(str(amount)) * rate)


def saving(
    chosen: OfferFacts, other: OfferFacts, fx: Mapping[str, Any], kind: str
) -> dict[str, Any]:
    """Whole-job cost (CNY) and time of the chosen offer against another eligible one."""
    mine, theirs = (
        _cny(chosen.job_cost, chosen.currency, fx),
        _cny(other.job_cost, other.currency, fx),
    )
    hours_saved = (
        None
        if chosen.job_hours is None or other.job_hours is None
        else other.job_hours - chosen.job_hours
    )
    return {
        "kind": kind,
        "offer_id": other.offer_id,
        "label": other.label,
        "job_cost_cny": mine,
        "other_job_cost_cny": theirs,
        "saving_cny": None if mine is None or theirs is None else theirs - mine,
        "job_hours": chosen.job_hours,
        "other_job_hours": other.job_hours,
        "hours_saved": hours_saved,
    }


def summarise(
    offers: Sequence[OfferFacts], fx: Mapping[str, Any], *, tie: bool = False
) -> dict[str, Any]:
    """The runner-up, the savings against eligible alternatives and the contract-term fits.

    `savings` compares the recommended offer with the runner-up and with the cheapest rent
    *among the eligible offers* (left out when it is the recommendation or the runner-up), and
    is empty in a tie: when the runner-up's range reaches the recommendation's there is no
    saving to claim, only a choice to make on risk, evidence and terms;
    `terms` holds the fit of every offer whose job outlasts its term, and of the recommended and
    runner-up offers whatever their fit."""
    eligible = sorted(
        (o for o in offers if o.eligible and o.decision_rank is not None),
        key=lambda o: o.decision_rank or 0,
    )
    chosen = eligible[0] if eligible else None
    runner = eligible[1] if len(eligible) > 1 else None
    savings: list[dict[str, Any]] = []
    mine = None if tie else chosen  # no savings to claim in a tie
    if mine is not None and runner is not None:
        savings.append(saving(mine, runner, fx, "runner_up"))
    if mine is not None and len(eligible) > 1:
        rates = {o.offer_id: _cny(o.hourly_cost, o.currency, fx) for o in eligible}
        priced = [o for o in eligible if rates[o.offer_id] is not None]
        cheapest = min(
            priced, key=lambda o: (rates[o.offer_id], o.decision_rank or 0), default=None
        )
        if cheapest is not None and cheapest.offer_id not in (
            mine.offer_id,
            runner and runner.offer_id,
        ):
            savings.append(saving(mine, cheapest, fx, "cheapest_rent"))
    keep = {o.offer_id for o in (chosen, runner) if o is not None}
    terms: dict[str, Any] = {}
    for o in offers:
        fit = term_fit(o.job_hours, o.term_months)
        if fit is not None and (not fit.fits or o.offer_id in keep):
            terms[o.offer_id] = fit.as_dict()
    return {
        "runner_up": runner.offer_id if runner else None,
        "savings": savings,
        "terms": terms,
        "term_short": sorted(k for k, t in terms.items() if not t["fits"]),
    }
