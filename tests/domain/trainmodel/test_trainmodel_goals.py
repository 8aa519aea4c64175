"""The goals of TRAINING-MODEL.md §How it is judged, over the published runs (validation_cases)."""

from __future__ import annotations

import statistics

import pytest

from domain.trainmodel.validation import (
    compute_and_memory_results,
    failure_results,
    run_validation,
    validation_cases,
)


@pytest.fixture(scope="module")
def results():  # type: ignore[no-untyped-def]
    return {r.id: r for r in compute_and_memory_results()}


def _modern(r) -> bool:  # type: ignore[no-untyped-def]
    return r.id in MODERN_IDS


MODERN_IDS = {
    e["id"] for e in validation_cases() if "tokens_per_s_per_gpu" in e["published"]
}  # fmt: skip


def test_mfu_median_error_is_within_10_percent_and_no_case_beyond_35(results):
    compute = [r for r in results.values() if r.kind == "compute"]
    assert len(compute) >= 45
    errors = [r.error for r in compute]
    assert statistics.median(errors) <= 0.10
    first_set = [r for r in compute if not _modern(r)]
    worst = max(first_set, key=lambda r: r.error)
    assert worst.error <= 0.35, (worst.id, worst.predicted, worst.published)


def test_the_modern_set_holds_fp8_and_moe_runs_with_their_sources(results):
    modern = [r for r in results.values() if _modern(r)]
    assert len(modern) >= 20
    cases = {e["id"]: e for e in validation_cases()}
    assert sum(cases[r.id]["case"].get("precision") == "fp8" for r in modern) >= 15
    assert sum("moe" in cases[r.id]["case"]["model"] for r in modern) >= 8
    assert all(cases[r.id]["source"] and "verified" in cases[r.id] for r in modern)


def test_modern_moe_runs_the_model_can_express_are_within_35_percent(results):
    moe = [
        r for r in results.values()
        if _modern(r) and r.kind == "compute" and ("qwen3_235b" in r.id or "deepseek" in r.id)
    ]  # fmt: skip
    assert len(moe) == 4
    assert all(r.error <= 0.35 for r in moe), [(r.id, r.error) for r in moe]


def test_no_modern_case_is_refused_and_the_small_moe_runs_are_known_misses(results):
    """v4 answers every modern run; the MoE runs of hidden 2048 / 2880 are printed as known
    misses (validation.KNOWN_GAPS) and counted in every median, not refused."""
    assert not [r for r in results.values() if r.kind == "refused"]
    known = {r.id for r in results.values() if "known gap" in r.note}
    assert known == {
        "bridge2511_qwen3_30b_a3b_16gpu_fp8",
        "bridge2602_qwen3_30b_a3b_16gpu_fp8_gbs1024",
        "bridge2511_gpt_oss_120b_64gpu_bf16",
        "bridge2602_gpt_oss_120b_64gpu_bf16_gbs1280",
    }
    assert all(results[i].kind == "compute" and results[i].error > 0.35 for i in known)


def test_no_modern_run_is_silently_off_by_more_than_35_percent(results):
    modern = [
        r
        for r in results.values()
        if _modern(r) and r.kind == "compute" and "known gap" not in r.note
    ]
    assert all(r.error <= 0.35 for r in modern), [(r.id, round(r.error, 3)) for r in modern]


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


def test_every_validation_goal_is_met_but_the_small_moe_misses_which_are_counted():
    """A case beyond the per-case goal is a miss even when a known gap explains it: the
    summary counts it and goals_met stays False while any is left; every other goal holds and
    no case beyond the small-hidden MoE runs misses."""
    from domain.trainmodel.validation import KNOWN_GAPS

    results, summary = run_validation()
    missed = {r.id for r in results if r.kind == "compute" and not r.ok}
    assert missed <= set(KNOWN_GAPS), missed - set(KNOWN_GAPS)
    assert summary.beyond_goal == len(missed) == summary.compute_cases - summary.compute_correct
    assert summary.goals_met is (not missed)
    assert summary.mfu_median_error <= 0.10
    assert summary.memory_correct == summary.memory_cases
    assert summary.failure_correct == summary.failure_cases
    assert summary.bandwidth_correct == summary.bandwidth_cases
    assert summary.scaling_correct == summary.scaling_series


def test_the_fall_of_mfu_in_published_strong_scaling_series_is_predicted_within_006():
    from domain.trainmodel.validation import STRONG_SCALING_GOAL, strong_scaling

    results, summary = run_validation()
    series = strong_scaling(results)
    assert len(series) == summary.scaling_series == 5
    for s in series:
        assert len(s.gpus) >= 2 and s.gpus == tuple(sorted(s.gpus)), s
        assert abs(s.predicted_fall - s.published_fall) <= STRONG_SCALING_GOAL, s
        # the direction too: more GPUs at one batch never predicted faster per GPU
        assert s.predicted_fall > 0, s
