"""The GPU table of the model (data/gpus.json): peak FLOP/s, memory, HBM and intra-node links."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from domain.trainmodel.errors import problem

DATA = Path(__file__).resolve().parent / "data"
INTRA_KINDS = ("nvlink", "pcie", "hccs")


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """One card. `efficiency` is the best dense-GEMM share of peak on large matrices."""

    key: str
    memory_gb: float
    bf16_tflops: float
    hbm_tbps: float
    intra_kind: str
    intra_gbyte_s: float
    efficiency: float
    fp8_tflops: float | None = None
    source: str = ""
    # Fused (flash) attention forward / backward share of the BF16 peak at head dim 128 on long
    # sequences, as the FlashAttention papers measured it (data/gpus.json; None: derived from
    # `efficiency`, attention.py).
    attention_fwd_eff: float | None = None
    attention_bwd_eff: float | None = None
    # The same for a Hopper-native kernel (FlashAttention-3, cuDNN fused attention as
    # Transformer Engine runs it); None: the card has none, the figures above apply.
    attention_fwd_eff_fa3: float | None = None
    attention_bwd_eff_fa3: float | None = None


def _spec(key: str, row: dict[str, Any]) -> GpuSpec:
    fp8 = row.get("fp8_tflops")
    return GpuSpec(
        key=key,
        memory_gb=float(row["memory_gb"]),
        bf16_tflops=float(row["bf16_tflops"]),
        hbm_tbps=float(row["hbm_tbps"]),
        intra_kind=str(row["intra_kind"]),
        intra_gbyte_s=float(row["intra_gbyte_s"]),
        efficiency=float(row["efficiency"]),
        fp8_tflops=None if fp8 is None else float(fp8),
        source=str(row.get("source", "")),
        attention_fwd_eff=_optional(row.get("attention_fwd_eff")),
        attention_bwd_eff=_optional(row.get("attention_bwd_eff")),
        attention_fwd_eff_fa3=_optional(row.get("attention_fwd_eff_fa3")),
        attention_bwd_eff_fa3=_optional(row.get("attention_bwd_eff_fa3")),
    )


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)


@cache
def _load() -> tuple[dict[str, GpuSpec], dict[str, str]]:
    raw = json.loads((DATA / "gpus.json").read_text(encoding="utf-8"))
    table = {key: _spec(key, row) for key, row in raw["gpus"].items()}
    return table, dict(raw.get("aliases", {}))


def gpu_table() -> dict[str, GpuSpec]:
    """A copy of the default table keyed by GPU key (the Django layer may pass its own)."""
    return dict(_load()[0])


def gpu_spec(key: str, table: dict[str, GpuSpec] | None = None) -> GpuSpec:
    """The card for a key or one of its aliases; unknown keys raise a bilingual error."""
    specs, aliases = _load()
    specs = table if table is not None else specs
    found = specs.get(key) or specs.get(aliases.get(key, ""))
    if found is None:
        known = ", ".join(sorted(specs))
        raise problem(
            "gpu_unknown",
            f"Unknown GPU {key!r}; known GPUs: {known}.",
            f"未知的 GPU 型号 {key!r}；已知型号：{known}。",
        )
    return found
