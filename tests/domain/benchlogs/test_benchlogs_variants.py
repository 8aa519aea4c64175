"""Layouts the corpus lacks but FORMATS.md documents, built from corpus files."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchResult, parse_stream
from domain.benchlogs.stats import line_rate_efficiency
from domain.benchlogs.textio import MAX_LINE_CHARS, text_lines

Read = Callable[[str], bytes]


@pytest.fixture
def read(corpus: Callable[[str], Path]) -> Read:
    return lambda name: corpus(name).read_bytes()


def _parse(data: bytes, name: str = "") -> BenchResult:
    return parse_stream(io.BytesIO(data), name)


def _codes(result: BenchResult) -> list[str]:
    return [w.code for w in result.warnings]


def test_bidirectional_perftest_is_the_sum_of_both_directions(read: Read) -> None:
    data = read("ib_write_bw/cx3_ib_a_MBsec.txt").replace(
        b"RDMA_Write BW Test", b"RDMA_Write Bidirectional BW Test"
    )
    result = _parse(data)
    assert result.direction == "bidir"
    assert "perftest_bidir_halved" in _codes(result)
    # perftest prints the sum of both directions: the throughput is one direction, half of it
    assert result.bidir_total_gbps == approx(3665.25 * 1048576 * 8 / 1e9)
    assert result.throughput_gbps == approx(3665.25 * 1048576 * 8 / 1e9 / 2)
    assert line_rate_efficiency(result, 32.0) == approx(result.throughput_gbps / 32)


def test_send_and_read_latency_names(read: Read) -> None:
    data = read("ib_write_lat/dgx_spark_roce_single.txt")
    assert _parse(data.replace(b"RDMA_Write Latency", b"Send Latency")).tool == "ib_send_lat"
    assert _parse(data.replace(b"RDMA_Write Latency", b"RDMA_Read Latency")).tool == "ib_read_lat"


def test_duration_mode_latency_has_no_percentiles(read: Read) -> None:
    lines = read("ib_write_lat/dgx_spark_roce_single.txt").splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith(b"#bytes"))
    lines[header] = b" #bytes        #iterations       t_avg[usec]    tps average\n"
    lines[header + 1] = b" 2             123456           1.52           657894.74\n"
    result = _parse(b"".join(lines))
    assert result.latency is not None
    assert (result.latency.avg_us, result.latency.p99_us) == (1.52, None)
    assert "latency_without_percentiles" in _codes(result)


def test_mib_label_of_newer_perftest_is_the_same_unit(read: Read) -> None:
    data = read("ib_write_bw/cx3_ib_a_MBsec.txt")
    newer = _parse(data.replace(b"[MB/sec]", b"[MiB/sec]"))
    assert newer.throughput_gbps == _parse(data).throughput_gbps


def test_per_port_and_qos_columns_are_mapped_by_name(read: Read) -> None:
    lines = read("ib_write_bw/dgx_spark_roce_q4_gbits.txt").splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith(b"#bytes"))
    lines[header] = (
        b" #bytes     #sl    #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
        b"MsgRate[Mpps]    CPU_Util[%]\n"
    )
    lines[header + 1] = (
        b" 65536      3      20000            111.72             111.71        0.213070   12.5\n"
    )
    result = _parse(b"".join(lines))
    (row,) = result.sizes
    assert (row.bytes, row.iterations, row.bw_avg_gbps, row.msg_rate_mpps) == (
        65536,
        20000,
        111.71,
        0.213070,
    )


def test_mpi_prefixed_nccl_lines(read: Read) -> None:
    prefixed = b"".join(
        b"[1,0]<stdout>:" + line for line in read("nccl-tests/pkb_nccl_output.txt").splitlines(True)
    )
    result = _parse(prefixed)
    assert result.avg_busbw_gbps == approx(0.565546 * 8)
    assert result.throughput_gbps == approx(0.61 * 8)
    assert len(result.sizes) == 11 and result.ranks == 2
    assert dict(result.header)["devices"] == "Tesla K80"


def test_a_command_line_names_the_collective(read: Read) -> None:
    data = b"$ ./build/reduce_scatter_perf -b 8 -e 128M -g 8\n" + read(
        "nccl-tests/superbench_nccl_allreduce.log"
    )
    result = _parse(data)
    assert (result.tool, result.collective) == ("reduce_scatter_perf", "reduce_scatter")


def test_bidir_with_parallel_streams_uses_the_role_sum_lines() -> None:
    log = b"""Connecting to host 10.0.0.2, port 5201
