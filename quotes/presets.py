"""Workload presets offered on the create page (COST-MODEL.md workload inputs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from domain.trainmodel import presets as v2_presets

PRESETS: dict[str, dict[str, Any]] = {
    "pretrain-7b": {
        "name": _("7B pre-training, 8 nodes"),
        "params_b": 7.0, "tokens_per_step": 4_000_000, "strategy": "ddp", "overlap": 0.5,
        "nodes": 8, "train_tokens": 1.0e12,
    },
    "pretrain-13b": {
        "name": _("13B pre-training, 16 nodes"),
        "params_b": 13.0, "tokens_per_step": 4_000_000, "strategy": "zero1", "overlap": 0.5,
        "nodes": 16, "train_tokens": 1.0e12,
    },
    "pretrain-70b": {
        "name": _("70B pre-training, 32 nodes (FSDP)"),
        "params_b": 70.0, "tokens_per_step": 8_000_000, "strategy": "fsdp", "overlap": 0.6,
        "nodes": 32, "train_tokens": 2.0e12,
    },
    "finetune-1node": {
        "name": _("7B fine-tune, one node"),
        "params_b": 7.0, "tokens_per_step": 500_000, "strategy": "fsdp", "overlap": 0.5,
        "nodes": 1, "train_tokens": 2.0e9,
    },
}  # fmt: skip


# form field -> key in the stored architecture's "model" / "model.moe" / "parallel"
MODEL_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "seq_len")
MOE_FIELDS = {
    "moe_experts": "experts",
    "moe_top_k": "top_k",
    "moe_active_params_b": "active_params_b",
    "moe_shared_experts": "shared_experts",
    "moe_dense_layers": "dense_layers",
    "moe_expert_ffn": "expert_ffn",
    "moe_node_limit": "node_limit",
}
PARALLEL_FIELDS = ("tp", "pp", "dp", "zero_stage", "microbatch")


def is_preset(key: str | None) -> bool:
    return bool(key) and (key in PRESETS or key in v2_presets())


def preset_data(key: str) -> dict[str, Any]:
    """The form's initial values for a preset of either kind."""
    data: dict[str, Any] = {
        "flops_per_token_factor": 6.0, "grad_bytes": 2.0, "mfu": None, "preset": key,
        "overlap": 0.5,
    }  # fmt: skip
    if key in PRESETS:
        data.update(PRESETS[key])
        data["name"] = str(data["name"])  # in the page's language, stored as the workload's name
        return data
    found = v2_presets()[key]
    data.update(
        name=found.label.text(get_language()),
        params_b=found.model.params_b,
        tokens_per_step=int(found.parallel.global_batch_tokens),
        train_tokens=found.train_tokens,
        strategy="fsdp",
        precision=found.model.precision,
    )
    data.update(
        architecture_initial({"model": found.raw["model"], "parallel": found.raw["parallel"]})
    )
    return data


def architecture_initial(arch: Mapping[str, Any]) -> dict[str, Any]:
    """A stored architecture as the form's field values."""
    model = arch.get("model") or {}
    moe = model.get("moe") or {}
    parallel = arch.get("parallel") or {}
    out = {f: model.get(f) for f in MODEL_FIELDS}
    out.update({f: moe.get(k) for f, k in MOE_FIELDS.items()})
    out.update({f: parallel.get(f) for f in PARALLEL_FIELDS})
    return {k: v for k, v in out.items() if v is not None}


def architecture_from_fields(data: Mapping[str, Any], preset_key: str) -> dict[str, Any] | None:
    """The form's architecture fields over the v2 preset's architecture (its other keys, e.g. a
    LoRA's trainable parameters, kept); None when neither gives anything."""
    model: dict[str, Any] = {}
    parallel: dict[str, Any] = {}
    found = v2_presets().get(preset_key)
    if found is not None:
        model = {k: v for k, v in found.raw["model"].items() if k != "params_b"}
        parallel = {k: v for k, v in found.raw["parallel"].items() if k != "global_batch_tokens"}
    model.update({f: data[f] for f in MODEL_FIELDS if data.get(f) is not None})
    moe_given = {k: data[f] for f, k in MOE_FIELDS.items() if data.get(f) is not None}
    if moe_given.get("experts") == 0 and len(moe_given) == 1:
        model.pop("moe", None)  # 0 experts alone: a dense model
    elif moe_given:
        model["moe"] = {**(model.get("moe") or {}), **moe_given}
    parallel.update({f: data[f] for f in PARALLEL_FIELDS if data.get(f) is not None})
    if not model and not parallel:
        return None
    return {"model": model, "parallel": parallel}


def preset_links() -> list[tuple[str, str]]:
    """(key, label) of every preset for the page's "start from" buttons, in the language."""
    rows = [(k, str(p["name"])) for k, p in PRESETS.items()]
    rows += [(k, p.label.text(get_language())) for k, p in v2_presets().items()]
    return rows
