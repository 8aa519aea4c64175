"""Cost per effective training hour of rental offers: bill ÷ training rate, one path.

    from domain import ranking
    workload = ranking.workload_of({"params_b": 7, "tokens_per_step": 4e6}, model=spec)
    outcome = ranking.rank(workload, offers, gpu_table)   # RankingOutcome(results, problems)

Modules: :mod:`.inputs` (Workload, Offer, Scenario), :mod:`.adapters` (COST-MODEL.md's input
names mapped onto the training model's types), :mod:`.checks` (input messages),
:mod:`.columns` (offers as numpy columns), :mod:`.network` (the network figure and its warnings),
:mod:`.bill` (the bill through domain/money.py), :mod:`.rank` (cost per ETH with the training
model's rate and its breakdown), :mod:`.results`. Definitions: docs/MODEL.md.
"""

from __future__ import annotations

from domain.ranking.adapters import gpt_shape, workload_of
from domain.ranking.checks import ModelInputError, field_message, offer_problems
from domain.ranking.inputs import (
    BASE_SCENARIO,
    FABRICS,
    HOURS_PER_MONTH,
    MEASURED_KINDS,
    Offer,
    Scenario,
    Workload,
)
from domain.ranking.network import ROCE_LOSSLESS_UNKNOWN, ROCE_NO_LOSSLESS, UNVERIFIED
from domain.ranking.rank import cluster_of, rank
from domain.ranking.results import OfferProblem, OfferResult, RankingOutcome

__all__ = [
    "BASE_SCENARIO",
    "FABRICS",
    "HOURS_PER_MONTH",
    "MEASURED_KINDS",
    "ROCE_LOSSLESS_UNKNOWN",
    "ROCE_NO_LOSSLESS",
    "UNVERIFIED",
    "ModelInputError",
    "Offer",
    "OfferProblem",
    "OfferResult",
    "RankingOutcome",
    "Scenario",
    "Workload",
    "cluster_of",
    "field_message",
    "gpt_shape",
    "offer_problems",
    "rank",
    "workload_of",
]
