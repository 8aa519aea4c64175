"""Plain-dict inputs of the ranking <-> the domain's types, shared by the web ranking and the CLI.

A snapshot is JSON: ``{"workload": {...}, "workload_preset": key, "workload_architecture": {...},
"workload_precision": "bf16", "offers": [{...}], "gpus": {key: {...}}, "fx_to_cny": {...}}`` with
the input names of COST-MODEL.md for the workload and the offers, so a stored run can be ranked
again; `snapshot_inputs` maps it once onto the training model's types (domain/ranking/adapters.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any

from django.utils.translation import get_language

from domain import ranking
from domain.messages import Message
from domain.ranking.adapters import WORKLOAD_INPUTS
from domain.trainmodel import GpuSpec, TrainModelError, gpu_table, preset
from domain.trainmodel.cases import model_from, parallel_from
from domain.trainmodel.inputs import check_model

WORKLOAD_FIELDS = WORKLOAD_INPUTS
OFFER_FIELDS = tuple(f.name for f in fields(ranking.Offer))
OFFER_REQUIRED = (
    "id",
    "gpu",
    "gpus_per_node",
    "nodes",
    "price_per_node_month",
    "nic_gbps",
    "fabric",
)
WORKLOAD_REQUIRED = ("params_b", "tokens_per_step")
# Offer-dict keys the portal adds for people (not model inputs); ignored by the model.
OFFER_EXTRA = ("vendor", "quote_id", "quote_version_id", "version", "data_centre")
# Money and plausibility notes (domain/money.py, domain/plausibility.py): the VAT terms the prices
# were normalised with, and the unusual values the analyst confirmed.
OFFER_EXTRA += ("tax", "confirmed_outliers")
# Contract term (months) and the vendor's English legal name: the decision's term check and
# English exports read them; the cost model does not.
OFFER_EXTRA += ("term_months", "vendor_en")
# How a measured figure was derived from the quote's logs (domain/evidence/offer.py): shown only.
OFFER_EXTRA += ("evidence",)


_OFFER_FIELD_SET = frozenset(OFFER_FIELDS)
_KNOWN_OFFER_KEYS = _OFFER_FIELD_SET | frozenset(OFFER_EXTRA)


class InputFileError(ValueError):
    """A ranking input that cannot even be read; each entry says what to fix."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def _whole(value: Any) -> Any:
    """JSON and spreadsheets give 8.0 for 8; the model wants whole numbers as int."""
    if type(value) is float and math.isfinite(value) and value.is_integer():
        return int(value)
    return value


def workload_inputs(data: Mapping[str, Any]) -> dict[str, Any]:
    """The workload's COST-MODEL.md inputs, read: unknown and missing names refused."""
    if not isinstance(data, Mapping):
        raise InputFileError(["workload must be an object with the COST-MODEL.md workload inputs"])
    unknown = sorted(set(data) - set(WORKLOAD_FIELDS))
    missing = [k for k in WORKLOAD_REQUIRED if data.get(k) is None]
    problems = [f"workload: unknown input {k!r}" for k in unknown]
    problems += [f"workload: {k} is required" for k in missing]
    if problems:
        raise InputFileError(problems)
    values = dict(data)
    if "nodes" in values:
        values["nodes"] = _whole(values["nodes"])
    return values


def offer_from_dict(data: Mapping[str, Any], index: int = 0) -> ranking.Offer:
    if not isinstance(data, Mapping):
        raise InputFileError([f"offers[{index}] must be an object"])
    unknown = sorted(k for k in data if k not in _KNOWN_OFFER_KEYS)
    missing = [k for k in OFFER_REQUIRED if data.get(k) is None]
    name = data.get("id", index)
    problems = [f"offer {name}: unknown input {k!r} / 报价 {name}：未知输入 {k!r}" for k in unknown]
    problems += [f"offer {name}: {k} is required / 报价 {name}：{k} 为必填项" for k in missing]
    if problems:
        raise InputFileError(problems)
    values = {k: v for k, v in data.items() if k in _OFFER_FIELD_SET}
    values["id"] = str(values["id"])
    for key in ("gpus_per_node", "nodes", "nics_per_node", "servers_per_rack"):
        if key in values:
            values[key] = _whole(values[key])
    flags = values.get("vendor_flags") or ()
    values["vendor_flags"] = tuple(
        f if isinstance(f, Message) else Message(f["code"], f["en"], f["zh"]) for f in flags
    )
    return ranking.Offer(**values)


