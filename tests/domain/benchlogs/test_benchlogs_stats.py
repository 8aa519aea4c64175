"""Derived figures with hand-worked numbers."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from pytest import approx

from domain.benchlogs import BenchResult
from domain.benchlogs.stats import (
    coefficient_of_variation,
    jain_index,
    line_rate_efficiency,
    longest_dip,
    percentile,
    series_stability,
    stability,
)


def _result(**fields: object) -> BenchResult:
    return BenchResult(tool="iperf3", test="tcp", **fields)  # type: ignore[arg-type]


class TestPercentile:
    def test_linear_interpolation_between_ranks(self) -> None:
        values = [5.0, 1.0, 4.0, 2.0, 3.0]
        assert percentile(values, 0.05) == approx(1.2)  # rank 0.2 between 1 and 2
        assert percentile(values, 0.5) == 3.0
        assert percentile(values, 0.95) == approx(4.8)

    def test_extremes_and_single_value(self) -> None:
        assert percentile([7.0, 9.0], 0.0) == 7.0
        assert percentile([7.0, 9.0], 1.0) == 9.0
        assert percentile([4.0], 0.05) == 4.0

    def test_nan_is_ignored_and_empty_is_none(self) -> None:
        assert percentile([math.nan, 2.0, 4.0], 0.5) == 3.0
        assert percentile([], 0.5) is None


class TestCoefficientOfVariation:
    def test_population_standard_deviation_over_mean(self) -> None:
        assert coefficient_of_variation([9.0, 11.0]) == approx(0.1)
        assert coefficient_of_variation([9.3, 10.7, 9.3, 10.7]) == approx(0.07)

    def test_flat_series(self) -> None:
        assert coefficient_of_variation([10.0, 10.0, 10.0]) == 0.0

    def test_undefined_cases(self) -> None:
        assert coefficient_of_variation([]) is None
        assert coefficient_of_variation([0.0, 0.0]) is None


class TestDips:
    SERIES = (10.0, 10.0, 8.0, 8.5, 10.0, 7.0, 10.0)

    def test_longest_run_below_90_percent_of_the_median(self) -> None:
        figures = series_stability(self.SERIES)
        assert figures is not None
        assert figures.p50_gbps == 10.0
        assert (figures.longest_dip_intervals, figures.longest_dip_s) == (2, 2.0)

    def test_dip_seconds_follow_interval_lengths(self) -> None:
        starts = [2.0 * n for n in range(7)]
        ends = [2.0 * n + 2 for n in range(7)]
        assert longest_dip(self.SERIES, starts, ends, 9.0) == (4.0, 2)

    def test_no_dip(self) -> None:
        assert longest_dip([10.0, 10.0], [], [], 9.0) == (0.0, 0)


class TestStability:
    def test_figures_of_a_series(self) -> None:
        figures = series_stability([8.0, 9.0, 10.0, 11.0, 12.0])
        assert figures is not None
        assert (figures.intervals, figures.mean_gbps) == (5, 10.0)
        assert (figures.min_gbps, figures.max_gbps) == (8.0, 12.0)
        assert figures.cv == approx(math.sqrt(2) / 10)
        assert (figures.p5_gbps, figures.p50_gbps, figures.p95_gbps) == (
            approx(8.2),
            10.0,
            approx(11.8),
        )

    def test_no_intervals(self) -> None:
        assert stability(_result()) is None

    def test_corpus_p4_is_unstable(self, parse: Callable[[str], BenchResult]) -> None:
        figures = stability(parse("iperf3-json/local_3.12_tcp_P4.json"))
        assert figures is not None and figures.cv is not None and figures.cv > 0.15


class TestJain:
    def test_equal_shares_score_one(self) -> None:
        assert jain_index([5.0, 5.0, 5.0, 5.0]) == approx(1.0)

    def test_one_taking_all_scores_one_over_n(self) -> None:
        assert jain_index([1.0, 0.0, 0.0, 0.0]) == approx(0.25)

    def test_two_unequal(self) -> None:
        assert jain_index([1.0, 2.0]) == approx(9 / 10)

    def test_undefined(self) -> None:
        assert jain_index([]) is None
        assert jain_index([0.0, 0.0]) is None


class TestEfficiency:
    def test_throughput_over_line_rate(self) -> None:
        assert line_rate_efficiency(_result(throughput_gbps=90.0), 100.0) == approx(0.9)

    def test_bidirectional_counts_both_directions(self) -> None:
        result = _result(throughput_gbps=180.0, direction="bidir")
        assert line_rate_efficiency(result, 100.0) == approx(0.9)

    @pytest.mark.parametrize("line_rate", [None, 0.0, -1.0])
    def test_no_line_rate(self, line_rate: float | None) -> None:
        assert line_rate_efficiency(_result(throughput_gbps=90.0), line_rate) is None

    def test_no_throughput(self) -> None:
        assert line_rate_efficiency(_result(), 100.0) is None

    def test_corpus_qdr_against_its_data_rate(self, parse: Callable[[str], BenchResult]) -> None:
        result = parse("ib_write_bw/cx3_ib_a_MBsec.txt")
        assert line_rate_efficiency(result, 32.0) == approx(3665.25 * 0.008388608 / 32)
