"""Real nccl-tests, rccl-tests and perftest logs of the shapes seen in the wild, read as printed.

Every file is public output saved unchanged; tests/domain/data/fidelity/SOURCES.md ("Real
nccl-tests, rccl-tests and perftest variants") gives each one's origin and the figures its tool
printed. nccl-tests GB/s is 10^9 bytes/s, so Gbit/s = GB/s × 8; perftest MB/sec and MiB/sec are
2^20 bytes/s.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchLogError, BenchResult, parse_all, parse_stream
from domain.benchlogs.detect import NCCL_TESTS, PERFTEST_BW, PERFTEST_LAT, detect

Parse = Callable[[str], BenchResult]
Corpus = Callable[[str], Path]
GB = 8.0  # nccl-tests GB/s → Gbit/s
MIB = 1024 * 1024 * 8 / 1e9  # perftest MB/sec and MiB/sec → Gbit/s


def _codes(result: BenchResult) -> list[str]:
    return [warning.code for warning in result.warnings]


def _all(corpus: Corpus, name: str) -> tuple[BenchResult, ...]:
    path = corpus(name)
    return parse_all(io.BytesIO(path.read_bytes()), path.name)


def _refused(corpus: Corpus, name: str) -> BenchLogError:
    path = corpus(name)
    with pytest.raises(BenchLogError) as caught:
        parse_all(io.BytesIO(path.read_bytes()), path.name)
    assert caught.value.message.en and caught.value.message.zh
    return caught.value


def _busbw(result: BenchResult) -> list[tuple[float, float]]:
    """Each row's out-of-place and in-place busbw in nccl-tests' GB/s, rounded as printed."""
    rows = []
    for row in result.sizes:
        assert row.nccl is not None
        out_gb = round(row.nccl.out_of_place.busbw_gbps / GB, 2)
        in_gb = round(row.nccl.in_place.busbw_gbps / GB, 2)
        rows.append((out_gb, in_gb))
    return rows


# --- nccl-tests ----------------------------------------------------------------------------------


class TestSrunIndented:
    """nccl-tests 2.17.1 under srun, every line indented by four blanks (a docs page)."""

    NAME = "nccl-tests/nccl_2.17.1_gh200_srun_indented.txt"

    def test_detected_despite_the_indentation(self, corpus: Corpus) -> None:
        assert detect(corpus(self.NAME).read_bytes()[:4096]) == NCCL_TESTS

    def test_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert (result.collective, result.ranks, len(result.sizes)) == ("all_reduce", 8, 25)
        assert [row.bytes for row in result.sizes][:2] == [8, 16]
        assert result.sizes[-1].bytes == 134217728
        assert _busbw(result)[-1] == ((122.57, 123.11))
        assert result.throughput_gbps == approx(122.57 * GB)
        assert result.avg_busbw_gbps == approx(19.7866 * GB)
        assert dict(result.header)["hosts"] == "nid005471,nid005487"
        assert result.error is None and not result.truncated


class TestRayAndMpiPrefixes:
    """Every line behind "(head, rank=0, pid=3808) [1,0]<stdout>:" (SkyPilot over mpirun)."""

    NAME = "nccl-tests/nccl_skypilot_ray_mpi_prefixed_h200_16rank.txt"

    def test_detected_behind_the_prefixes(self, corpus: Corpus) -> None:
        assert detect(corpus(self.NAME).read_bytes()[:4096]) == NCCL_TESTS

    def test_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        # No command or header line names it: redop "none" and size = 16 × count × 4 do.
        assert (result.collective, result.ranks, len(result.sizes)) == ("all_gather", 16, 24)
        assert "nccl_collective_inferred" in _codes(result)
        assert (result.sizes[0].bytes, result.sizes[-1].bytes) == (1024, 8589934592)
        assert _busbw(result)[-1] == ((325.72, 332.58))
        assert result.avg_busbw_gbps == approx(122.073 * GB)
        hosts = dict(result.header)["hosts"]
        assert hosts == "nc-d87e1263-head,nc-d87e1263-worker1"


class TestAlltoallWithMpiNoise:
    """2.18.3 alltoall, 16 ranks; Open MPI help lines between the header and the rows, the
    in-place #wrong is N/A, host names with digits."""

    NAME = "nccl-tests/nccl_2.18.3_alltoall_16rank_mpi_warnings_inplace_na.txt"

    def test_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert (result.collective, result.ranks, len(result.sizes)) == ("alltoall", 16, 24)
        assert _busbw(result)[-1] == ((35.90, 38.01))
        assert result.avg_busbw_gbps == approx(9.04853 * GB)
        last = result.sizes[-1].nccl
        assert last is not None and last.in_place.wrong is None and last.out_of_place.wrong == 0
        assert dict(result.header)["hosts"] == "R6KD-CX8aaS-GPU-11,R6KD-CX8aaS-GPU-12"
        assert result.error is None and "skipped_lines" not in _codes(result)


