"""Workload presets (data/presets.json): architecture numbers with their sources."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from domain.messages import Message
from domain.trainmodel.cases import model_from, parallel_from
from domain.trainmodel.errors import problem
from domain.trainmodel.gpus import DATA
from domain.trainmodel.inputs import ModelSpec, ParallelRequest


@dataclass(frozen=True, slots=True)
class Preset:
    key: str
    label: Message
    model: ModelSpec
    parallel: ParallelRequest
    train_tokens: float
    source: str
    raw: dict[str, Any]


@cache
def presets() -> dict[str, Preset]:
    raw = json.loads((DATA / "presets.json").read_text(encoding="utf-8"))["presets"]
    return {
        key: Preset(
            key=key,
            label=Message(f"preset_{key}", row["label_en"], row["label_zh"]),
            model=model_from(row["model"], row.get("precision")),
            parallel=parallel_from(row["parallel"]),
            train_tokens=float(row["train_tokens"]),
            source=row["source"],
            raw=row,
        )
        for key, row in raw.items()
    }


def preset(key: str) -> Preset:
    found = presets().get(key)
    if found is None:
        known = ", ".join(sorted(presets()))
        raise problem(
            "preset_unknown",
            f"Unknown workload preset {key!r}; known presets: {known}.",
            f"未知的工作负载预设 {key!r}；已有预设：{known}。",
        )
    return found
