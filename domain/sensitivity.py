"""How robust a ranking is to three soft inputs: overlap, mfu and bandwidth.

A buyer must see whether the cheapest offer stays the cheapest when the guesses behind it move
(docs/MODEL.md, "Sensitivity"). Each parameter is moved to a low and a high setting, everything
else held, and the offers are ranked again with the ranking the run used (`domain.ranking.rank`):

- `overlap` is set to the ends of its range (0: data-parallel traffic never hides behind the
  backward pass, 1: it overlaps as the training model's bucketed overlap allows);
- `mfu` is scaled by 1 -/+ `mfu_spread` for every GPU, the reference GPU included (so ETH stays
  defined at the workload's own efficiency and only the compute-vs-communication balance moves);
- bandwidth B, measured or nominal, is scaled by `bandwidth_scales`.

Costs under mfu scaling are in ETH of the scaled reference, so the mfu bar of a tornado chart shows
how much more communication is exposed when the GPUs get faster, not cheaper GPU time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from domain.messages import Message
from domain.ranking import BASE_SCENARIO, Offer, OfferProblem, RankingOutcome, Scenario, Workload
from domain.ranking import rank as rank_offers
from domain.trainmodel.gpus import GpuSpec

_NAMES = {
    "overlap": ("overlap of compute and communication", "计算与通信重叠比例"),
    "mfu": ("MFU", "算力利用率（MFU）"),
}
_NAMES["bandwidth"] = ("bandwidth", "节点间带宽")


@dataclass(frozen=True, slots=True)
class OfferSwing:
    """One offer's cost per ETH in the base case and at the low and high setting."""

    offer_id: str
    base: float
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class ParameterSensitivity:
    """One bar of the tornado chart: `low_setting`/`high_setting` are the overlap value or scale."""

    parameter: str
    low_setting: float
    high_setting: float
    winner_low: str | None
    winner_high: str | None
    winner_cost_low: float | None
    winner_cost_high: float | None
    winner_changes: bool
    offers: tuple[OfferSwing, ...]


@dataclass(frozen=True, slots=True)
class Sensitivity:
    base_winner: str | None
    base_cost: float | None
    currency: str | None
    parameters: tuple[ParameterSensitivity, ...]
    robust: bool
    verdict: Message
    problems: tuple[OfferProblem, ...]


def sensitivity(
    workload: Workload,
    offers: Sequence[Offer],
    gpus: Mapping[str, GpuSpec],
    *,
    fx_to_cny: Mapping[str, float] | None = None,
    overlap_range: tuple[float, float] = (0.0, 1.0),
    mfu_spread: float = 0.2,
    bandwidth_scales: tuple[float, float] = (0.5, 1.5),
    ranker: Callable[..., RankingOutcome] | None = None,
) -> Sensitivity:
    """Winner and every offer's cost per ETH when overlap, mfu or B moves, and a verdict.

    `ranker` is the ranking the run used (same arguments as `domain.ranking.rank`, which is the
    default), so the chart and the table never disagree."""
    rank_fn = ranker or rank_offers
    base = rank_fn(workload, offers, gpus, fx_to_cny=fx_to_cny)
    ranges = {
        "overlap": overlap_range,
        "mfu": (1.0 - mfu_spread, 1.0 + mfu_spread),
        "bandwidth": bandwidth_scales,
    }
    parameters = []
    for name, (low, high) in ranges.items():
        moved = []
        for value in (low, high):
            moved_workload, scenario = _moved(workload, name, value)
            moved.append(
                rank_fn(moved_workload, offers, gpus, fx_to_cny=fx_to_cny, scenario=scenario)
            )
        parameters.append(_parameter(name, low, high, base, moved[0], moved[1]))
    winner = base.winner
    robust = winner is not None and not any(p.winner_changes for p in parameters)
    return Sensitivity(
        base_winner=None if winner is None else winner.offer_id,
        base_cost=None if winner is None else winner.cost_per_eth,
        currency=None if winner is None else winner.currency,
        parameters=tuple(parameters),
        robust=robust,
        verdict=_verdict(winner.offer_id if winner else None, parameters),
        problems=base.problems,
    )


def _moved(workload: Workload, name: str, value: float) -> tuple[Workload, Scenario]:
    if name == "overlap":
        return workload, replace(BASE_SCENARIO, dp_overlap=value > 0)
    if name == "mfu":
        return workload, Scenario(mfu_scale=value)
    return workload, Scenario(bandwidth_scale=value)


def _parameter(
    name: str,
    low: float,
    high: float,
    base: RankingOutcome,
    at_low: RankingOutcome,
    at_high: RankingOutcome,
) -> ParameterSensitivity:
    costs_low = {r.offer_id: r.cost_per_eth for r in at_low.results}
    costs_high = {r.offer_id: r.cost_per_eth for r in at_high.results}
    swings = tuple(
        OfferSwing(
            r.offer_id, r.cost_per_eth, costs_low.get(r.offer_id), costs_high.get(r.offer_id)
        )
        for r in base.results
    )
    winner = base.winner.offer_id if base.winner else None
    winner_low = at_low.winner.offer_id if at_low.winner else None
    winner_high = at_high.winner.offer_id if at_high.winner else None
    return ParameterSensitivity(
        parameter=name,
        low_setting=low,
        high_setting=high,
        winner_low=winner_low,
        winner_high=winner_high,
        winner_cost_low=None if winner is None else costs_low.get(winner),
        winner_cost_high=None if winner is None else costs_high.get(winner),
        winner_changes=winner is not None and (winner_low, winner_high) != (winner, winner),
        offers=swings,
    )


def _setting(parameter: ParameterSensitivity, high: bool) -> tuple[str, str]:
    value = parameter.high_setting if high else parameter.low_setting
    en, zh = _NAMES[parameter.parameter]
    if parameter.parameter == "overlap":
        return f"{en} = {value:g}", f"{zh} = {value:g}"
    return f"{en} ×{value:g}", f"{zh} ×{value:g}"


def _verdict(winner: str | None, parameters: Sequence[ParameterSensitivity]) -> Message:
    if winner is None:
        return Message(
            "sensitivity_no_winner",
            "No offer could be ranked, so there is no winner to test.",
            "没有可排名的报价，因此无法检验最优报价的稳健性。",
        )
    changes_en: list[str] = []
    changes_zh: list[str] = []
    for p in parameters:
        for high, other in ((False, p.winner_low), (True, p.winner_high)):
            if other != winner:
                en, zh = _setting(p, high)
                changes_en.append(f"{en} ({other} wins)")
                changes_zh.append(f"{zh}（改由 {other} 胜出）")
    if not changes_en:
        span_en = ", ".join(
            f"{_setting(p, False)[0]} to {_setting(p, True)[0]}" for p in parameters
        )
        span_zh = "，".join(
            f"{_setting(p, False)[1]} 至 {_setting(p, True)[1]}" for p in parameters
        )
        return Message(
            "winner_robust",
            f"The winner {winner} holds in all scenarios ({span_en}).",
            f"最优报价 {winner} 在所有情景下保持不变（{span_zh}）。",
        )
    return Message(
        "winner_changes",
        f"The winner {winner} changes when " + "; ".join(changes_en) + ".",
        f"在以下情景中最优报价 {winner} 会改变：" + "；".join(changes_zh) + "。",
    )
