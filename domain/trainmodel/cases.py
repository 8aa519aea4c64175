"""Run cases as JSON objects (the `predict_runs` contract of TRAINING-MODEL.md) in and out.

`predict_case(obj)` parses one case, runs `estimate` and returns the output object; bad input gives
an object with `fits: false`, `reason` and `error` (bilingual messages) instead of a traceback."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from domain.messages import Message
from domain.trainmodel.api import Estimate, NoFit, estimate
from domain.trainmodel.errors import TrainModelError, problem
from domain.trainmodel.gpus import GpuSpec, gpu_spec
from domain.trainmodel.inputs import Cluster, Failures, ModelSpec, MoeSpec, ParallelRequest

DEFAULT_GLOBAL_BATCH_TOKENS = 4 * 1024 * 1024  # when a case gives no batch: 4M tokens (MODEL.md)


def _field(owner: str, data: Mapping[str, Any], name: str, kind: str, required: bool) -> Any:
    value = data.get(name)
    if value is None:
        if required:
            raise problem(
                f"{owner}_{name}_missing",
                f"{owner}.{name} is required.",
                f"{owner}.{name} 为必填项。",
            )
        return None
    ok = False
    if kind == "int":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and math.isfinite(value) and float(value).is_integer()
        value = int(value) if ok else value
    elif kind == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        value = float(value) if ok else value
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "str":
        ok = isinstance(value, str)
    if not ok:
        en, zh = _KIND_WORDS[kind]
        raise problem(
            f"{owner}_{name}_type",
            f"{owner}.{name} must be {en} (got {value!r}).",
            f"{owner}.{name} 必须是{zh}（当前为 {value!r}）。",
        )
    return value


_KIND_WORDS = {
    "int": ("a whole number", "整数"),
    "float": ("a number", "数字"),
    "bool": ("true or false", "true 或 false"),
    "str": ("text", "文本"),
}


def _positive(owner: str, data: Mapping[str, Any], name: str, kind: str, *,
              zero_ok: bool = False) -> Any:  # fmt: skip
    """An optional number that, when given, must be above 0 (or at least 0): an explicit 0 or a
    negative value is refused with its name, never replaced by the default as if absent."""
    value = _field(owner, data, name, kind, False)
    if value is not None and (value < 0 or (value == 0 and not zero_ok)):
        bound_en, bound_zh = ("at least 0", "不小于 0") if zero_ok else ("above 0", "大于 0")
        raise problem(
            f"{owner}_{name}_range",
            f"{owner}.{name} must be {bound_en} (got {value!r}).",
            f"{owner}.{name} 必须{bound_zh}（当前为 {value!r}）。",
        )
    return value


class _Tracked(Mapping[str, Any]):
    """A case's JSON object that remembers which keys the parser read: a key nobody read names
    something the model does not express, and the case is refused with its name instead of
    answered as if the key were not there."""

    def __init__(self, owner: str, data: Mapping[str, Any]) -> None:
        self.owner = owner
        self.data = data
        self.read: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return self.data.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def unread(self) -> list[str]:
        return [
            f"{self.owner}.{k}" if self.owner != "case" else str(k)
            for k in self.data
            if k not in self.read and str(k) not in IGNORED_KEYS and not str(k).startswith("_")
        ]


# Keys a case may carry that are about the case, not the run.
IGNORED_KEYS = frozenset({"id", "source", "note", "notes", "comment"})
_TRACKED: ContextVar[list[_Tracked] | None] = ContextVar("_TRACKED", default=None)


def _object(owner: str, value: Any, required: bool = True) -> Mapping[str, Any] | None:
    if value is None and not required:
        return None
    if not isinstance(value, Mapping):
        raise problem(
            f"{owner}_not_object",
            f"{owner} must be a JSON object.",
            f"{owner} 必须是 JSON 对象。",
        )
    seen = _TRACKED.get()
    if seen is None:
        return value
    tracked = _Tracked(owner, value)
    seen.append(tracked)
    return tracked


def model_from(data: Any, precision: Any = None, kernel: Any = None) -> ModelSpec:
    """The model object; `precision` is the case's top-level field (the model's own
    `precision` key is read when the case gives none)."""
    d = _object("model", data)
    assert d is not None
    moe_raw = _object("model.moe", d.get("moe"), required=False)
    moe = None
    if moe_raw is not None:
        moe = MoeSpec(
            experts=_field("model.moe", moe_raw, "experts", "int", True),
            top_k=_field("model.moe", moe_raw, "top_k", "int", True),
            active_params_b=_field("model.moe", moe_raw, "active_params_b", "float", True),
            shared_experts=_field("model.moe", moe_raw, "shared_experts", "int", False) or 0,
            dense_layers=_field("model.moe", moe_raw, "dense_layers", "int", False) or 0,
            expert_ffn=_field("model.moe", moe_raw, "expert_ffn", "int", False),
            a2a_overlap=bool(_field("model.moe", moe_raw, "a2a_overlap", "bool", False)),
            node_limit=_field("model.moe", moe_raw, "node_limit", "int", False),
        )
    return ModelSpec(
        params_b=_field("model", d, "params_b", "float", True),
        layers=_field("model", d, "layers", "int", True),
        hidden=_field("model", d, "hidden", "int", True),
        heads=_field("model", d, "heads", "int", True),
        seq_len=_field("model", d, "seq_len", "int", True),
        vocab=_positive("model", d, "vocab", "int", zero_ok=True) or 0,
        ffn=_positive("model", d, "ffn", "int"),
        kv_heads=_positive("model", d, "kv_heads", "int"),
        head_dim=_positive("model", d, "head_dim", "int"),
        moe=moe,
        trainable_params_b=_positive("model", d, "trainable_params_b", "float"),
        precision=_precision(precision if precision is not None else d.get("precision")),
        attention_kernel=_kernel(kernel if kernel is not None else d.get("attention_kernel")),
        peft=_field("model", d, "peft", "str", False),
        lora_rank=_positive("model", d, "lora_rank", "int"),
        lora_targets=_targets(d.get("lora_targets")),
        bytes_per_sample=_positive("model", d, "bytes_per_sample", "float", zero_ok=True),
        cp_comm=_field("model", d, "cp_comm", "str", False) or "ring",
    )


def _targets(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise problem(
            "model_lora_targets_type",
            f'model.lora_targets must be a list of texts such as ["qkv", "mlp"] (got {value!r}).',
            f'model.lora_targets 必须是文本列表，例如 ["qkv", "mlp"]（当前为 {value!r}）。',
        )
    return tuple(value)


def _kernel(value: Any) -> str:
    if value is None:
        return "fa2"
    if not isinstance(value, str):
        raise problem(
            "case_attention_kernel_type",
            f"attention_kernel must be the text fa2 or fa3 (got {value!r}).",
            f"attention_kernel（注意力内核）必须是文本 fa2 或 fa3（当前为 {value!r}）。",
        )
    return value


def _precision(value: Any) -> str:
    if value is None:
        return "bf16"
    if not isinstance(value, str):
        raise problem(
            "case_precision_type",
            f"precision must be the text bf16 or fp8 (got {value!r}).",
            f"precision（计算精度）必须是文本 bf16 或 fp8（当前为 {value!r}）。",
        )
    return value.strip().lower()


def parallel_from(data: Any) -> ParallelRequest:
    d = _object("parallel", data, required=False) or {}
    gbt = _field("parallel", d, "global_batch_tokens", "float", False)
    overlap = _field("parallel", d, "dp_overlap", "bool", False)
    flash = _field("parallel", d, "flash_attention", "bool", False)
    return ParallelRequest(
        global_batch_tokens=gbt if gbt is not None else DEFAULT_GLOBAL_BATCH_TOKENS,
        tp=_field("parallel", d, "tp", "int", False),
        pp=_field("parallel", d, "pp", "int", False),
        dp=_field("parallel", d, "dp", "int", False),
        cp=_field("parallel", d, "cp", "int", False),
        ep=_field("parallel", d, "ep", "int", False),
        zero_stage=_field("parallel", d, "zero_stage", "int", False),
        sequence_parallel=_field("parallel", d, "sequence_parallel", "bool", False),
        interleave=_interleave(d),
        microbatch=_field("parallel", d, "microbatch", "int", False),
        recompute=_field("parallel", d, "recompute", "str", False),
        grad_reduce_bytes=_field("parallel", d, "grad_reduce_bytes", "float", False),
        dp_overlap=True if overlap is None else overlap,
        flash_attention=flash if flash is not None else True,
        zero3_gathers_per_layer=_field("parallel", d, "zero3_gathers_per_layer", "int", False) or 1,
        zero_reduce=_field("parallel", d, "zero_reduce", "str", False) or "reduce_scatter",
        zero_shard_ranks=_field("parallel", d, "zero_shard_ranks", "int", False),
    )


# Megatron-LM's virtual pipeline (`--num-layers-per-virtual-pipeline-stage`, the model chunks per
# GPU) is the interleave of the schedule under other names.
INTERLEAVE_ALIASES = ("vp", "virtual_pipeline", "virtual_pipeline_size")


def _interleave(d: Mapping[str, Any]) -> int | None:
    found = {
        name: value
        for name in ("interleave", *INTERLEAVE_ALIASES)
        if (value := _field("parallel", d, name, "int", False)) is not None
    }
    if len(set(found.values())) > 1:
        names = ", ".join(f"{k}={v}" for k, v in found.items())
        raise problem(
            "parallel_interleave_conflict",
            f"parallel gives the virtual pipeline twice with different values ({names}).",
            f"parallel 中虚拟流水线（交错数）给了两个不同的值（{names}）。",
        )
    return next(iter(found.values()), None)


def failures_from(data: Any) -> Failures | None:
    d = _object("failures", data, required=False)
    if d is None:
        return None
    return Failures(
        interruptions_per_gpu_hour=_field(
            "failures", d, "interruptions_per_gpu_hour", "float", True
        ),
        checkpoint_write_s=_field("failures", d, "checkpoint_write_s", "float", True),
        restart_s=_field("failures", d, "restart_s", "float", True),
        checkpoint_interval_s=_field("failures", d, "checkpoint_interval_s", "float", False),
        repair_s=_field("failures", d, "repair_s", "float", False) or 0.0,
        spare_nodes=_field("failures", d, "spare_nodes", "int", False) or 0,
        availability=_opt(_field("failures", d, "availability", "float", False), 1.0),
    )


def _opt(value: float | None, default: float) -> float:
    return default if value is None else value


def cluster_from(d: Mapping[str, Any], table: dict[str, GpuSpec] | None = None) -> Cluster:
    gpu = gpu_spec(_field("case", d, "gpu", "str", True), table)
    raw_table = d.get("busbw_table") or []
    if not isinstance(raw_table, list) or not all(
        isinstance(r, list) and len(r) == 2 and all(isinstance(x, int | float) and x > 0 for x in r)
        for r in raw_table
    ):
        raise problem(
            "case_busbw_table",
            "busbw_table must be a list of [message bytes, busbw Gbit/s] pairs, both positive.",
            "busbw_table 必须是 [消息字节数, busbw Gbit/s] 的正数对列表。",
        )
    gpus = _field("case", d, "gpus", "int", True)
    return Cluster(
        gpu=gpu,
        gpus=gpus,
        gpus_per_node=_positive("case", d, "gpus_per_node", "int") or min(gpus, 8),
        nic_gbps=_field("case", d, "nic_gbps", "float", False) or 0.0,
        nics_per_node=_positive("case", d, "nics_per_node", "int") or 1,
        fabric=_field("case", d, "fabric", "str", False) or "tcp",
        measured_busbw_gbps=_field("case", d, "measured_busbw_gbps", "float", False),
        measured_link_gbps=_field("case", d, "measured_link_gbps", "float", False),
        storage_ingress_gbyte_s=_field("case", d, "storage_ingress_gbyte_s", "float", False),
        link_bidirectional=bool(_field("case", d, "link_bidirectional", "bool", False)),
        busbw_table=tuple((float(s), float(g)) for s, g in raw_table),
    )


def run_case(data: Any, table: dict[str, GpuSpec] | None = None) -> Estimate | NoFit:
    d = _object("case", data)
    assert d is not None
    return estimate(
        model_from(d.get("model"), d.get("precision"), d.get("attention_kernel")),
        cluster_from(d, table),
        parallel_from(d.get("parallel")),
        failures_from(d.get("failures")),
        _field("case", d, "train_tokens", "float", False),
    )


def unexpressed(data: Any, table: dict[str, GpuSpec] | None = None) -> list[str]:
    """The keys of a case that no part of the model reads (after parsing it in full): what
    the case asks for that the model cannot express. Raises TrainModelError on bad input."""
    token = _TRACKED.set([])
    try:
        d = _object("case", data)
        assert d is not None
        model_from(d.get("model"), d.get("precision"), d.get("attention_kernel"))
        cluster_from(d, table)
        parallel_from(d.get("parallel"))
        failures_from(d.get("failures"))
        _field("case", d, "train_tokens", "float", False)
        return [key for tracked in _TRACKED.get() or [] for key in tracked.unread()]
    finally:
        _TRACKED.reset(token)


def not_modelled(case_id: Any, keys: list[str]) -> dict[str, Any]:
    """`fits: false` for a case asking for what the model cannot express: no number is given."""
    names = ", ".join(keys)
    return {
        "id": case_id,
        "fits": False,
        "reason": f"Not modelled: {names}. The model cannot express this case, so it gives no "
        "estimate rather than one that ignores it.",
        "reason_zh": f"模型未涵盖：{names}。模型无法表达该情形，因此不给出估计，"
        "而不是忽略这些字段给出一个不可信的数字。",
        "not_modelled": keys,
        "step_time_s": None,
        "tokens_per_s": None,
        "mfu": None,
        "hfu": None,
        "memory_gb_per_gpu": None,
        "layout": None,
        "breakdown_s": None,
    }


def _r(x: float, digits: int = 6) -> float:
    return float(f"{x:.{digits}g}")


def estimate_dict(case_id: Any, result: Estimate | NoFit) -> dict[str, Any]:
    if isinstance(result, NoFit):
        return {
            "id": case_id,
            "fits": False,
            "reason": result.reason.en,
            "reason_zh": result.reason.zh,
            "memory_gb_per_gpu": None if result.needed_gb is None else _r(result.needed_gb, 4),
            "card_memory_gb": result.card_memory_gb,
            "layouts_evaluated": result.layouts_evaluated,
            "step_time_s": None,
            "tokens_per_s": None,
            "mfu": None,
            "hfu": None,
            "layout": None,
            "breakdown_s": None,
        }
    s = result.step
    lay = result.layout
    out: dict[str, Any] = {
        "id": case_id,
        "step_time_s": _r(s.step_s),
        "tokens_per_s": _r(result.tokens_per_s),
        "mfu": _r(result.mfu, 4),
        "hfu": _r(result.hfu, 4),
        "memory_gb_per_gpu": _r(result.memory.total_gb, 4),
        "fits": True,
        "layout": {
            "tp": lay.tp,
            "pp": lay.pp,
            "dp": lay.dp,
            "cp": lay.cp,
            "ep": lay.ep,
            "zero_stage": lay.zero_stage,
            "microbatch": lay.microbatch,
            "recompute": lay.recompute,
        },
        "breakdown_s": {
            "compute": _r(s.compute_s),
            "tp_comm": _r(s.tp_comm_s),
            "pp_comm": _r(s.pp_comm_s),
            "bubble": _r(s.bubble_s),
            "dp_exposed": _r(s.dp_exposed_s),
            "ep_comm": _r(s.ep_comm_s),
            "optimizer": _r(s.optimizer_s),
        },
        # an extra beside the contract's breakdown: waiting for storage (docs/MODEL.md §17.8)
        "data_wait_s": _r(s.data_wait_s),
        "layout_extra": {"interleave": lay.interleave, "sequence_parallel": lay.sequence_parallel},
        "card_memory_gb": result.card_memory_gb,
        "layouts_evaluated": result.layouts_evaluated,
        "bandwidth_basis": result.bandwidth_basis,
    }
    if result.failures_given:
        out["checkpoint_interval_s"] = _r(result.goodput.checkpoint_interval_s)
        out["ettr"] = _r(result.goodput.ettr, 4)
        out["goodput"] = _r(result.goodput.goodput, 4)
    return out


def error_dict(case_id: Any, messages: tuple[Message, ...]) -> dict[str, Any]:
    return {
        "id": case_id,
        "fits": False,
        "reason": "; ".join(m.en for m in messages),
        "reason_zh": "；".join(m.zh for m in messages),
        "error": [m.as_dict() for m in messages],
    }


def predict_case(data: Any, table: dict[str, GpuSpec] | None = None) -> dict[str, Any]:
    """One output object; never raises on bad input."""
    case_id = data.get("id") if isinstance(data, Mapping) else None
    try:
        missing = unexpressed(data, table)
        if missing:
            return not_modelled(case_id, missing)
        return estimate_dict(case_id, run_case(data, table))
    except TrainModelError as exc:
        return error_dict(case_id, exc.messages)
    except (ArithmeticError, ValueError, TypeError, KeyError) as exc:
        # A case that reaches a corner the model's formulas do not cover: answered, not fatal.
        return error_dict(
            case_id,
            (
                Message(
                    "case_not_evaluable",
                    f"The model could not evaluate this case ({type(exc).__name__}: {exc}).",
                    f"模型无法评估该情形（{type(exc).__name__}：{exc}）。",
                ),
            ),
        )
