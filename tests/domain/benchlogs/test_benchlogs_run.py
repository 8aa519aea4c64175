"""Concurrent pairs: aggregate, fairness and the pooled tail the cost model uses."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytest import approx

from domain.benchlogs import BenchResult
from domain.benchlogs.stats import RunSummary, summarise_run
from domain.messages import Message


def _pair(series: tuple[float, ...], **fields: object) -> BenchResult:
    throughput = sum(series) / len(series) if series else fields.pop("throughput_gbps", None)
    return BenchResult(
        tool="iperf3",
        test="tcp",
        throughput_gbps=throughput,  # type: ignore[arg-type]
        interval_gbps=series,
        **fields,  # type: ignore[arg-type]
    )


class TestThreePairs:
    @pytest.fixture
    def summary(self) -> RunSummary:
        pairs = [_pair((10.0,) * 3), _pair((8.0,) * 3), _pair((9.0,) * 3)]
        # Untimed pairs: one set only because the run is declared simultaneous.
        return summarise_run(pairs, line_rate_gbps=10.0, declared_together=True)

    def test_aggregate_and_extremes(self, summary: RunSummary) -> None:
        assert summary.pairs == 3 and summary.excluded == 0
        assert summary.aggregate_gbps == approx(27.0)
        assert (summary.min_pair_gbps, summary.max_pair_gbps) == (8.0, 10.0)

    def test_jain_index(self, summary: RunSummary) -> None:
        assert summary.jain_index == approx(27.0**2 / (3 * (100 + 64 + 81)))

    def test_aggregate_over_pairs_times_line_rate(self, summary: RunSummary) -> None:
        assert summary.aggregate_efficiency == approx(0.9)

    def test_pooled_tail(self, summary: RunSummary) -> None:
        # pooled: 8 8 8 9 9 9 10 10 10 → P5 at rank 0.4 = 8, P50 at rank 4 = 9
        assert summary.tail_p5_gbps == 8.0
        assert summary.p50_gbps == 9.0
        assert summary.measured_gbps == 8.0
        assert summary.spread_gbps == (8.0, 9.0)
        assert summary.measured_kind == "link"
        assert [w.code for w in summary.warnings] == ["evidence.declared_set"]


def test_the_tail_comes_from_intervals_not_pair_means() -> None:
    steady = _pair((10.0,) * 19 + (10.0,))
    bursty = _pair((12.0,) * 18 + (1.0, 1.0))
    summary = summarise_run([steady, bursty], line_rate_gbps=12.0)
    assert (summary.min_pair_gbps, summary.max_pair_gbps) == (10.0, approx(10.9))
    assert summary.tail_p5_gbps == approx(1.0 + 0.95 * 9.0)  # rank 1.95 of 40 pooled values


def test_failed_pairs_are_excluded_and_said() -> None:
    failed = _pair((), throughput_gbps=None, error=Message("x", "failed", "失败"))
    summary = summarise_run([_pair((9.0, 9.0)), failed], line_rate_gbps=10.0)
    assert (summary.pairs, summary.excluded) == (1, 1)
    assert [w.code for w in summary.warnings] == ["run_excluded"]


def test_non_overlapping_windows_are_not_concurrent() -> None:
    first = _pair((9.0,), start_time_s=1000.0, duration_s=10.0)
    later = _pair((9.0,), start_time_s=1100.0, duration_s=10.0)
    summary = summarise_run([first, later], line_rate_gbps=10.0)
    assert "run_not_concurrent" in [w.code for w in summary.warnings]
    overlapping = _pair((9.0,), start_time_s=1005.0, duration_s=10.0)
    assert summarise_run([first, overlapping], line_rate_gbps=10.0).warnings == ()


def test_perftest_pairs_count_once_each(parse: Callable[[str], BenchResult]) -> None:
    result = parse("ib_write_bw/cx3_ib_a_MBsec.txt")
    summary = summarise_run([result, result], line_rate_gbps=32.0)
    assert summary.tail_p5_gbps == approx(result.throughput_gbps)
    assert "run_without_intervals" in [w.code for w in summary.warnings]


def test_nccl_results_make_a_collective_figure(parse: Callable[[str], BenchResult]) -> None:
    summary = summarise_run([parse("nccl-tests/pkb_nccl_output.txt")], line_rate_gbps=None)
    assert summary.measured_kind == "collective"
    assert summary.aggregate_efficiency is None


def test_mixing_link_and_collective_is_flagged(parse: Callable[[str], BenchResult]) -> None:
    results = [parse("nccl-tests/pkb_nccl_output.txt"), _pair((5.0, 5.0))]
    summary = summarise_run(results, line_rate_gbps=10.0)
    assert "run_mixed_kinds" in [w.code for w in summary.warnings]
    assert summary.measured_kind == "link"


def test_empty_run() -> None:
    summary = summarise_run([], line_rate_gbps=10.0)
    assert (summary.pairs, summary.aggregate_gbps, summary.tail_p5_gbps) == (0, None, None)
