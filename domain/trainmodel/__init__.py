"""Training-time model v2; formulas and constants: docs/MODEL.md.

Public API (pure Python, no Django)::

    from domain import trainmodel as tm
    result = tm.estimate(model, cluster, parallel, failures=None, train_tokens=None)
    if isinstance(result, tm.NoFit):
        result.reason            # bilingual Message: "needs 112 GB per GPU, has 24"
    else:
        result.layout            # Layout(tp, pp, dp, cp, ep, zero_stage, microbatch, recompute,
                                 #        interleave, sequence_parallel) chosen by the search
        result.memory.total_gb   # per GPU, vs result.card_memory_gb
        result.step              # StepTime: step_s and compute/tp/pp/bubble/dp/ep/optimizer parts
        result.mfu, result.hfu, result.tokens_per_s, result.layouts_evaluated
        result.goodput           # mtbf_s, checkpoint_interval_s (Daly), ettr, goodput (x SLA)
        result.eth_per_hour      # effective training hours per wall hour (H100 at mfu 0.45 = 1)
        result.train_hours, result.wall_hours, result.expected_interruptions  # with train_tokens

Inputs: `ModelSpec` (params_b, layers, hidden, heads, seq_len, vocab, ffn, kv_heads, `MoeSpec`
(experts, top_k, active_params_b, shared_experts, dense_layers, expert_ffn, a2a_overlap),
trainable_params_b for adapters, precision "bf16" | "fp8"), `Cluster` (a `GpuSpec` from
`gpu_spec(key)`, gpus, gpus_per_node, nic_gbps, nics_per_node, fabric, measured busbw or a
busbw-by-size table),
`ParallelRequest` (global_batch_tokens plus any fixed tp/pp/dp/cp/ep/zero_stage/microbatch/
recompute/interleave; None is searched), `Failures` (rate per GPU-hour, checkpoint write,
restart, vendor repair time, spare servers, SLA availability).
Bad input raises `TrainModelError` whose `messages` are bilingual.

`predict_case(dict)` is the `predict_runs` JSON contract; `presets()` / `preset(key)` give the
workload presets (data/presets.json); `validation.run_validation()` runs the published cases.
Offers are ranked by cost per ETH with this model in domain/ranking (`rank`, `cluster_of`).

Modules: inputs, arch, gpus (data/gpus.json), links (alpha-beta), memory, steptime, precision
(what runs in FP8), moe (expert weights, folding, all-to-all), search, failures, api, cases,
presets, validation (data/validation_cases*.json).
The Django layer may pass its own GPU table to `gpu_spec(key, table)` / `predict_case(obj, table)`.
"""

from __future__ import annotations

from domain.trainmodel.api import Estimate, NoFit, estimate
from domain.trainmodel.cases import predict_case
from domain.trainmodel.errors import TrainModelError
from domain.trainmodel.failures import Goodput, daly_interval_s, ettr, young_interval_s
from domain.trainmodel.gpus import GpuSpec, gpu_spec, gpu_table
from domain.trainmodel.inputs import (
    Cluster,
    Failures,
    Layout,
    ModelSpec,
    MoeSpec,
    ParallelRequest,
)
from domain.trainmodel.memory import MemoryUse
from domain.trainmodel.presets import Preset, preset, presets
from domain.trainmodel.steptime import StepTime

__all__ = [
    "Cluster",
    "Estimate",
    "Failures",
    "Goodput",
    "GpuSpec",
    "Layout",
    "MemoryUse",
    "ModelSpec",
    "MoeSpec",
    "NoFit",
    "ParallelRequest",
    "Preset",
    "StepTime",
    "TrainModelError",
    "daly_interval_s",
    "estimate",
    "ettr",
    "gpu_spec",
    "gpu_table",
    "predict_case",
    "preset",
    "presets",
    "young_interval_s",
]
