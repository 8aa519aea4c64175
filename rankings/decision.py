"""The ranking job's call into the one decision (domain/decision): with the heap out of the
garbage collector's passes, as the ranking itself (core.heap)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.heap import heap_frozen
from domain import ranking
from domain.decision import OfferDecision, policy_note
from domain.decision import decide as _decide

__all__ = ["OfferDecision", "decide", "policy_note"]


def decide(
    snapshot: Mapping[str, Any], outcome: ranking.RankingOutcome
) -> tuple[list[OfferDecision], dict[str, Any]]:
    """Per result (in the outcome's order) its decision fields, and the run's decision."""
    with heap_frozen():
        return _decide(snapshot, outcome)
