"""The goals of TRAINING-MODEL.md §How it is judged, over the published runs (validation_cases)."""

from __future__ import annotations

import statistics

import pytest

from domain.trainmodel.validation import (
    compute_and_memory_results,
    failure_results,
    run_validation,
)


@pytest.fixture(scope="module")
def results():  # type: ignore[no-untyped-def]
    return {r.id: r for r in compute_and_memory_results()}


def test_mfu_median_error_is_within_10_percent_and_no_case_beyond_35(results):
    compute = [r for r in results.values() if r.kind == "compute"]
    assert len(compute) >= 30
    errors = [r.error for r in compute]
    assert statistics.median(errors) <= 0.10
    worst = max(compute, key=lambda r: r.error)
    assert worst.error <= 0.35, (worst.id, worst.predicted, worst.published)


def _series(results, prefix):  # type: ignore[no-untyped-def]
    rows = sorted(
        (r for r in results.values() if r.id.startswith(prefix) and r.kind == "compute"),
        key=lambda r: int(r.id.rsplit("_", 1)[1].removesuffix("gpu")),
    )
    assert len(rows) == 3
    return [r.predicted for r in rows]


@pytest.mark.parametrize("size", ["174.6B", "529.6B"])
def test_zero3_collapses_as_gpus_grow_at_fixed_batch(results, size):
    mfu = _series(results, f"megatron21_t2_zero3_{size}_")
    assert mfu[0] > mfu[1] > mfu[2]
    assert mfu[0] / mfu[2] >= 2.5  # published 144 -> 44 and 138 -> 48 TFLOP/s


@pytest.mark.parametrize("size", ["174.6B", "529.6B"])
def test_ptdp_stays_nearly_flat_on_the_same_gpus(results, size):
    mfu = _series(results, f"megatron21_t2_ptdp_{size}_")
    assert mfu[2] / mfu[0] >= 0.85  # published 153 -> 141 and 171 -> 159
    zero3_last = _series(results, f"megatron21_t2_zero3_{size}_")[2]
    assert mfu[2] > 2.0 * zero3_last  # published 3.2x (141 / 44) and 3.3x (159 / 48)


def test_runs_that_did_not_fit_do_not_fit_and_the_published_ones_do(results):
    memory = [r for r in results.values() if r.kind == "memory"]
    assert len(memory) == 9
    assert all(r.predicted is False for r in memory), [r.id for r in memory if r.predicted]
    assert "GB per GPU" in results["megatron21_t2_zero3_529.6B_560gpu_nofit"].note
    assert results["megatron21_t2_zero3_529.6B_640gpu"].predicted > 0  # the run moved here fits


def test_llama3_effective_training_time_is_above_90_percent_and_daly_cases_within_1_percent():
    rows = {r.id: r for r in failure_results()}
    assert rows["llama3_405B_effective_training_time"].predicted > 0.90
    for i in (1, 2, 3):
        assert rows[f"daly2006_case{i}"].error <= 0.01


def test_every_validation_goal_is_met():
    _, summary = run_validation()
    assert summary.goals_met, summary
