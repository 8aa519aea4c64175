"""What-if and sensitivity over a stored snapshot (the same `rank_snapshot` as the run)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from .services import outcome_dict, rank_snapshot

# (what moves, low, high): overlap as a value, mfu and bandwidth as scales of the inputs.
SWINGS = (("overlap", 0.25, 0.75), ("mfu_scale", 0.8, 1.2), ("bandwidth_scale", 0.5, 2.0))


def whatif(snapshot: Mapping[str, Any], *, overlap=None, mfu_scale=1.0, bandwidth_scale=1.0):  # type: ignore[no-untyped-def]
    outcome = rank_snapshot(
        snapshot, overlap=overlap, mfu_scale=mfu_scale, bandwidth_scale=bandwidth_scale
    )
    return outcome_dict(outcome)


def sensitivity_rows(snapshot: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per input, the winner's cost per ETH change (%) at its low and high value, and whether
    another offer would win there."""
    base = rank_snapshot(snapshot)
    if not base.results:
        return []
    winner = base.results[0]
    names = {
        "overlap": _("overlap"),
        "mfu_scale": _("mfu × 0.8 … 1.2"),
        "bandwidth_scale": _("bandwidth × 0.5 … 2"),
    }
    rows = []
    for key, low, high in SWINGS:
        row: dict[str, Any] = {"key": key, "label": names[key]}
        for side, value in (("low", low), ("high", high)):
            kwargs = {key: value}
            outcome = rank_snapshot(snapshot, **kwargs)
            mine = next((r for r in outcome.results if r.offer_id == winner.offer_id), None)
            pct = 0.0 if mine is None else (mine.cost_per_eth / winner.cost_per_eth - 1) * 100
            flips = bool(outcome.results) and outcome.results[0].offer_id != winner.offer_id
            row[f"{side}_pct"] = round(pct, 1)
            row[f"{side}_value"] = value
            row[f"{side}_text"] = (_("winner changes") if flips else "") + f" ({value:g})"
            row[f"{side}_flips"] = flips
        rows.append(row)
    return rows
