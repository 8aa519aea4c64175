"""What-if and sensitivity over a stored snapshot (the same cost model as the run).

The sensitivity is `domain.sensitivity`: each soft input (overlap, mfu, bandwidth B) moves to a low
and a high setting and the offers are ranked again; the page shows every offer's swing (the winner
first) and the domain's verdict on whether the winner holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from domain import labels, ranking
from domain.messages import Message
from domain.sensitivity import ParameterSensitivity, sensitivity

from .inputs import (
    offer_vendor,
    short_label,
    snapshot_inputs,
)
from .models import RankingRun
from .services import _enqueue as enqueue

# Offers shown per parameter in the tornado chart (the winner and the next ones by rank).
TORNADO_OFFERS = 6


@dataclass(frozen=True, slots=True)
class Control:
    """One what-if control: `name` is `rank_snapshot`'s keyword argument. `default` None means
    the workload's own value (`workload_key`). Adding a control is one line in CONTROLS."""

    name: str
    label: str  # lazily translated
    low: float
    high: float
    step: float
    default: float | None = 1.0
    workload_key: str = ""

    def base(self, snapshot: Mapping[str, Any]) -> float:
        if self.default is not None:
            return self.default
        return float(snapshot.get("workload", {}).get(self.workload_key, 0.0))


CONTROLS: tuple[Control, ...] = (
    Control("overlap", gettext_lazy("overlap"), 0.0, 1.0, 0.05, None, "overlap"),
    Control("mfu_scale", gettext_lazy("MFU ×"), 0.5, 1.5, 0.05),
    Control("bandwidth_scale", gettext_lazy("bandwidth ×"), 0.25, 4.0, 0.25),
    # failures: time between interruptions and checkpoint storage speed (docs/MODEL.md §15)
    Control("mtbf_scale", gettext_lazy("time between failures ×"), 0.25, 4.0, 0.25),
    Control("storage_scale", gettext_lazy("checkpoint storage speed ×"), 0.25, 4.0, 0.25),
)


def saved_scenario(snapshot: Mapping[str, Any]) -> dict[str, float]:
    """The scenario a run was saved with (empty for an ordinary run)."""
    return dict(snapshot.get("scenario") or {})


