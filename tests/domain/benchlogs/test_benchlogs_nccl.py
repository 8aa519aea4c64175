"""nccl-tests corpus files parse to the figures listed in corpus SOURCES.md.

nccl-tests GB/s is 10^9 bytes/s, so Gbit/s = GB/s × 8.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchResult, NcclRow, parse_stream

Parse = Callable[[str], BenchResult]


def _nccl(result: BenchResult, index: int) -> tuple[int, NcclRow]:
    row = result.sizes[index]
    assert row.nccl is not None
    return row.bytes, row.nccl


def _codes(result: BenchResult) -> list[str]:
    return [w.code for w in result.warnings]


class TestPkbAllReduce:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("nccl-tests/pkb_nccl_output.txt")

    def test_collective_inferred_from_columns(self, result: BenchResult) -> None:
        assert (result.tool, result.collective, result.test) == (
            "all_reduce_perf",
            "all_reduce",
            "nccl",
        )
        assert "nccl_collective_inferred" in _codes(result)

    def test_two_ranks_on_two_hosts(self, result: BenchResult) -> None:
        header = dict(result.header)
        assert (header["nThread"], header["nGpus"]) == ("1", "1")
        assert header["hosts"] == "pkb-2b6a393d-2,pkb-2b6a393d-3"
        assert result.ranks == 2

    def test_busbw_equals_algbw_for_two_ranks(self, result: BenchResult) -> None:
        for row in result.sizes:
            assert row.nccl is not None
            assert row.nccl.out_of_place.algbw_gbps == row.nccl.out_of_place.busbw_gbps
            assert row.nccl.in_place.algbw_gbps == row.nccl.in_place.busbw_gbps

    def test_eleven_sizes_float_sum_root_minus_one(self, result: BenchResult) -> None:
        assert [row.bytes for row in result.sizes] == [2**n for n in range(20, 31)]
        for _, row in (_nccl(result, i) for i in range(11)):
            assert (row.dtype, row.redop, row.root) == ("float", "sum", -1)
            assert row.out_of_place.wrong is None and row.in_place.wrong is None

    def test_last_row(self, result: BenchResult) -> None:
        size, row = _nccl(result, -1)
        assert size == 1073741824
        oop, inp = row.out_of_place, row.in_place
        assert (oop.time_us, oop.algbw_gbps, oop.busbw_gbps) == (1752724, approx(4.88), 4.88)
        assert (inp.time_us, inp.algbw_gbps, inp.busbw_gbps) == (1763386, approx(4.88), 4.88)

    def test_largest_busbw(self, result: BenchResult) -> None:
        best = max(result.sizes, key=lambda row: row.nccl.out_of_place.busbw_gbps)  # type: ignore[union-attr]
        assert best.bytes == 268435456
        assert best.nccl is not None and best.nccl.out_of_place.busbw_gbps == approx(0.63 * 8)

    def test_largest_size_busbw_is_the_collective_throughput(self, result: BenchResult) -> None:
        # Last row: 0.61 out-of-place and in-place; the printed average is kept aside.
        assert result.throughput_gbps == approx(0.61 * 8, rel=1e-12)
        assert result.avg_busbw_gbps == approx(0.565546 * 8, rel=1e-12)
        assert result.measured_kind == "collective"

    def test_validation_ok(self, result: BenchResult) -> None:
        assert result.error is None and not result.truncated


class TestSuperbenchAllReduce:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("nccl-tests/superbench_nccl_allreduce.log")

    def test_eight_ranks_on_one_host(self, result: BenchResult) -> None:
        assert result.ranks == 8
        assert result.collective == "all_reduce"

    def test_busbw_factor_is_1_75(self, result: BenchResult) -> None:
        _, row = _nccl(result, -1)
        assert row.out_of_place.busbw_gbps / row.out_of_place.algbw_gbps == approx(1.75, abs=1e-3)

    def test_info_line_is_skipped_and_34_rows_read(self, result: BenchResult) -> None:
        assert len(result.sizes) == 34
        assert [row.bytes for row in result.sizes[:3]] == [0, 0, 4]
        assert result.sizes[-1].bytes == 8589934592
        assert "skipped_lines" not in _codes(result)

    def test_error_column_is_na(self, result: BenchResult) -> None:
        assert all(row.nccl and row.nccl.out_of_place.wrong is None for row in result.sizes)

    def test_last_row(self, result: BenchResult) -> None:
        _, row = _nccl(result, -1)
        oop, inp = row.out_of_place, row.in_place
        assert (oop.time_us, oop.algbw_gbps, oop.busbw_gbps) == (63896, 134.44 * 8, 235.26 * 8)
        assert (inp.time_us, inp.algbw_gbps, inp.busbw_gbps) == (63959, 134.30 * 8, 235.03 * 8)

    def test_largest_busbw(self, result: BenchResult) -> None:
        assert max(row.bw_peak_gbps or 0 for row in result.sizes) == approx(235.26 * 8)

    def test_average_is_dominated_by_small_sizes(self, result: BenchResult) -> None:
        # The headline is the 8 GiB row, (235.26 + 235.03) / 2 GB/s; the average is secondary.
        assert result.throughput_gbps == approx(235.26 * 8, rel=1e-12)  # out-of-place
        assert result.avg_busbw_gbps == approx(68.4048 * 8, rel=1e-12)
        assert "nccl_average_small_sizes" in _codes(result)

    def test_average_is_the_mean_of_all_68_busbw_values(self, result: BenchResult) -> None:
        values = [
            timing.busbw_gbps / 8
            for row in result.sizes
            if row.nccl
            for timing in (row.nccl.out_of_place, row.nccl.in_place)
        ]
        assert len(values) == 68
        assert sum(values) / 68 == approx(68.4044, abs=1e-4)


class TestSuperbenchAllGather:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("nccl-tests/superbench_nccl_allgather.log")

    def test_all_gather_without_redop_column(self, result: BenchResult) -> None:
        assert result.collective == "all_gather"
        assert all(row.nccl and row.nccl.redop is None for row in result.sizes)

    def test_factor_0_875(self, result: BenchResult) -> None:
        _, row = _nccl(result, -1)
        assert row.out_of_place.algbw_gbps * 0.875 == approx(row.out_of_place.busbw_gbps, rel=1e-4)
        assert result.ranks == 8

    def test_34_rows_first_five_size_zero(self, result: BenchResult) -> None:
        assert len(result.sizes) == 34
        assert [row.bytes for row in result.sizes[:5]] == [0] * 5
        size, row = _nccl(result, 5)
        assert (size, row.count) == (32, 1)

    def test_last_row(self, result: BenchResult) -> None:
        _, row = _nccl(result, -1)
        oop, inp = row.out_of_place, row.in_place
        assert (oop.time_us, oop.algbw_gbps, oop.busbw_gbps) == (33646, 255.31 * 8, 223.39 * 8)
        assert (inp.time_us, inp.algbw_gbps, inp.busbw_gbps) == (32669, 262.94 * 8, 230.07 * 8)

    def test_avg_bus_bandwidth(self, result: BenchResult) -> None:
        assert result.avg_busbw_gbps == approx(58.2651 * 8, rel=1e-12)
        assert result.throughput_gbps == approx(223.39 * 8, rel=1e-12)  # out-of-place


def test_the_file_name_names_the_collective(corpus: Callable[[str], Path]) -> None:
    with corpus("nccl-tests/superbench_nccl_allgather.log").open("rb") as stream:
        result = parse_stream(stream, "superbench_nccl_allgather.log")
    assert result.tool == "all_gather_perf"
    assert "nccl_collective_inferred" not in _codes(result)
