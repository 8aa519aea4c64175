"""The ranking's file and snapshot inputs mapped, once, onto the training model's types.

`rank_offers` files and stored ranking snapshots name the workload with COST-MODEL.md's inputs
(`params_b`, `tokens_per_step`, `strategy`, `grad_bytes`, `flops_per_token_factor`, `overlap`,
`nodes`, `train_tokens`); that format is a contract and keeps working. `workload_of` turns it into
a `Workload`:

- the architecture is the one given (a preset's, the analyst's `{"model", "parallel"}`); only when
  an input gives nothing but a parameter count is a dense GPT-like shape assumed (`gpt_shape`), and
  the workload then says so (`assumed_architecture`: pages and the breakdown name it);
- `strategy` ddp / zero1 / zero2 / fsdp / zero3 is the ZeRO stage 0 / 1 / 2 / 3 / 3, a FLOPs
  factor of 8 means full recomputation, `grad_bytes` the reduce dtype, `overlap` > 0 bucketed
  overlap of data-parallel traffic; a given layout keeps its own values but overlap.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from domain.messages import Message
from domain.ranking.checks import ModelInputError, _real, field_message
from domain.ranking.inputs import Workload
from domain.trainmodel.inputs import ModelSpec, ParallelRequest

STAGES = {"ddp": 0, "zero1": 1, "zero2": 2, "fsdp": 3, "zero3": 3}
ASSUMED_SEQ_LEN = 4096
ASSUMED_VOCAB = 32000
HEAD_DIM = 128
WORKLOAD_DEFAULTS: Mapping[str, Any] = {
    "flops_per_token_factor": 6.0,
    "grad_bytes": 2.0,
    "strategy": "ddp",
    "overlap": 0.5,
    "mfu": None,
    "nodes": None,
    "train_tokens": None,
}
WORKLOAD_INPUTS = ("params_b", "tokens_per_step", *WORKLOAD_DEFAULTS)


def gpt_shape(params_b: float) -> ModelSpec:
    """A dense GPT-like model of `params_b` billion parameters (12·L·h² in the layers).

    Width h = (N·128/12)^(1/3) rounded to a multiple of 1,024 (heads of 128, h/128 of them, so 1,
    2, 4 or 8 tensor-parallel GPUs divide them as real models' head counts do), depth
    L = N / (12·h²) rounded to a multiple of 8 (so 1, 2, 4 or 8 pipeline stages divide it),
    4,096-token sequences, a 32K vocabulary (docs/MODEL.md, "Size-only workloads")."""
    n = params_b * 1e9
    width_step = HEAD_DIM * 8
    hidden = max(width_step, round((n * HEAD_DIM / 12) ** (1 / 3) / width_step) * width_step)
    layers = max(8, round(n / (12 * hidden * hidden) / 8) * 8)
    return ModelSpec(
        params_b=params_b,
        layers=layers,
        hidden=hidden,
        heads=hidden // HEAD_DIM,
        seq_len=ASSUMED_SEQ_LEN,
        vocab=ASSUMED_VOCAB,
    )


_RULES: tuple[tuple[str, bool, str, str], ...] = (
    ("params_b", False, "not_positive", ""),
    ("tokens_per_step", False, "not_positive", ""),
    ("flops_per_token_factor", False, "not_positive", ""),
    ("grad_bytes", False, "not_positive", ""),
    ("overlap", False, "out_of_range", "[0, 1]"),
    ("mfu", True, "out_of_range", "(0, 1]"),
    ("train_tokens", True, "not_positive", ""),
)


def _problems(values: Mapping[str, Any]) -> list[Message]:
    out: list[Message] = []
    for name, optional, kind, rng in _RULES:
        value = values.get(name)
        if value is None and optional:
            continue
        real = _real(value)
        ok = real is not None and (
            real > 0
            if kind == "not_positive"
            else (0 <= real <= 1 if rng == "[0, 1]" else 0 < real <= 1)
        )
        if not ok:
            out.append(field_message("workload", name, kind, value, rng))
    nodes = values.get("nodes")
    if nodes is not None and not (type(nodes) is int and nodes >= 1):
        out.append(field_message("workload", "nodes", "not_whole", nodes))
    strategy = values.get("strategy")
    if strategy not in STAGES:
        out.append(field_message("workload", "strategy", "unknown", strategy, ", ".join(STAGES)))
    return out


def workload_of(
    values: Mapping[str, Any],
    *,
    model: ModelSpec | None = None,
    parallel: ParallelRequest | None = None,
    train_tokens: float | None = None,
    source: str = "",
    precision: str | None = None,
) -> Workload:
    """A `Workload` from COST-MODEL.md's inputs and the architecture known beside them.

    Raises ModelInputError naming each impossible input."""
    unknown = sorted(set(values) - set(WORKLOAD_INPUTS))
    if unknown:
        raise ModelInputError(
            [
                Message(
                    "workload_unknown_field",
                    f"workload: unknown input {key!r}.",
                    f"workload：未知输入 {key!r}。",
                )
                for key in unknown
            ]
        )
    given = {**WORKLOAD_DEFAULTS, **values}
    bad = _problems(given)
    if bad:
        raise ModelInputError(bad)
    assumed = model is None
    spec = model or gpt_shape(float(given["params_b"]))
    if precision is not None:
        spec = replace(spec, precision=precision)
    overlap = float(given["overlap"]) > 0
    if parallel is not None:
        request = replace(parallel, dp_overlap=parallel.dp_overlap and overlap)
    else:
        request = ParallelRequest(
            global_batch_tokens=float(given["tokens_per_step"]),
            zero_stage=STAGES[given["strategy"]],
            recompute="full" if float(given["flops_per_token_factor"]) >= 8 else None,
            grad_reduce_bytes=float(given["grad_bytes"]),
            dp_overlap=overlap,
        )
    tokens = given["train_tokens"] or train_tokens
    return Workload(
        model=spec,
        parallel=request,
        train_tokens=None if tokens is None or not math.isfinite(tokens) else float(tokens),
        nodes=given["nodes"],
        source=source or ("gpt_shape" if assumed else "given"),
        assumed_architecture=assumed,
    )
