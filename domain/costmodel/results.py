"""Model outputs: one offer's figures, the problems of impossible offers, a whole ranking."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields, make_dataclass
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
    volume_bytes: float
    tokens_per_gpu_to_hide_comm: float
    warnings: tuple[Message, ...]
    # The training-time model v2's breakdown (domain/trainmodel/ranking.py), JSON-ready; None
    # when the figures come from COST-MODEL.md's first-order formulas alone.
    model_detail: Mapping[str, Any] | None = None


# A frozen dataclass's __init__ costs about 4 us for 22 fields, too slow for 10,000 results; `rank`
# fills this mutable twin with the same slots and then turns each instance into an OfferResult.
_ResultTwin = make_dataclass(
    "_ResultTwin",
    [(f.name, f.type) if f.default is MISSING else (f.name, f.type, f.default)
     for f in fields(OfferResult)],
    slots=True,
)  # fmt: skip


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
