"""Public entry points: `rank` many offers, or `evaluate` one."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from domain.costmodel.columns import _Array, _fast_valid, _Table
from domain.costmodel.formulas import _evaluate
from domain.costmodel.inputs import BASE_SCENARIO, GpuSpec, Offer, Scenario, Workload
from domain.costmodel.results import OfferProblem, OfferResult, RankingOutcome, _ResultTwin
from domain.costmodel.validation import (
    ModelInputError,
    _currency_ok,
    _fx_rate,
    _reference,
    field_message,
    offer_problems,
)
from domain.messages import Message


def rank(
    workload: Workload,
    offers: Sequence[Offer],
    gpus: Mapping[str, GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    scenario: Scenario = BASE_SCENARIO,
) -> RankingOutcome:
    """Rank offers by cost per ETH; impossible offers become problems instead of failing the rest.

    Raises ModelInputError only when the workload, scenario or reference GPU row is impossible.
    """
    ref = _reference(workload, gpus, scenario)
    table, keep, problems, target, rate_of = checked_offers(offers, workload, gpus, fx_to_cny)
    return _ranked(workload, table, gpus, ref, scenario, target, rate_of, problems)


def _sort_out(
    offers: Sequence[Offer],
    fast: list[bool],
    w: Workload,
    gpus: Mapping[str, GpuSpec],
    rate_of: Mapping[str, float | Message],
) -> tuple[list[int], list[OfferProblem]]:
    """Indices of the offers to rank, and the problems of the others."""
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


def _ranked(
    w: Workload,
    t: _Table,
    gpus: Mapping[str, GpuSpec],
    ref: GpuSpec,
    sc: Scenario,
    target: str | None,
    rate_of: Mapping[str, float | Message],
    problems: list[OfferProblem],
) -> RankingOutcome:
    if not t.raw["id"]:
        return RankingOutcome((), tuple(problems))
    currencies = t.raw["currency"] if target is None else [target] * len(t.raw["id"])
    rates = np.array([rate_of[c] for c in t.raw["currency"]], dtype=float)
    cols, cost = _evaluate(w, t, gpus, ref, sc, rates, currencies)
    order = np.lexsort((np.array(t.raw["id"], dtype=str), cost))
    by_rank = [x[order].tolist() if isinstance(x, np.ndarray) else _pick(x, order) for x in cols]
    results = list(map(_ResultTwin, range(1, len(order) + 1), *by_rank))
    for result in results:
        result.__class__ = OfferResult
    return RankingOutcome(tuple(results), tuple(problems))


def _pick(values: list[Any], order: _Array) -> list[Any]:
    return [values[j] for j in order.tolist()]


def evaluate(
    workload: Workload,
    offer: Offer,
    gpus: Mapping[str, GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    scenario: Scenario = BASE_SCENARIO,
) -> OfferResult:
    """One offer's figures (rank 1); raises ModelInputError when inputs are impossible.

    Without `fx_to_cny` the result keeps the offer's currency; with it, the result is in CNY.
    """
    fx = fx_to_cny if fx_to_cny is not None or offer.currency == "CNY" else None
    outcome = rank(workload, [offer], gpus, fx_to_cny=fx, scenario=scenario)
    if outcome.problems:
        raise ModelInputError(outcome.problems[0].messages)
    return outcome.results[0]


def checked_offers(
    offers: Sequence[Offer],
    workload: Workload,
    gpus: Mapping[str, GpuSpec],
    fx_to_cny: Mapping[str, float] | None,
) -> tuple[_Table, list[int], list[OfferProblem], str | None, dict[str, float | Message]]:
    """The offers that can be costed as one table (the rest as problems), with the currency they
    are compared in and each currency's rate to it: vectorised checks first, odd objects one by
    one. Shared by the first-order ranking and the bill (billing.py)."""
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
