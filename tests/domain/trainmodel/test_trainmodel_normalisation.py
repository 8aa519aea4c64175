"""The normalised cases (domain/trainmodel/data/validation_cases.json) still say what the published
runs say: same hardware, architecture, layout and published figure (shared/docs/validation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.trainmodel.validation import validation_cases

ROOT = Path(__file__).resolve().parents[3]
CANDIDATES = [p / "shared/docs/validation/published-runs.json" for p in ROOT.parents[:3]]
PUBLISHED = next((p for p in CANDIDATES if p.exists()), None)


@pytest.fixture(scope="module")
def published():  # type: ignore[no-untyped-def]
    if PUBLISHED is None:
        pytest.skip("shared/docs/validation/published-runs.json is not next to the repository")
    return {c["id"]: c for c in json.loads(PUBLISHED.read_text(encoding="utf-8"))["cases"]}


def _source_id(case_id: str) -> str:
    for suffix in ("_sp_no_recompute", "_selective_no_sp"):
        case_id = case_id.removesuffix(suffix)
    return case_id.replace("_560gpu_nofit", "_640gpu")


def test_every_case_names_its_source_and_matches_the_published_run(published):
    for entry in validation_cases():
        if "tokens_per_s_per_gpu" in entry["published"]:
            continue  # the modern set: its own test below, sources outside published-runs.json
        src = published[_source_id(entry["id"])]
        case = entry["case"]
        assert entry["source"] and entry["normalisation"]
        assert case["model"]["hidden"] == src["model"]["hidden"]
        assert case["model"]["heads"] == src["model"]["heads"]
        if entry["kind"] != "compute":
            continue
        par = src["parallel"]
        for key in ("tp", "pp", "dp"):
            assert case["parallel"][key] == par[key], (entry["id"], key)
        if entry["id"].startswith("megatron21"):
            tflops = src["measured"]["tflops_per_gpu"]
            assert entry["published"]["mfu"] == pytest.approx(0.75 * tflops / 312, abs=1e-4)
            assert case["gpus"] == src["hardware"]["gpus"]
        elif entry["id"].startswith("llama3"):
            assert entry["published"]["mfu"] == src["measured"]["mfu_bf16"]
        elif entry["id"] == "korthikanti22_530B_dp8":
            assert entry["published"]["mfu"] == src["measured"]["mfu_dp8"]
        else:
            assert entry["published"]["mfu"] == src["measured"]["mfu"]


def test_every_modern_case_names_its_table_row_and_uses_all_its_gpus():
    modern = [e for e in validation_cases() if "tokens_per_s_per_gpu" in e["published"]]
    assert len(modern) >= 20
    for entry in modern:
        case, par = entry["case"], entry["case"]["parallel"]
        assert entry["source"] and entry["normalisation"] and "verified" in entry
        assert "row" in entry["source"] or "arXiv" in entry["source"], entry["id"]
        assert par["tp"] * par["pp"] * par["dp"] * par["cp"] == case["gpus"], entry["id"]
        assert case.get("precision") in ("bf16", "fp8"), entry["id"]
        assert entry["published"]["tokens_per_s_per_gpu"] > 0
