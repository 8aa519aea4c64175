"""Workload presets offered on the create page (COST-MODEL.md workload inputs)."""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    "pretrain-7b": {
        "name": "7B pre-training, 8 nodes",
        "params_b": 7.0, "tokens_per_step": 4_000_000, "strategy": "ddp", "overlap": 0.5,
        "nodes": 8, "train_tokens": 1.0e12,
    },
    "pretrain-13b": {
        "name": "13B pre-training, 16 nodes",
        "params_b": 13.0, "tokens_per_step": 4_000_000, "strategy": "zero1", "overlap": 0.5,
        "nodes": 16, "train_tokens": 1.0e12,
    },
    "pretrain-70b": {
        "name": "70B pre-training, 32 nodes (FSDP)",
        "params_b": 70.0, "tokens_per_step": 8_000_000, "strategy": "fsdp", "overlap": 0.6,
        "nodes": 32, "train_tokens": 2.0e12,
    },
    "finetune-1node": {
        "name": "7B fine-tune, one node",
        "params_b": 7.0, "tokens_per_step": 500_000, "strategy": "fsdp", "overlap": 0.5,
        "nodes": 1, "train_tokens": 2.0e9,
    },
}  # fmt: skip


def preset_data(key: str) -> dict[str, Any]:
    data = {"flops_per_token_factor": 6.0, "grad_bytes": 2.0, "mfu": None, "preset": key}
    data.update(PRESETS[key])
    return data
