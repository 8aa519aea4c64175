"""perftest corpus files parse to the figures listed in corpus SOURCES.md.

``MB/sec`` in perftest is 2^20 bytes/s (FORMATS.md §2.3), so Gbit/s = MB/sec × 0.008388608.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchResult, SizeRow, parse_all

Parse = Callable[[str], BenchResult]
MIB_TO_GBPS = 1024 * 1024 * 8 / 1e9
SIZES = tuple(2**n for n in range(1, 24))


def gbps(mib_per_s: float) -> object:
    return approx(mib_per_s * MIB_TO_GBPS, rel=1e-12)


def _row(result: BenchResult, size: int) -> SizeRow:
    return next(row for row in result.sizes if row.bytes == size)


def _header(result: BenchResult) -> dict[str, str]:
    return dict(result.header)


def _codes(result: BenchResult) -> list[str]:
    return [w.code for w in result.warnings]


def _all(corpus: Callable[[str], Path], name: str) -> tuple[BenchResult, ...]:
    with corpus(name).open("rb") as stream:
        return parse_all(stream, name)


class TestSuperbench8M:
    NAME = "ib_write_bw/superbench_ib_loopback_8M_size.log"

    def test_two_reports_client_first(self, corpus: Callable[[str], Path]) -> None:
        client, server = _all(corpus, self.NAME)
        assert (client.role, server.role) == ("client", "server")
        assert _header(client)["TX depth"] == "128"
        assert "TX depth" not in _header(server)

    def test_both_blocks_share_the_setup(self, corpus: Callable[[str], Path]) -> None:
        for result in _all(corpus, self.NAME):
            assert (result.tool, result.test) == ("ib_write_bw", "rdma_bw")
            assert (result.device, result.streams, result.link_type) == ("ib0", 1, "IB")
            assert _header(result)["Mtu"] == "4096[B]"
            assert _header(result)["CQ Moderation"] == "1"
            assert result.fabric == "ib"

    def test_result_row_in_both_blocks(self, corpus: Callable[[str], Path]) -> None:
        for result in _all(corpus, self.NAME):
            (row,) = result.sizes
            assert (row.bytes, row.iterations) == (8388608, 20000)
            assert row.bw_peak_gbps == gbps(24056.74)
            assert row.bw_avg_gbps == gbps(24056.72)
            assert row.msg_rate_mpps == 0.003007

    def test_hdr_200g_rate(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert result.throughput_gbps == approx(201.80, abs=0.005)
        assert "perftest_client_preferred" in _codes(result)
        assert not result.truncated


class TestSuperbenchAllSizesInterleaved:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_write_bw/superbench_ib_loopback_all_sizes.log")

    def test_23_rows_of_2000_iterations(self, result: BenchResult) -> None:
        assert tuple(row.bytes for row in result.sizes) == SIZES
        assert {row.iterations for row in result.sizes} == {2000}

    def test_selected_rows(self, result: BenchResult) -> None:
        assert _row(result, 2).bw_avg_gbps == gbps(5.30)
        assert _row(result, 4194304).bw_avg_gbps == gbps(23277.91)
        top = _row(result, 8388608)
        assert (top.bw_peak_gbps, top.bw_avg_gbps) == (gbps(23240.68), gbps(23240.68))
        assert top.msg_rate_mpps == 0.002905

    def test_highest_average_is_the_4m_row(self, result: BenchResult) -> None:
        best = max(result.sizes, key=lambda row: row.bw_avg_gbps or 0)
        assert best.bytes == 4194304

    def test_repeated_row_is_counted_once(self, result: BenchResult) -> None:
        assert len(result.sizes) == 23
        assert "perftest_interleaved" in _codes(result)

    def test_header_fields(self, result: BenchResult) -> None:
        assert result.link_type == "IB"
        assert _header(result)["CQ Moderation"] == "100"


class TestCx3WriteBw:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_write_bw/cx3_ib_a_MBsec.txt")

    def test_header_despite_the_wrapped_command(self, result: BenchResult) -> None:
        assert (result.device, result.link_type) == ("mlx4_0", "IB")
        header = _header(result)
        assert (header["Mtu"], header["CQ Moderation"], header["TX depth"]) == (
            "2048[B]",
            "100",
            "128",
        )

    def test_23_rows_of_20000(self, result: BenchResult) -> None:
        assert tuple(row.bytes for row in result.sizes) == SIZES
        assert {row.iterations for row in result.sizes} == {20000}

    def test_rows(self, result: BenchResult) -> None:
        first = _row(result, 2)
        assert (first.bw_peak_gbps, first.bw_avg_gbps) == (gbps(9.88), gbps(9.78))
        assert first.msg_rate_mpps == 5.128076
        assert _row(result, 65536).bw_avg_gbps == gbps(3636.20)
        assert _row(result, 1048576).bw_avg_gbps == gbps(3666.12)
        top = _row(result, 8388608)
        assert (top.bw_peak_gbps, top.bw_avg_gbps) == (gbps(3665.51), gbps(3665.25))
        assert top.msg_rate_mpps == 0.000458

    def test_highest_average_is_1m(self, result: BenchResult) -> None:
        assert max(result.sizes, key=lambda row: row.bw_avg_gbps or 0).bytes == 1048576

    def test_throughput_is_qdr_data_rate(self, result: BenchResult) -> None:
        assert result.throughput_gbps == approx(30.75, abs=0.005)


class TestCx3ReadBw:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_read_bw/cx3_ib_a_cpufreq_warning.txt")

    def test_read_test_with_outstanding_reads(self, result: BenchResult) -> None:
        assert result.tool == "ib_read_bw"
        assert _header(result)["Outstand reads"] == "16"

    def test_cpu_frequency_line_does_not_end_the_table(self, result: BenchResult) -> None:
        assert tuple(row.bytes for row in result.sizes) == SIZES
        assert "perftest_cpu_frequency" in _codes(result)
        assert "skipped_lines" not in _codes(result)

    def test_rows(self, result: BenchResult) -> None:
        assert _row(result, 2).bw_avg_gbps == gbps(8.68)
        top = _row(result, 8388608)
        assert (top.bw_peak_gbps, top.bw_avg_gbps) == (gbps(3667.13), gbps(3666.44))
        assert top.msg_rate_mpps == 0.000458


class TestCx3SendBw:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_send_bw/cx3_ib_a_MBsec.txt")

    def test_send_test_23_rows(self, result: BenchResult) -> None:
        assert result.tool == "ib_send_bw"
        assert tuple(row.bytes for row in result.sizes) == SIZES

    def test_rows(self, result: BenchResult) -> None:
        first = _row(result, 2)
        assert (first.bw_peak_gbps, first.bw_avg_gbps) == (gbps(10.17), gbps(9.90))
        assert first.msg_rate_mpps == 5.189724
        top = _row(result, 8388608)
        assert (top.bw_peak_gbps, top.bw_avg_gbps) == (gbps(3662.23), gbps(3661.76))
        assert top.msg_rate_mpps == 0.000458


class TestCx3WriteLat:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_write_lat/cx3_ib_a_percentiles.txt")

    def test_latency_test_header(self, result: BenchResult) -> None:
        assert (result.tool, result.test) == ("ib_write_lat", "rdma_lat")
        assert _header(result)["TX depth"] == "1"
        assert _header(result)["Max inline data"] == "220[B]"

    def test_23_rows_with_trailing_spaces(self, result: BenchResult) -> None:
        assert tuple(row.bytes for row in result.sizes) == SIZES
        assert {row.iterations for row in result.sizes} == {20000}

    def test_row_2(self, result: BenchResult) -> None:
        stats = _row(result, 2).latency
        assert stats is not None
        assert (stats.min_us, stats.max_us, stats.typical_us) == (0.88, 6.84, 0.98)
        assert (stats.avg_us, stats.stdev_us) == (1.03, 0.20)
        assert (stats.p99_us, stats.p999_us) == (1.21, 5.42)
        assert result.latency == stats

    def test_row_64k(self, result: BenchResult) -> None:
        stats = _row(result, 65536).latency
        assert stats is not None
        assert (stats.avg_us, stats.p99_us, stats.p999_us) == (20.04, 23.79, 25.30)

    def test_row_8m(self, result: BenchResult) -> None:
        stats = _row(result, 8388608).latency
        assert stats is not None
        assert (stats.min_us, stats.max_us, stats.typical_us) == (2296.01, 2345.48, 2302.01)
        assert (stats.avg_us, stats.stdev_us) == (2304.98, 6.43)
        assert (stats.p99_us, stats.p999_us) == (2327.01, 2335.48)


class TestCx3ReadLat:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_read_lat/cx3_ib_a_percentiles.txt")

    def test_read_latency_23_rows(self, result: BenchResult) -> None:
        assert result.tool == "ib_read_lat"
        assert len(result.sizes) == 23

    def test_row_2(self, result: BenchResult) -> None:
        stats = _row(result, 2).latency
        assert stats is not None
        assert (stats.min_us, stats.max_us, stats.typical_us, stats.avg_us) == (
            1.91,
            13.87,
            1.99,
            2.01,
        )
        assert (stats.stdev_us, stats.p99_us, stats.p999_us) == (0.32, 2.13, 9.95)

    def test_row_8m(self, result: BenchResult) -> None:
        stats = _row(result, 8388608).latency
        assert stats is not None
        assert (stats.min_us, stats.max_us, stats.typical_us, stats.avg_us) == (
            2177.92,
            2240.08,
            2184.09,
            2184.33,
        )
        assert (stats.stdev_us, stats.p99_us, stats.p999_us) == (2.24, 2192.22, 2202.42)


class TestDgxSparkBw:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_write_bw/dgx_spark_roce_q4_gbits.txt")

    def test_forced_ib_link_on_a_roce_device(self, result: BenchResult) -> None:
        assert (result.device, result.link_type) == ("rocep1s0f1", "IB")
        assert result.fabric == "roce"
        assert "perftest_link_type_overridden" in _codes(result)

    def test_rdma_cm_and_mtu(self, result: BenchResult) -> None:
        header = _header(result)
        assert (header["rdma_cm QPs"], header["Data ex. method"]) == ("ON", "rdma_cm")
        assert header["Mtu"] == "1024[B]"

    def test_four_qps(self, result: BenchResult) -> None:
        assert result.streams == 4

    def test_gbits_row_needs_no_conversion(self, result: BenchResult) -> None:
        (row,) = result.sizes
        assert (row.bytes, row.iterations) == (65536, 20000)
        assert (row.bw_peak_gbps, row.bw_avg_gbps, row.msg_rate_mpps) == (111.72, 111.71, 0.213070)
        assert result.throughput_gbps == 111.71


class TestDgxSparkLat:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_write_lat/dgx_spark_roce_single.txt")

    def test_single_row(self, result: BenchResult) -> None:
        (row,) = result.sizes
        assert (row.bytes, row.iterations) == (2, 1000)

    def test_statistics(self, result: BenchResult) -> None:
        stats = result.latency
        assert stats is not None
        assert (stats.min_us, stats.max_us, stats.typical_us) == (1.42, 1.93, 1.47)
        assert (stats.avg_us, stats.stdev_us, stats.p99_us) == (1.47, 0.00, 1.57)
        assert stats.p999_us == 1.93

    def test_p999_equals_max_with_1000_samples(self, result: BenchResult) -> None:
        assert result.latency is not None
        assert result.latency.p999_us == result.latency.max_us


class TestIssue273PostList:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse("ib_write_bw/perftest_issue273_postlist_duration_gbits.txt")

    def test_post_list_title_on_roce(self, result: BenchResult) -> None:
        assert result.tool == "ib_write_bw"
        assert (result.device, result.link_type, result.fabric) == ("ib0", "Ethernet", "roce")
        assert _header(result)["GID index"] == "2"

    def test_header_fields(self, result: BenchResult) -> None:
        header = _header(result)
        assert header["PCIe relax order"] == "Unsupported"
        assert (header["Post List"], header["CQ Moderation"], header["TX depth"]) == (
            "128",
            "128",
            "256",
        )

    def test_duration_mode_row(self, result: BenchResult) -> None:
        (row,) = result.sizes
        assert (row.bytes, row.iterations) == (8, 224958464)
        assert row.bw_peak_gbps is None  # printed 0.00: not measured
        assert (row.bw_avg_gbps, row.msg_rate_mpps) == (0.48, 7.498617)
        assert "perftest_peak_not_measured" in _codes(result)


class TestRxeSendBw:
    NAME = "ib_send_bw/rxe_softroce_server_and_client.txt"

    def test_server_then_client(self, corpus: Callable[[str], Path]) -> None:
        server, client = _all(corpus, self.NAME)
        assert (server.role, client.role) == ("server", "client")
        assert _header(server)["RX depth"] == "512"
        assert _header(client)["TX depth"] == "128"

    def test_peak_only_on_the_client(self, corpus: Callable[[str], Path]) -> None:
        server, client = _all(corpus, self.NAME)
        assert server.sizes[0].bw_peak_gbps is None
        assert "perftest_peak_not_measured" in _codes(server)
        assert client.sizes[0].bw_peak_gbps == gbps(3.75)

    def test_rows_of_both(self, corpus: Callable[[str], Path]) -> None:
        for result in _all(corpus, self.NAME):
            (row,) = result.sizes
            assert (row.bytes, row.iterations, row.msg_rate_mpps) == (65536, 1000, 0.000049)
            assert row.bw_avg_gbps == gbps(3.06)
            assert row.bw_avg_gbps == approx(0.0257, abs=5e-5)

    def test_soft_roce_setup(self, corpus: Callable[[str], Path]) -> None:
        for result in _all(corpus, self.NAME):
            assert (result.link_type, result.fabric, result.device) == ("Ethernet", "roce", "rxe0")
            assert _header(result)["GID index"] == "1"
            assert _header(result)["Mtu"] == "1024[B]"

    def test_the_client_report_is_the_result(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert result.role == "client"
        assert "perftest_client_preferred" in _codes(result)


class TestRxeSendLatGluedColumns:
    NAME = "ib_send_lat/rxe_softroce_collapsed_columns.txt"

    def test_unpadded_server_header(self, corpus: Callable[[str], Path]) -> None:
        server, _ = _all(corpus, self.NAME)
        header = _header(server)
        assert (header["Device"], header["Transport type"], header["Using SRQ"]) == (
            "rxe0",
            "IB",
            "OFF",
        )

    def test_glued_stdev_and_p99_are_split(self, corpus: Callable[[str], Path]) -> None:
        server, _ = _all(corpus, self.NAME)
        stats = server.latency
        assert stats is not None
        assert (server.sizes[0].bytes, server.sizes[0].iterations) == (2, 1000)
        assert (stats.min_us, stats.max_us, stats.typical_us) == (453.06, 37330.73, 692.41)
        assert (stats.avg_us, stats.stdev_us, stats.p99_us) == (928.05, 2465.90, 1216.65)
        assert stats.p999_us == 37330.73

    def test_client_row(self, corpus: Callable[[str], Path]) -> None:
        _, client = _all(corpus, self.NAME)
        stats = client.latency
        assert stats is not None
        assert (stats.min_us, stats.max_us, stats.typical_us) == (461.98, 37858.01, 724.36)
        assert (stats.avg_us, stats.stdev_us, stats.p99_us) == (927.05, 2486.36, 1084.09)
        assert stats.p999_us == 37858.01
