"""The decision of a ranking, in one place: eligibility (risk policy, RFQ standings), the
deciding figure and its range, ties, ranks of eligible offers only, runner-up, savings (never in
a tie) and term fits, with the words every surface prints.

:mod:`.offers` decides a training ranking (`decide`); :mod:`.summary` holds the runner-up,
savings and contract-term parts; serving rankings apply the same risk rule in
domain/decision_serving.py.
"""

from __future__ import annotations

from domain.decision.offers import OfferDecision, decide, policy_note, scenario_overlap
from domain.decision.summary import (
    HOURS_PER_MONTH,
    OfferFacts,
    TermFit,
    saving,
    summarise,
    term_fit,
)

__all__ = [
    "HOURS_PER_MONTH",
    "OfferDecision",
    "OfferFacts",
    "TermFit",
    "decide",
    "policy_note",
    "saving",
    "scenario_overlap",
    "summarise",
    "term_fit",
]
