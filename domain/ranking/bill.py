"""The bill of every offer: money first, then the rate, then cost per ETH = bill ÷ rate.

This is the one place an offer's hourly bill is made for a ranking: input checks (every impossible
offer becomes a problem with its messages), currency conversion, whole-offer billing and the
hourly cost through domain/money.py (the money rule), plus the network figure shown beside each
offer and its warnings. The training rate comes from the training-time model (rank.py); nothing
here estimates training.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from domain import money
from domain.messages import Message
from domain.ranking.checks import _currency_ok, _fx_rate, field_message, offer_problems
from domain.ranking.columns import _Array, _fast_valid, _Table
from domain.ranking.inputs import BASE_SCENARIO, Offer, Scenario, Workload
from domain.ranking.network import _warnings_column, bandwidth, claim_share, track_record_warning
from domain.ranking.results import OfferProblem
from domain.trainmodel.gpus import GpuSpec


@dataclass(frozen=True, slots=True)
class BilledOffer:
    """One offer that passed the input checks, with its bill and its network figure."""

    offer: Offer
    currency: str  # of `hourly_cost`: the offer's own, or CNY when the ranking converts
    hourly_cost: float
    bandwidth_gbps: float  # per server, measured (tail) or nominal x fabric efficiency
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
    """Check every offer and bill the good ones (the workload is checked by the caller)."""
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
    w: Workload, t: _Table, gpus: Mapping[str, GpuSpec], sc: Scenario, rates: _Array
) -> tuple[_Array, _Array, list[str], _Array, list[tuple[Message, ...]]]:
    num, size = t.num, len(rates)
    n = num["nodes"] if w.nodes is None else np.full(size, float(w.nodes))
    # The servers the workload rents (all of them unless it fixes a count, and all of a
    # whole-only offer): a layout that leaves some idle still pays for them.
    billed = np.where(np.array(t.raw["whole_offer_only"], dtype=bool), num["nodes"], n)
    monthly = money.monthly_total(billed, num["price_per_node_month"], num["monthly_fees"], rates)
    hourly = money.hourly(monthly)
    b, measured, oversub = bandwidth(t, n)
    b = b * sc.bandwidth_scale
    peak = np.array([gpus[k].bf16_tflops for k in t.raw["gpu"]], dtype=float).reshape(size)
    warns = _warnings_column(t.raw, n, peak * 1e12, measured, oversub)
    share = claim_share(t)
    for i in np.flatnonzero(~measured & (share < 1.0)).tolist():
        warns[i] = (*warns[i], track_record_warning(float(share[i])))
    basis = ["measured" if m else "nominal" for m in measured.tolist()]
    return hourly, b, basis, oversub, warns


def checked_offers(
    offers: Sequence[Offer],
    workload: Workload,
    gpus: Mapping[str, GpuSpec],
    fx_to_cny: Mapping[str, float] | None,
) -> tuple[_Table, list[int], list[OfferProblem], str | None, dict[str, float | Message]]:
    """The offers that can be billed as one table (the rest as problems), with the currency they
    are compared in and each currency's rate to it: vectorised checks first, odd objects one by
    one. One currency in, that currency out; several (or rates given): everything in CNY, and
    an offer whose currency has no rate becomes a problem, never a guess."""
    table: _Table | None = None
    fast = [False] * len(offers)
    with contextlib.suppress(TypeError, ValueError, OverflowError):  # odd objects: one by one
        table = _Table.of(offers)
        fast = _fast_valid(table, workload, gpus).tolist()
    currencies = {
        c for c in {o.currency for o in offers if type(o.currency) is str} if _currency_ok(c)
    }
    target = "CNY" if fx_to_cny is not None or len(currencies) > 1 else None
    rate_of = {cur: _fx_rate(cur, target, fx_to_cny or {}) for cur in currencies}
    keep, problems = _sort_out(offers, fast, workload, gpus, rate_of)
    if table is None:
        table = _Table.of([offers[i] for i in keep])
    elif len(keep) < len(offers):
        table = table.take(keep)
    return table, keep, problems, target, rate_of


def _sort_out(
    offers: Sequence[Offer],
    fast: list[bool],
    w: Workload,
    gpus: Mapping[str, GpuSpec],
    rate_of: Mapping[str, float | Message],
) -> tuple[list[int], list[OfferProblem]]:
    """Indices of the offers to bill, and the problems of the others."""
    no_fx_gap = not any(isinstance(r, Message) for r in rate_of.values())
    if all(fast) and no_fx_gap and len({o.id for o in offers}) == len(offers):
        return list(range(len(offers))), []
    keep: list[int] = []
    problems: list[OfferProblem] = []
    seen: set[str] = set()
    for i, (o, good) in enumerate(zip(offers, fast, strict=True)):
        found = [] if good else offer_problems(o, w, gpus)
        rate = rate_of.get(o.currency) if _currency_ok(o.currency) else None
        found += [rate] if isinstance(rate, Message) else []
        if isinstance(o.id, str) and o.id in seen:
            found.append(field_message("offer", "id", "duplicate", o.id))
        seen.add(o.id if isinstance(o.id, str) else "")
        if found:
            problems.append(OfferProblem(str(o.id), tuple(found)))
        else:
            keep.append(i)
    return keep, problems