# Snapshot GPU row key -> the training model's GpuSpec field (older snapshots also hold
# COST-MODEL.md's `default_mfu`, which nothing reads any more).
GPU_FIELDS = {
    "memory_gb": "memory_gb",
    "tflops_bf16": "bf16_tflops",
    "intra_node_gbyte_s": "intra_gbyte_s",
    "hbm_tbps": "hbm_tbps",
    "intra_kind": "intra_kind",
    "efficiency": "efficiency",
    "fp8_tflops": "fp8_tflops",
}
GPU_REQUIRED = ("hbm_tbps", "intra_kind", "efficiency")


def snapshot_gpus(rows: Mapping[str, Mapping[str, Any]]) -> dict[str, GpuSpec]:
    """The GPU table of a snapshot: the database's values (the admin-editable table wins), the
    model's data/gpus.json for what an older snapshot lacks. A card known to neither is left
    out, so its offers become a problem ("unknown GPU") instead of a guess."""
    defaults = gpu_table()
    out: dict[str, GpuSpec] = {}
    for key, row in rows.items():
        given = {GPU_FIELDS[k]: v for k, v in row.items() if k in GPU_FIELDS and v is not None}
        base = defaults.get(key)
        if base is not None:
            out[key] = replace(base, **given)
        elif all(given.get(k) is not None for k in GPU_REQUIRED):
            out[key] = GpuSpec(key=key, **given)
    return out


def snapshot_workload(snapshot: Mapping[str, Any]) -> ranking.Workload:
    """The snapshot's workload in the training model's types.

    Its architecture: `workload_architecture` ({"model": {...}, "parallel": {...}} in
    predict_runs' names), else the preset `workload_preset` names, else (size-only inputs) the
    assumed GPT shape, said as such. An impossible architecture (absurd sizes, hidden not
    divisible by the heads, a MoE without experts) refuses the whole ranking with bilingual
    messages; a layout that does not suit an offer (tp over the heads, more GPUs than it has)
    is that offer's problem."""
    values = workload_inputs(snapshot["workload"])
    given = snapshot.get("workload_architecture")
    key = snapshot.get("workload_preset")
    # the workload's compute precision wins over a preset's (older snapshots: the preset's)
    precision = snapshot.get("workload_precision")
    try:
        if given:
            if not isinstance(given, Mapping):
                given = {"model": given}
            model = model_from(given.get("model"), precision)
            check_model(model)
            parallel = parallel_from(given["parallel"]) if given.get("parallel") else None
            return ranking.workload_of(
                values, model=model, parallel=parallel,
                source=str(key) if key else "given", precision=precision,
            )  # fmt: skip
        if not key:
            return ranking.workload_of(values, precision=precision)
        found = preset(str(key))
        check_model(found.model)
    except TrainModelError as exc:
        raise ranking.ModelInputError(list(exc.messages)) from exc
    return ranking.workload_of(
        values, model=found.model, parallel=found.parallel, train_tokens=found.train_tokens,
        source=found.key, precision=precision,
    )  # fmt: skip


def finite(value: Any) -> Any:
    """JSON has no infinity or NaN: store None instead."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def message_dicts(messages: Any) -> list[dict[str, str]]:
    return [m.as_dict() for m in messages]


def result_dict(r: ranking.OfferResult) -> dict[str, Any]:
    """An OfferResult with COST-MODEL.md output names, JSON-ready."""
    out: dict[str, Any] = {}
    for f in fields(ranking.OfferResult):
        value = getattr(r, f.name)
        if f.name == "warnings":
            value = message_dicts(value)
        out[f.name] = finite(value)
    out["id"] = out.pop("offer_id")
    return out


def snapshot_inputs(
    snapshot: Mapping[str, Any],
) -> tuple[ranking.Workload, list[ranking.Offer], dict[str, GpuSpec], dict[str, float] | None]:
    """A stored snapshot as the ranking's arguments: workload, offers, GPU table, rates."""
    workload = snapshot_workload(snapshot)
    offers = [offer_from_dict(o, i) for i, o in enumerate(snapshot["offers"])]
    return workload, offers, snapshot_gpus(snapshot["gpus"]), snapshot.get("fx_to_cny") or None


def offer_vendor(offer: Mapping[str, Any]) -> str:
    """A snapshot offer's vendor in the active language: the English name for English readers
    where it was recorded (RankingResult.vendor_shown for stored results)."""
    english = (get_language() or "").startswith("en")
    return str((offer.get("vendor_en") if english else None) or offer.get("vendor") or "")


def short_label(rank: int | None, label: str, *, width: int = 18) -> str:
    """A chart label that fits: "#rank" and the part of the quote label after its last " · "
    (the fabric in "8×8 A100 · 100G RoCE"), cut to `width` characters."""
    tail = label.rsplit(" · ", 1)[-1].strip() if label else ""
    if len(tail) > width:
        tail = tail[: width - 1] + "…"
    head = f"#{rank}" if rank else ""
    return f"{head} {tail}".strip() or "?"