[  5] local 10.0.0.1 port 1 connected to 10.0.0.2 port 5201
[  7] local 10.0.0.1 port 2 connected to 10.0.0.2 port 5201
[  9] local 10.0.0.1 port 3 connected to 10.0.0.2 port 5201
[ 11] local 10.0.0.1 port 4 connected to 10.0.0.2 port 5201
[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd
[  5][TX-C]   0.00-1.00   sec   100 MBytes   839 Mbits/sec    1   100 KBytes
[  7][TX-C]   0.00-1.00   sec   100 MBytes   839 Mbits/sec    2   100 KBytes
[SUM][TX-C]   0.00-1.00   sec   200 MBytes  1.68 Gbits/sec    3
[  9][RX-C]   0.00-1.00   sec   200 MBytes  1.68 Gbits/sec
[ 11][RX-C]   0.00-1.00   sec   200 MBytes  1.68 Gbits/sec
[SUM][RX-C]   0.00-1.00   sec   400 MBytes  3.36 Gbits/sec
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID][Role] Interval           Transfer     Bitrate         Retr
[SUM][TX-C]   0.00-1.00   sec   200 MBytes  1.68 Gbits/sec    3             sender
[SUM][TX-C]   0.00-1.00   sec   199 MBytes  1.67 Gbits/sec                  receiver
[SUM][RX-C]   0.00-1.00   sec   400 MBytes  3.36 Gbits/sec    9             sender
[SUM][RX-C]   0.00-1.00   sec   399 MBytes  3.35 Gbits/sec                  receiver

iperf Done.
"""
    result = _parse(log)
    assert (result.direction, result.streams) == ("bidir", 2)
    # one direction, the lower (TX-C, client→server): stream rows 839 + 839 Mbit/s
    assert result.interval_gbps == (approx(0.839 * 2),)
    assert (result.throughput_gbps, result.bidir_total_gbps) == (approx(1.67), approx(1.67 + 3.35))
    assert (result.sender_gbps, result.retransmits) == (approx(1.68), 12)
    forward, reverse = result.per_direction
    assert (forward.receiver_gbps, reverse.receiver_gbps) == (1.67, 3.35)


def test_byte_rates_with_forced_format_use_binary_prefixes() -> None:
    log = b"""Connecting to host 10.0.0.2, port 5201
[  5] local 10.0.0.1 port 1 connected to 10.0.0.2 port 5201
[ ID] Interval           Transfer     Bitrate
[  5]   0.00-1.00   sec   100 MBytes   100 MBytes/sec
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate
[  5]   0.00-1.00   sec   100 MBytes   100 MBytes/sec                  sender
[  5]   0.00-1.00   sec   100 MBytes   100 MBytes/sec                  receiver
"""
    result = _parse(log)
    assert result.throughput_gbps == approx(100 * 1024 * 1024 * 8 / 1e9)


def test_over_long_lines_are_cut_not_buffered_whole() -> None:
    data = b"x" * (5 * MAX_LINE_CHARS) + b"\nshort\n" + b"y" * 10
    lines = list(text_lines(io.BytesIO(data)))
    assert lines == ["x" * MAX_LINE_CHARS, "short", "y" * 10]


def test_crlf_split_across_chunks() -> None:
    body = b"b" * 98 + b"\r\n"  # 100 bytes a line
    head = body * 655 + b"c" * 35  # the next CR is byte 65,535: the last of the first chunk
    data = head + b"\r\nnext\r\n"
    assert data.index(b"\r", len(head)) == 64 * 1024 - 1
    lines = list(text_lines(io.BytesIO(data)))
    assert lines == ["b" * 98] * 655 + ["c" * 35, "next"]