class TestDataTypeAll:
    """`--datatype all`: one table, twelve types, the sizes repeating for each."""

    NAME = "nccl-tests/nccl_2.18.3_h200_datatype_all_one_table.txt"

    def test_the_default_float_rows_are_the_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert [row.bytes for row in result.sizes] == [10737418240, 21474836480, 42949672960]
        assert {row.nccl.dtype for row in result.sizes if row.nccl} == {"float"}
        assert _busbw(result) == [(484.55, 485.83), (487.34, 486.74), (487.06, 488.19)]
        assert result.throughput_gbps == approx(487.06 * GB)
        assert "nccl_several_series" in _codes(result)

    def test_the_printed_average_covers_every_type(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert result.avg_busbw_gbps == approx(433.477 * GB)
        assert (result.collective, result.ranks) == ("all_reduce", 16)
        assert "duplicate_sizes" not in _codes(result)


class TestThreeRunsInOneFile:
    """Three repetitions of all_gather_perf_mpi appended to one log."""

    NAME = "nccl-tests/nccl_2.18.0_rtx5090_all_gather_three_reps_concatenated.txt"

    def test_split_into_runs(self, corpus: Corpus) -> None:
        runs = _all(corpus, self.NAME)
        assert [len(run.sizes) for run in runs] == [8, 8, 8]
        averages = [run.avg_busbw_gbps for run in runs]
        assert averages == approx([1.27827 * GB, 0.669677 * GB, 1.54607 * GB])
        assert [_busbw(run)[-1] for run in runs] == [(1.04, 1.10), (1.06, 1.06), (2.30, 2.30)]
        assert all(run.collective == "all_gather" and run.ranks == 2 for run in runs)

    def test_the_first_run_with_a_warning(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert len(result.sizes) == 8
        assert result.throughput_gbps == approx(1.04 * GB)
        assert result.avg_busbw_gbps == approx(1.27827 * GB)
        assert "multiple_tests" in _codes(result)


class TestMpirunTagOutput:
    """A whole `mpirun --tag-output` log: X11 noise, both ranks' stderr, rank 0's stdout."""

    NAME = "nccl-tests/nccl_2.18.0_rtx5090_mpirun_tag_output_with_stderr.txt"

    def test_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert (result.collective, result.ranks, len(result.sizes)) == ("all_gather", 2, 8)
        assert _busbw(result)[-1] == (2.30, 2.29)
        assert result.avg_busbw_gbps == approx(1.54321 * GB)
        assert result.error is None and "skipped_lines" not in _codes(result)


class TestEveryProcessIsRankZero:
    """A build without MPI started by mpirun: twelve processes, each its own "Rank 0"."""

    NAME = "nccl-tests/nccl_2.17.6_h100_every_process_rank0_no_mpi.txt"

    def test_refused_with_the_reason(self, corpus: Corpus) -> None:
        assert detect(corpus(self.NAME).read_bytes()) == NCCL_TESTS
        error = _refused(corpus, self.NAME)
        assert error.code == "nccl_ranks_not_joined"
        assert "12 ranks" in error.message.en and "12 个 rank" in error.message.zh


class TestWrongValues:
    """INC run on two RTX 3090 nodes: #wrong grows with the size (printed %g), footer FAILED."""

    NAME = "nccl-tests/nccl_rtx3090_2node_inc_wrong_values_failed.txt"

    def test_flagged_invalid(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert result.error is not None and result.error.code == "nccl_validation_failed"
        assert (result.ranks, len(result.sizes)) == (2, 27)
        first, last = result.sizes[0].nccl, result.sizes[-1].nccl
        assert first is not None and (first.out_of_place.wrong, first.in_place.wrong) == (4, 4)
        assert last is not None and last.out_of_place.wrong == approx(2.68435e08)
        assert result.avg_busbw_gbps == approx(3.02663 * GB)


class TestCorruptedAndCutOff:
    """Slingshot data corruption: non-zero #wrong mid-sweep, the log stops after the last row
    (no "Out of bounds" or "Avg bus bandwidth" footer)."""

    NAME = "nccl-tests/nccl_2.17.9_gh200_int8_corrupted_wrong_no_footer.txt"

    def test_invalid_and_truncated(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert result.error is not None and result.error.code == "nccl_validation_failed"
        assert result.truncated
        assert {"nccl_average_recomputed", "truncated_log"} <= set(_codes(result))
        assert (result.ranks, len(result.sizes)) == (16, 28)
        assert result.sizes[-1].nccl is not None and result.sizes[-1].nccl.dtype == "int8"
        assert _busbw(result)[-1] == ((89.85, 83.23))


class TestCrashBeforeAnyRow:
    NAME = "nccl-tests/nccl_2.19.7_h200_cuda_failure_no_rows.txt"

    def test_refused_with_the_tool_s_own_failure_line(self, corpus: Corpus) -> None:
        error = _refused(corpus, self.NAME)
        assert error.code == "nccl_failed"
        assert "Test CUDA failure common.cu:502" in error.message.en
        assert "common.cu:502" in error.message.zh


class TestCutAfterTwoRows:
    """-b 1G -e 2G with the default 1 MiB step (step: 1048576(bytes)); only two rows pasted."""

    NAME = "nccl-tests/nccl_2.19.7_h200_step_bytes_cut_after_two_rows.txt"

    def test_partial_result(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert [row.bytes for row in result.sizes] == [1073741824, 1074790400]
        assert result.truncated and "nccl_average_recomputed" in _codes(result)
        assert result.throughput_gbps == approx(353.35 * GB)
        assert result.avg_busbw_gbps == approx((356.04 + 354.77 + 353.35 + 354.92) / 4 * GB)
        assert (result.collective, result.ranks) == ("all_reduce", 4)


class TestRcclOldHeader:
    """rccl-tests (ROCm 4.2): "# nThread: 1 nGpus: 1 …", no root column, error column 0e+00,
    rank lines without "Group", the asterisk note before the footer."""

    NAME = "nccl-tests/rccl_rocm4.2_mi100_old_header_nthread_colons.txt"

    def test_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert (result.collective, result.ranks, len(result.sizes)) == ("all_reduce", 2, 25)
        assert dict(result.header)["nThread"] == "1"
        assert result.sizes[0].iterations == 20
        assert _busbw(result)[-1] == ((7.66, 7.67))
        assert result.avg_busbw_gbps == approx(2.31741 * GB)
        assert result.error is None


class TestRcclVersionBanner:
    """rccl-tests develop: "rccl-tests: Version …" and RCCL/HIP/ROCm lines inside the header."""

    NAME = "nccl-tests/rccl_develop_mi300x_graph_version_banner.txt"

    def test_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert (result.collective, result.ranks, len(result.sizes)) == ("all_reduce", 8, 32)
        assert result.sizes[-1].bytes == 17179869184
        assert _busbw(result)[-1] == ((319.22, 318.01))
        assert result.avg_busbw_gbps == approx(120.69 * GB)
        assert dict(result.header)["devices"] == "AMD Instinct MI300X"


# --- perftest ------------------------------------------------------------------------------------


class TestSessionOfFourTests:
    """ib_send_bw, ib_send_lat, ib_read_bw, ib_write_bw pasted from one shell session."""

    NAME = "ib_send_bw/cx7_ndr_session_send_bw_lat_read_write.txt"

    def test_every_test_in_order(self, corpus: Corpus) -> None:
        results = _all(corpus, self.NAME)
        assert [r.tool for r in results] == [
            "ib_send_bw",
            "ib_send_lat",
            "ib_read_bw",
            "ib_write_bw",
        ]
        send, lat, read, write = results
        assert send.throughput_gbps == approx(46557.03 * MIB)
        assert send.sizes[0].bw_peak_gbps == approx(46567.34 * MIB)
        assert lat.latency is not None
        assert (lat.latency.min_us, lat.latency.typical_us, lat.latency.p99_us) == (
            1.24,
            1.27,
            1.37,
        )
        assert (lat.latency.max_us, lat.latency.p999_us) == (5.19, 5.19)
        assert (read.throughput_gbps, write.throughput_gbps) == (328.61, 392.34)
        assert all("perftest_cpu_frequency" in _codes(r) for r in results)

    def test_the_first_test_with_a_warning(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert result.tool == "ib_send_bw" and "multiple_tests" in _codes(result)
        assert "perftest_client_preferred" not in _codes(result)


class TestDurationLatencyWithClockWarnings:
    NAME = "ib_send_lat/mlx4_freeflow_duration_D20_cpufreq.txt"

    def test_figures(self, corpus: Corpus, parse: Parse) -> None:
        assert detect(corpus(self.NAME).read_bytes()[:4096]) == PERFTEST_LAT
        result = parse(self.NAME)
        assert result.latency is not None and result.latency.avg_us == 3.88
        assert result.latency.p99_us is None
        assert result.sizes[0].iterations == 1289984
        assert {"perftest_cpu_frequency", "latency_without_percentiles"} <= set(_codes(result))


class TestBidirectionalSweepIndented:
    NAME = "ib_write_bw/rocm_doc_bidir_a_gbits_indented.txt"

    def test_every_size_kept(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert len(result.sizes) == 23
        assert [row.bytes for row in result.sizes][:3] == [2, 4, 8]
        assert (result.sizes[0].bw_peak_gbps, result.sizes[0].bw_avg_gbps) == (0.142947, 0.012281)
        assert result.sizes[-1].bw_avg_gbps == 204.59

    def test_the_sum_of_both_directions_is_halved(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert result.direction == "bidir"
        assert result.bidir_total_gbps == approx(204.59)
        assert result.throughput_gbps == approx(204.59 / 2)


class TestBidirectionalServerThenClient:
    """A -b -q 4 -a server (banner, "CPU freq" line) run in the background, then the client."""

    NAME = "ib_write_bw/ainic_bidir_q4_a_server_then_client.txt"

    def test_the_client_is_reported(self, parse: Parse) -> None:
        result = parse(self.NAME)
        assert (result.role, result.device, result.streams) == ("client", "ionic_1", 4)
        assert len(result.sizes) == 23
        assert result.bidir_total_gbps == approx(779.21)
        assert result.throughput_gbps == approx(779.21 / 2)
        assert "perftest_client_preferred" in _codes(result)

    def test_the_bidirectional_server_is_a_server(self, corpus: Corpus) -> None:
        server, client = _all(corpus, self.NAME)
        assert (server.role, server.device) == ("server", "ionic_7")
        assert client.role == "client"


class TestGpuDirectServerAndClient:
    NAME = "ib_write_bw/ainic_rocm_gdr_a_mibsec_server_then_client.txt"

    def test_figures(self, corpus: Corpus, parse: Parse) -> None:
        server, client = _all(corpus, self.NAME)
        assert (server.role, len(server.sizes)) == ("server", 1)
        assert (client.role, len(client.sizes)) == ("client", 23)
        result = parse(self.NAME)
        assert result.role == "client"
        assert result.throughput_gbps == approx(19044.43 * MIB)
        four_k = next(row for row in result.sizes if row.bytes == 4096)
        assert four_k.bw_avg_gbps == approx(13639.21 * MIB)
        assert four_k.msg_rate_mpps == 3.491638


class TestConnectionRefused:
    NAME = "ib_send_bw/k8s_sriov_connect_refused_no_title.txt"

    def test_refused_with_perftest_s_words(self, corpus: Corpus) -> None:
        assert detect(corpus(self.NAME).read_bytes()) == PERFTEST_BW
        error = _refused(corpus, self.NAME)
        assert error.code == "perftest_failed"
        assert "Couldn't connect to 10.55.206.82:18515" in error.message.en


class TestInterleavedTerminals:
    """Server started with '&' in the same terminal as the client: both reports line by line
    (one Chinese RoCE test page, three tests)."""

    def test_atomic_rows_counted_once(self, parse: Parse) -> None:
        result = parse("ib_atomic_bw/roce_fetch_add_server_client_interleaved.txt")
        assert (result.tool, result.role, len(result.sizes)) == ("ib_atomic_bw", "client", 1)
        row = result.sizes[0]
        assert (row.bytes, row.iterations, row.msg_rate_mpps) == (8, 1000, 9.493989)
        assert row.bw_avg_gbps == approx(72.43 * MIB)
        assert row.bw_peak_gbps == approx(76.29 * MIB)
        assert "perftest_interleaved" in _codes(result)

    def test_two_rows_on_one_line_keep_the_client_s(self, parse: Parse) -> None:
        # "1024 1000 0.00 7876.21 8.065242 1024 1000 8138.01 7630.57 7.813706": the server's
        # row (no BW peak) and the client's glued on one line.
        result = parse("ib_send_bw/roce_ud_server_client_interleaved_one_line.txt")
        (row,) = result.sizes
        assert row.bw_peak_gbps == approx(8138.01 * MIB)
        assert row.bw_avg_gbps == approx(7630.57 * MIB)
        assert row.msg_rate_mpps == 7.813706
        assert result.role == "client" and "perftest_interleaved" in _codes(result)
        assert "skipped_lines" not in _codes(result)

    def test_xrc_title_inside_the_other_header(self, parse: Parse) -> None:
        result = parse("ib_write_bw/roce_xrc_server_client_interleaved.txt")
        (row,) = result.sizes
        assert (row.bytes, row.iterations) == (65536, 5000)
        assert row.bw_avg_gbps == approx(22704.79 * MIB)
        assert result.throughput_gbps == approx(22704.79 * MIB)
        assert result.header and dict(result.header)["Connection type"] == "XRC"


class TestAtomicDurationMode:
    NAME = "ib_atomic_bw/rxe_fetch_add_duration_D10_peak_not_measured.txt"

    def test_figures(self, parse: Parse) -> None:
        result = parse(self.NAME)
        (row,) = result.sizes
        assert (result.tool, row.bytes, row.iterations) == ("ib_atomic_bw", 8, 578000)
        assert row.bw_peak_gbps is None  # printed 0.00: not measured in duration mode
        assert row.bw_avg_gbps == approx(0.73 * MIB)
        assert row.msg_rate_mpps == 0.096329
        assert "perftest_peak_not_measured" in _codes(result)


# --- launcher prefixes put in front of real logs -------------------------------------------------


def _prefixed(corpus: Corpus, name: str, prefix: str) -> tuple[BenchResult, ...]:
    lines = corpus(name).read_text().splitlines(keepends=True)
    data = "".join(prefix + line for line in lines).encode()
    return parse_all(io.BytesIO(data), Path(name).name)


@pytest.mark.parametrize("prefix", ["0: ", "[0] ", "[1,0]<stdout>:", "2026-04-19T03:11:29.123Z "])
def test_nccl_behind_a_launcher_prefix_reads_the_same(corpus: Corpus, prefix: str) -> None:
    name = "nccl-tests/nccl_2.18.3_alltoall_16rank_mpi_warnings_inplace_na.txt"
    (plain,) = _all(corpus, name)
    (tagged,) = _prefixed(corpus, name, prefix)
    assert tagged.sizes == plain.sizes and tagged.ranks == plain.ranks == 16
    assert tagged.avg_busbw_gbps == plain.avg_busbw_gbps


def test_perftest_behind_an_mpirun_tag_reads_the_same(corpus: Corpus) -> None:
    name = "ib_send_bw/cx7_ndr_session_send_bw_lat_read_write.txt"
    assert _prefixed(corpus, name, "[1,0]<stdout>:") == _all(corpus, name)


# --- real logs appended to one another (how job scripts collect them) ---------------------------


def _joined(corpus: Corpus, *names: str) -> bytes:
    return b"".join(corpus(name).read_bytes() for name in names)


def test_two_nccl_logs_appended_stay_two_runs(corpus: Corpus) -> None:
    first = "nccl-tests/nccl_2.17.1_gh200_srun_indented.txt"
    second = "nccl-tests/rccl_rocm4.2_mi100_old_header_nthread_colons.txt"
    runs = parse_all(io.BytesIO(_joined(corpus, first, second)), "job.log")
    (alone_1,), (alone_2,) = _all(corpus, first), _all(corpus, second)
    assert [run.sizes for run in runs] == [alone_1.sizes, alone_2.sizes]
    assert [run.ranks for run in runs] == [8, 2]
    # The second run's own command line (after the first run's rows) names its collective.
    assert [run.collective for run in runs] == ["all_reduce", "all_reduce"]
    assert "nccl_collective_inferred" not in _codes(runs[1])
    assert [run.avg_busbw_gbps for run in runs] == [alone_1.avg_busbw_gbps, alone_2.avg_busbw_gbps]


def test_a_client_run_twice_is_two_tests_not_server_and_client(corpus: Corpus) -> None:
    name = "ib_write_bw/dgx_spark_roce_q4_gbits.txt"
    data = _joined(corpus, name, name)
    first, again = parse_all(io.BytesIO(data), "twice.txt")
    assert first.sizes == again.sizes and first.role == again.role == "client"
    result = parse_all(io.BytesIO(data), "twice.txt")[0]
    assert result.throughput_gbps == 111.71
    codes = _codes(parse_stream(io.BytesIO(data), "twice.txt"))
    assert "multiple_tests" in codes and "perftest_client_preferred" not in codes


class TestTableOnly:
    """Only the dashes, the column header and the row were kept by the page."""

    NAME = "ib_write_bw/ru_cloud_numa_table_only_gbits.txt"

    def test_the_row_is_read_and_the_gap_said(self, corpus: Corpus, parse: Parse) -> None:
        assert detect(corpus(self.NAME).read_bytes()) == PERFTEST_BW
        result = parse(self.NAME)
        (row,) = result.sizes
        assert (row.bytes, row.iterations, row.msg_rate_mpps) == (33554432, 10000, 0.001469)
        assert (row.bw_peak_gbps, row.bw_avg_gbps) == (394.58, 394.40)
        assert result.throughput_gbps == 394.40
        assert result.tool == "ib_unknown_bw" and result.link_type is None
        assert _codes(result)[0] == "perftest_title_missing"
        assert not result.truncated