def control_rows(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The controls for the page, each at the value the saved run was computed with."""
    saved = saved_scenario(snapshot)
    return [
        {"name": c.name, "label": c.label, "low": c.low, "high": c.high, "step": c.step,
         "value": f"{saved.get(c.name, c.base(snapshot)):g}"}
        for c in CONTROLS
    ]  # fmt: skip


def scenario_from(query: Mapping[str, str], snapshot: Mapping[str, Any]) -> dict[str, float]:
    """The scenario of a request: each known control's value clamped to its range; values equal
    to the saved run's are left out, so an empty dict is the saved run itself. Unreadable values
    fall back to the saved run's."""
    saved = saved_scenario(snapshot)
    out = dict(saved)
    for c in CONTROLS:
        base = saved.get(c.name, c.base(snapshot))
        raw = query.get(c.name)
        try:
            x = float(raw) if raw not in (None, "") else base
        except (TypeError, ValueError):
            x = base
        if not math.isfinite(x):
            x = base
        x = min(c.high, max(c.low, x))
        if abs(x - c.base(snapshot)) < 1e-9:
            out.pop(c.name, None)
        else:
            out[c.name] = x
    return out


def scenario_snapshot(snapshot: Mapping[str, Any], scenario: Mapping[str, float]) -> dict[str, Any]:
    """The snapshot with the scenario in it: computed like any run's (`compute_snapshot`)."""
    out = {k: v for k, v in snapshot.items() if k != "scenario"}
    if scenario:
        out["scenario"] = dict(scenario)
    return out


def scenario_text(snapshot: Mapping[str, Any], scenario: Mapping[str, float]) -> str:
    """ "overlap 0.7, mfu × 0.9": the controls that differ from the workload's own values."""
    return ", ".join(f"{c.label} {scenario[c.name]:g}" for c in CONTROLS if c.name in scenario)


class SensitivityRows(list):  # type: ignore[type-arg]
    """The tornado rows (one dict per parameter) with the verdict of `domain.sensitivity`.

    A list, so the PDF report and the chart keep iterating rows; the attributes carry the rest.
    """

    verdict: Message | None = None
    robust: bool = False
    winner: str = ""
    currency: str = ""
    winner_flat: bool = False


def _pct(value: float | None, base: float) -> float | None:
    if value is None or not base:
        return None
    return round((value / base - 1.0) * 100.0, 1)


def _ranks(costs: dict[str, float | None]) -> dict[str, int]:
    ranked = sorted((c, oid) for oid, c in costs.items() if c is not None)
    return {oid: i for i, (_c, oid) in enumerate(ranked, start=1)}


_HEADS = {"overlap": gettext_lazy("overlap"), "mfu": gettext_lazy("MFU ×"),
          "bandwidth": gettext_lazy("bandwidth ×")}  # fmt: skip

# Rankings one sweep runs (`sensitivity_data`): its own base, and the domain's base and its low
# and high setting of each of the three inputs; each one done moves the job's progress on.
SWEEP_RANKS = 8


def _row(p: ParameterSensitivity, winner: str, full: dict[str, str]) -> dict[str, Any]:
    """One parameter's row as plain JSON, in no language (`stored_sensitivity` adds the words)."""
    low = {s.offer_id: s.low for s in p.offers}
    high = {s.offer_id: s.high for s in p.offers}
    rank_low, rank_high = _ranks(low), _ranks(high)
    offers = []
    for base_rank, s in enumerate(p.offers, start=1):
        offers.append({
            "name": s.offer_id, "full_name": full.get(s.offer_id, s.offer_id),
            "rank": base_rank, "is_winner": s.offer_id == winner, "base": s.base,
            "low": s.low, "high": s.high,
            "low_pct": _pct(s.low, s.base), "high_pct": _pct(s.high, s.base),
            "low_rank": rank_low.get(s.offer_id), "high_rank": rank_high.get(s.offer_id),
        })  # fmt: skip
    mine = next(o for o in offers if o["is_winner"])
    row: dict[str, Any] = {"key": p.parameter, "offers": offers}
    for side, value, other in (
        ("low", p.low_setting, p.winner_low),
        ("high", p.high_setting, p.winner_high),
    ):
        row[f"{side}_value"] = value
        row[f"{side}_setting"] = f"{value:g}"
        row[f"{side}_pct"] = mine[f"{side}_pct"] or 0.0
        row[f"{side}_cost"] = mine[side]
        row[f"{side}_flips"] = other != winner
        row[f"{side}_winner"] = other or ""
    return row


def _words(row: Mapping[str, Any]) -> dict[str, Any]:
    """A stored row with the words of the active language: its label and what changes."""
    head = _HEADS.get(row["key"], row["key"])
    out = {**row, "label": f"{head} {row['low_value']:g} … {row['high_value']:g}"}
    for side in ("low", "high"):
        flips = _("winner changes")
        out[f"{side}_text"] = f"{flips} → {row[f'{side}_winner']}" if row[f"{side}_flips"] else ""
    return out


def _counted(ranker: Callable[..., Any], progress: Callable[[float], None]) -> Callable[..., Any]:
    """The ranker, reporting the share of the sweep's rankings done after each one."""
    done = [0]

    def rank(*args: Any, **kwargs: Any) -> Any:
        out = ranker(*args, **kwargs)
        done[0] += 1
        progress(min(1.0, done[0] / SWEEP_RANKS))
        return out

    return rank


def sensitivity_data(
    snapshot: Mapping[str, Any], progress: Callable[[float], None] | None = None
) -> dict[str, Any]:
    """The sweep as plain JSON (what the ranking job stores on the run): per input (overlap,
    mfu, bandwidth), every shown offer's cost per ETH change (%) at its low and high setting,
    the winner's first, whether another offer would win there, and the domain's verdict.
    `progress` gets the share done (0..1) after each ranking of the sweep. Runs the model."""
    workload, offers, gpus, fx = snapshot_inputs(snapshot)
    # The ranking the run used (rank_snapshot: the model's layout search, memory, failures), so the
    # chart never disagrees with the table; offers the job does not fit are problems there.
    ranker: Callable[..., Any] = ranking.rank
    if progress is not None:
        ranker = _counted(ranker, progress)
    empty: dict[str, Any] = {"rows": []}
    try:
        base = ranker(workload, offers, gpus, fx_to_cny=fx)
    except ranking.ModelInputError:
        return empty
    if not base.results:
        return empty
    kept = {r.offer_id for r in base.results}
    offers = [o for o in offers if o.id in kept]
    people = {str(o.get("id")): o for o in snapshot["offers"]}
    names: dict[str, str] = {}
    full: dict[str, str] = {}
    for r in base.results:
        o = people.get(r.offer_id, {})
        names[r.offer_id] = short_label(r.rank, o.get("label") or r.offer_id)
        vendor, label = offer_vendor(o), labels.shown(o.get("label", ""), get_language())
        full[names[r.offer_id]] = f"{vendor} · {label}" if vendor else label
    # The domain names offers by id in its verdict: give it the short chart names instead.
    shown = [replace(o, id=names.get(o.id, o.id)) for o in offers]
    result = sensitivity(workload, shown, gpus, fx_to_cny=fx, ranker=ranker)
    if result.base_winner is None:
        return empty
    rows = []
    for p in result.parameters:
        row = _row(p, result.base_winner, full)
        row["offers"] = row["offers"][:TORNADO_OFFERS]
        rows.append(row)
    return {
        "rows": rows,
        "verdict": result.verdict.as_dict(),
        "robust": result.robust,
        "winner": result.base_winner,
        "currency": result.currency or "",
        "winner_flat": all(not r["low_pct"] and not r["high_pct"] for r in rows),
    }


def stored_sensitivity(data: Mapping[str, Any] | None) -> SensitivityRows:
    """The tornado rows of a stored sweep (`sensitivity_data`) in the active language."""
    data = data or {}
    rows = SensitivityRows(_words(r) for r in data.get("rows") or ())
    if not rows:
        return rows
    verdict = data.get("verdict")
    rows.verdict = Message(verdict["code"], verdict["en"], verdict["zh"]) if verdict else None
    rows.robust = bool(data.get("robust"))
    rows.winner = str(data.get("winner") or "")
    rows.currency = str(data.get("currency") or "")
    rows.winner_flat = bool(data.get("winner_flat"))
    return rows


def sensitivity_rows(snapshot: Mapping[str, Any]) -> SensitivityRows:
    """The sweep of `sensitivity_data` with the words of the active language (the PDF report;
    the run page reads the sweep its job stored). Runs the model."""
    return stored_sensitivity(sensitivity_data(snapshot))


def ranking_start_scenario(*, run: RankingRun, user, scenario: Mapping[str, float]) -> RankingRun:  # type: ignore[no-untyped-def]
    """A new run over `run`'s inputs with the scenario in its snapshot, owned by `user` and
    queued like any run (the worker computes it through `compute_snapshot`)."""
    text = scenario_text(run.snapshot, scenario)
    label = f"{run.label} · {text}" if text else run.label
    with transaction.atomic():
        new = RankingRun.objects.create(
            team=run.team, created_by=user, workload=run.workload, all_current=run.all_current,
            fx_to_cny=run.fx_to_cny, label=label[:120],
            snapshot=scenario_snapshot(run.snapshot, scenario),
        )  # fmt: skip
        new.quotes.set(run.quotes.all())
        transaction.on_commit(lambda: enqueue(new))
    return new
