"""Ranking outputs: one offer's figures, the problems of impossible offers, a whole ranking."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.messages import Message


@dataclass(frozen=True, slots=True)
class OfferResult:
    rank: int
    offer_id: str
    cost_per_eth: float
    cost_per_eth_low: float
    cost_per_eth_high: float
    currency: str
    step_time_s: float
    compute_time_s: float
    comm_time_s: float
    exposed_comm_s: float
    utilisation: float
    eth_per_hour: float
    hourly_cost: float
    job_hours: float | None
    job_cost: float | None
    bandwidth_gbps: float
    bandwidth_basis: str
    nodes_used: int
    oversubscription: float
    warnings: tuple[Message, ...]
    # The training model's breakdown of this offer (layout, memory, step split, failures),
    # JSON-ready (rank.detail).
    model_detail: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class OfferProblem:
    offer_id: str
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class RankingOutcome:
    results: tuple[OfferResult, ...]
    problems: tuple[OfferProblem, ...]

    @property
    def winner(self) -> OfferResult | None:
        return self.results[0] if self.results else None
