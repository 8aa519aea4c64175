"""The architecture and parallel layout an analyst stores on a workload (docs/MODEL.md §15).

Stored as ``{"model": {...}, "parallel": {...}}`` in predict_runs' names, without the size and the
batch (the workload's params_b and tokens_per_step are the one source of those): `combine` adds
them back for the ranking snapshot. `check_architecture` refuses what no offer can run (absurd
sizes, hidden not divisible by the heads, tp not dividing the heads, pp not splitting the layers,
a MoE without experts) with bilingual messages; `message_field` names the form field a message
belongs to. A layout larger than an offer is that offer's problem (search.check_given).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from domain.messages import Message
from domain.trainmodel.cases import model_from, parallel_from
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.inputs import ModelSpec, ParallelRequest, check_model
from domain.trainmodel.search import check_request

MODEL_KEYS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "seq_len")
MOE_KEYS = (
    "experts", "top_k", "active_params_b", "shared_experts", "dense_layers", "expert_ffn",
    "node_limit",
)  # fmt: skip
PARALLEL_KEYS = ("tp", "pp", "dp", "zero_stage", "microbatch")
# Keys a preset may carry that the form does not show (kept when the analyst starts from it).
EXTRA_MODEL_KEYS = (
    "trainable_params_b", "peft", "lora_rank", "lora_targets", "bytes_per_sample",
    "attention_kernel", "cp_comm", "head_dim",
)  # fmt: skip
EXTRA_PARALLEL_KEYS = (
    "grad_reduce_bytes", "recompute", "interleave", "cp", "ep", "zero_reduce", "zero_shard_ranks",
)  # fmt: skip
KNOWN_MODEL_KEYS = {*MODEL_KEYS, *EXTRA_MODEL_KEYS, "params_b", "moe"}
KNOWN_PARALLEL_KEYS = {
    *PARALLEL_KEYS, *EXTRA_PARALLEL_KEYS, "global_batch_tokens", "sequence_parallel",
    "dp_overlap", "flash_attention",
}  # fmt: skip
# Upper bounds nobody can mean (check_model bounds layers, hidden, heads and sequence length).
LIMITS = {"vocab": 10_000_000, "ffn": 10_000_000, "experts": 100_000}

# message code -> form field (the form names MoE fields moe_<key>)
_FIELDS = {
    "model_layers_range": "layers",
    "model_hidden_range": "hidden",
    "model_heads_range": "heads",
    "model_seq_len_range": "seq_len",
    "model_params_range": "params_b",
    "model_heads_hidden": "heads",
    "model_kv_heads": "kv_heads",
    "model_vocab_range": "vocab",
    "model_ffn_range": "ffn",
    "moe_no_experts": "moe_experts",
    "moe_experts_range": "moe_experts",
    "moe_top_k": "moe_top_k",
    "moe_active_params": "moe_active_params_b",
    "moe_shared_experts": "moe_shared_experts",
    "moe_dense_layers": "moe_dense_layers",
    "moe_expert_ffn": "moe_expert_ffn",
    "moe_node_limit": "moe_node_limit",
    "tp_heads": "tp",
    "pp_layers": "pp",
    "zero_stage": "zero_stage",
    "ep_without_moe": "moe_experts",
}


def message_field(code: str) -> str | None:
    """The form field a check message is about (None: the whole form)."""
    if code in _FIELDS:
        return _FIELDS[code]
    for prefix, field in (("model.moe_", "moe_"), ("model_", ""), ("parallel_", "")):
        if code.startswith(prefix):
            name = code[len(prefix) :].rsplit("_", 1)[0]
            known = (*MODEL_KEYS, *PARALLEL_KEYS, *(f"moe_{k}" for k in MOE_KEYS))
            if f"{field}{name}" in known:
                return f"{field}{name}"
    return None


def combine(
    stored: Mapping[str, Any], params_b: float, global_batch_tokens: float
) -> dict[str, Any]:
    """The stored architecture with the workload's size and batch: predict_runs' objects."""
    model = dict(stored.get("model") or {})
    model["params_b"] = params_b
    parallel = {"global_batch_tokens": global_batch_tokens, **(stored.get("parallel") or {})}
    return {"model": model, "parallel": parallel}


def _bound(code: str, name: str, value: Any, high: int) -> Message | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 1 <= value <= high:
        return None
    return Message(
        code,
        f"model.{name} must be between 1 and {high:,} (got {value}).",
        f"model.{name} 必须在 1 到 {high:,} 之间（当前为 {value}）。",
    )


def check_architecture(
    stored: Mapping[str, Any], params_b: float, global_batch_tokens: float
) -> tuple[ModelSpec, ParallelRequest]:
    """The stored architecture checked as the ranking will read it; raises TrainModelError."""
    if not isinstance(stored, Mapping) or not all(
        isinstance(stored.get(part) or {}, Mapping) for part in ("model", "parallel")
    ):
        raise TrainModelError(
            [
                Message(
                    "architecture_not_object",
                    'The architecture must be an object {"model": {...}, "parallel": {...}}.',
                    '架构必须是 {"model": {...}, "parallel": {...}} 形式的对象。',
                )
            ]
        )
    both = combine(stored, params_b, global_batch_tokens)
    raw = both["model"]
    unknown = sorted(set(raw) - KNOWN_MODEL_KEYS) + sorted(
        set(both["parallel"]) - KNOWN_PARALLEL_KEYS
    )
    if unknown:
        names = ", ".join(unknown)
        model_keys = ", ".join(sorted(KNOWN_MODEL_KEYS))
        parallel_keys = ", ".join(sorted(KNOWN_PARALLEL_KEYS))
        raise TrainModelError(
            [
                Message(
                    "architecture_unknown_keys",
                    f"Unknown architecture inputs: {names}. Model: {model_keys}; "
                    f"parallel: {parallel_keys}.",
                    f"未知的架构参数：{names}。模型参数：{model_keys}；并行参数：{parallel_keys}。",
                )
            ]
        )
    moe = raw.get("moe")
    sizes = (
        ("model_vocab_range", "vocab", raw.get("vocab") or None, LIMITS["vocab"]),
        ("model_ffn_range", "ffn", raw.get("ffn"), LIMITS["ffn"]),
        (
            "moe_experts_range",
            "moe.experts",
            moe.get("experts") if isinstance(moe, Mapping) else None,
            LIMITS["experts"],
        ),
    )
    bad = [
        message
        for code, name, value, high in sizes
        if value is not None and (message := _bound(code, name, value, high)) is not None
    ]
    if isinstance(moe, Mapping) and not moe.get("experts"):
        bad.append(
            Message(
                "moe_no_experts",
                "A mixture-of-experts model needs its number of experts (at least 2).",
                "MoE（混合专家）模型需要填写专家数（至少 2 个）。",
            )
        )
    if bad:
        raise TrainModelError(bad)
    model = model_from(raw)
    check_model(model)
    parallel = parallel_from(both["parallel"])
    by_code: dict[str, Message] = {}
    # each fixed degree on its own first, so tp and pp problems are reported together
    for one in (replace(parallel, pp=None), replace(parallel, tp=None), parallel):
        try:
            check_request(model, one)
        except TrainModelError as exc:
            by_code.update((m.code, m) for m in exc.messages)
    if by_code:
        raise TrainModelError(list(by_code.values()))
    return model, parallel


def architecture_problems(
    stored: Any, params_b: float, global_batch_tokens: float, language: str | None
) -> list[str]:
    """check_architecture's messages in `language` (empty: it is fine)."""
    try:
        check_architecture(stored, params_b, global_batch_tokens)
    except TrainModelError as exc:
        return [m.text(language) for m in exc.messages]
    return []
