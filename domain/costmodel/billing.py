"""The bill of every offer: the first link of the one cost path (docs/MODEL.md §15).

cost per ETH = the offer's hourly bill (here, through domain/money.py) ÷ the training rate (the
training-time model, domain/trainmodel/ranking.py). This module does what the bill needs and
what the pages show about the network, nothing of COST-MODEL.md's first-order training rate:
input checks (every impossible offer becomes a problem with its messages), currency conversion,
whole-offer billing, the hourly cost, the network figure shown beside each offer (per-server
Gbit/s, measured or nominal, the racks' oversubscription) and the network warnings. COST-MODEL.md's
compute/communication formulas stay in `formulas.py` as history (`domain.costmodel.rank`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from domain import money
from domain.costmodel.columns import _Table
from domain.costmodel.formulas import _bandwidth
from domain.costmodel.inputs import BASE_SCENARIO, GpuSpec, Offer, Scenario, Workload
from domain.costmodel.network_warnings import _warnings_column
from domain.costmodel.ranking import checked_offers
from domain.costmodel.results import OfferProblem
from domain.costmodel.validation import _reference
from domain.messages import Message


@dataclass(frozen=True, slots=True)
class BilledOffer:
    """One offer that passed the input checks, with its bill and its network figure."""

    offer: Offer
    currency: str  # of `hourly_cost`: the offer's own, or CNY when the ranking converts
    hourly_cost: float
    bandwidth_gbps: float  # per server, measured (P5) or nominal x fabric efficiency
    bandwidth_basis: str  # "measured" or "nominal"
    oversubscription: float
    warnings: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class Bills:
    offers: tuple[BilledOffer, ...]  # in input order
    problems: tuple[OfferProblem, ...]


def bill(
    workload: Workload,
    offers: Sequence[Offer],
    gpus: Mapping[str, GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    scenario: Scenario = BASE_SCENARIO,
) -> Bills:
    """Check every offer and bill the good ones; raises ModelInputError only when the
    workload, scenario or reference GPU row is impossible (as `domain.costmodel.rank`)."""
    _reference(workload, gpus, scenario)
    table, keep, problems, target, rate_of = checked_offers(offers, workload, gpus, fx_to_cny)
    if not keep:
        return Bills((), tuple(problems))
    kept = [offers[i] for i in keep]
    rates = np.array([rate_of[c] for c in table.raw["currency"]], dtype=float)
    hourly, b, basis, oversub, warns = _columns(workload, table, gpus, scenario, rates)
    billed = tuple(
        BilledOffer(o, target or o.currency, h, g, k, ov, w)
        for o, h, g, k, ov, w in zip(
            kept, hourly.tolist(), b.tolist(), basis, oversub.tolist(), warns, strict=True
        )
    )
    return Bills(billed, tuple(problems))


def _columns(
    w: Workload, t: _Table, gpus: Mapping[str, GpuSpec], sc: Scenario, rates: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, list[tuple[Message, ...]]]:
    num, size = t.num, len(rates)
    n = num["nodes"] if w.nodes is None else np.full(size, float(w.nodes))
    # The servers the workload rents (all of them unless it fixes a count, and all of a
    # whole-only offer): a layout that leaves some idle still pays for them.
    billed = np.where(np.array(t.raw["whole_offer_only"], dtype=bool), num["nodes"], n)
    monthly = money.monthly_total(billed, num["price_per_node_month"], num["monthly_fees"], rates)
    hourly = money.hourly(monthly)
    b, measured, oversub = _bandwidth(t, n)
    b = b * sc.bandwidth_scale
    peak = np.array([gpus[k].tflops_bf16 for k in t.raw["gpu"]], dtype=float).reshape(size)
    warns = _warnings_column(t.raw, n, peak * 1e12, measured, oversub)
    basis = ["measured" if m else "nominal" for m in measured.tolist()]
    return hourly, b, basis, oversub, warns
