"""Every log read as its tool meant it, on logs recorded for it (data/fidelity/).

The iperf3 logs were recorded between two network namespaces shaped to 1 Gbit/s (see
data/fidelity/SOURCES.md), so no honest figure can exceed about 1 Gbit/s per direction.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchResult, parse_all, parse_path, parse_stream, result_to_json
from domain.benchlogs.curves import busbw_at
from domain.benchlogs.measures import line_rate_efficiency, percentile
from domain.benchlogs.stats import summarise_run
from domain.benchlogs.warmup import warmup

DATA = Path(__file__).resolve().parents[1] / "data"
FIDELITY = DATA / "fidelity"
CORPUS = DATA / "corpus"


def _parse(name: str) -> BenchResult:
    return parse_path(FIDELITY / name)


def _codes(result: BenchResult) -> list[str]:
    return [w.code for w in result.warnings]


def _text(name: str, data: str) -> BenchResult:
    return parse_stream(io.BytesIO(data.encode()), name)


# --- iperf3 -P 4: intervals are blocks ending with [SUM], not printed times -----------------


def test_p4_text_has_one_interval_per_sum_line() -> None:
    result = _parse("tcp_P4_30s.txt")
    assert result.intervals == 30
    assert result.interval_gbps[27] == approx(0.964)  # [SUM] 27.00-28.00 964 Mbits/sec


def test_a_stream_printing_other_times_than_its_sum_stays_in_the_block() -> None:
    # iperf3 3.16+ stamps each stream's interval itself; a stream may print 27.00-28.01 while
    # [SUM] prints 27.00-28.00. The recorded 3.12 log is edited in that one way only.
    text = (FIDELITY / "tcp_P4_30s.txt").read_text()
    line = "[  9]  27.00-28.00  sec  28.7 MBytes   241 Mbits/sec"
    assert line in text
    result = _text("p4.txt", text.replace(line, line.replace("27.00-28.00", "27.00-28.01")))
    assert result.intervals == 30
    assert result.interval_gbps[27] == approx(0.964)
    assert max(result.interval_gbps) <= 1.0


def test_the_loaded_p4_runs_read_every_block() -> None:
    assert _parse("tcp_P4_loaded.txt").intervals == 60
    assert _parse("tcp_P4_loaded_i01.txt").intervals == 300


# --- a server stopped mid-run ----------------------------------------------------------------


def test_text_client_counts_the_repeated_last_interval_once() -> None:
    result = _parse("tcp_server_killed.txt")
    assert result.interval_gbps == approx((0.974, 0.957, 0.955, 0.955, 0.959, 0.957))
    assert "repeated_intervals" in _codes(result)
    assert result.error is not None and result.error.code == "iperf3_reported_error"


def test_json_client_counts_the_repeated_last_interval_once() -> None:
    result = _parse("tcp_server_killed.json")
    assert result.intervals == 6
    assert result.interval_end_s[-1] == approx(6.000258)
    assert "repeated_intervals" in _codes(result)


def test_json_without_end_takes_six_intervals_for_the_mean_and_retransmits() -> None:
    document = json.loads((FIDELITY / "tcp_server_killed.json").read_text())
    document["end"] = {}
    document.pop("error")
    result = parse_stream(io.BytesIO(json.dumps(document).encode()), "cut.json")
    rates = [i["sum"]["bits_per_second"] / 1e9 for i in document["intervals"][:6]]
    assert result.intervals == 6
    assert result.throughput_gbps == approx(sum(rates) / 6)
    assert result.retransmits == sum(i["sum"]["retransmits"] for i in document["intervals"][:6])


def test_a_server_log_with_its_stderr_line_first_is_one_test() -> None:
    # `iperf3 -s > f 2>&1`: the unbuffered "iperf3: interrupt" lands above the test it ended.
    result = _parse("server_killed_txt.txt")
    assert (result.role, result.test, result.intervals) == ("server", "tcp", 7)
    assert result.throughput_gbps == approx(0.956)
    assert result.error is None
    assert "multiple_tests" not in _codes(result) and "server_stopped" in _codes(result)
    with (FIDELITY / "server_killed_txt.txt").open("rb") as stream:
        assert len(parse_all(stream, "server_killed_txt.txt")) == 1


# --- bidirectional: each direction kept, one direction reported ------------------------------


@pytest.mark.parametrize("name", ["tcp_bidir.txt", "tcp_bidir.json"])
def test_bidir_on_a_1_gbit_link_is_within_line_rate(name: str) -> None:
    result = _parse(name)
    forward, reverse = result.per_direction
    assert (forward.label, reverse.label) == ("forward", "reverse")
    lower = min(forward.receiver_gbps or 0, reverse.receiver_gbps or 0)
    assert result.throughput_gbps == approx(lower)
    assert result.bidir_total_gbps == approx(
        (forward.receiver_gbps or 0) + (reverse.receiver_gbps or 0)
    )
    efficiency = line_rate_efficiency(result, 1.0)
    assert efficiency is not None and 0.9 < efficiency <= 1.0
    assert max(result.interval_gbps) < 1.0
    assert "bidir_one_direction" in _codes(result)


def test_bidir_text_figures() -> None:
    result = _parse("tcp_bidir.txt")
    assert (result.throughput_gbps, result.direction_used) == (approx(0.938), "forward")
    assert (result.sender_gbps, result.bidir_total_gbps) == (approx(0.941), approx(0.938 + 0.948))


def test_bidir_json_figures() -> None:
    result = _parse("tcp_bidir.json")
    assert result.direction_used == "reverse"
    assert result.throughput_gbps == approx(950823505.518326 / 1e9, rel=1e-12)
    assert result.sender_gbps == approx(954508996.8082325 / 1e9, rel=1e-12)


def test_perftest_bidir_reports_one_direction_and_keeps_the_printed_sum() -> None:
    result = _parse("ib_write_bw_bidir_D5_roce.txt")
    assert (result.tool, result.direction, result.fabric) == ("ib_write_bw", "bidir", "roce")
    assert result.bidir_total_gbps == approx(98.02)
    assert result.throughput_gbps == approx(98.02 / 2)
    assert line_rate_efficiency(result, 100.0) == approx(0.4901)
    assert "perftest_bidir_halved" in _codes(result)


def test_bidir_server_log_reports_what_it_received() -> None:
    result = _parse("server_tcp_bidir.txt")
    assert (result.direction_used, result.throughput_gbps) == ("forward", approx(0.938))
    assert result.bidir_total_gbps is None  # the server saw only one receiver figure


# --- UDP: the series is what the receiver got ------------------------------------------------


def test_udp_text_client_series_is_scaled_to_what_arrived() -> None:
    result = _parse("udp_1500M.txt")
    assert result.interval_sent_gbps[:2] == (approx(0.861), approx(0.869))
    share = 775 / 1002  # receiver 775 MBytes of 1002 MBytes sent
    assert result.interval_gbps[0] == approx(0.861 * share)
    assert result.throughput_gbps == approx(0.650)
    assert result.lost_percent == approx(100 * 164513 / 725605)
    assert "udp_series_scaled" in _codes(result)


def test_udp_json_client_series_is_scaled_to_what_arrived() -> None:
    result = _parse("udp_1500M.json")
    share = 462643240 / 839504064
    assert result.interval_sent_gbps[0] == approx(938840949.4563067 / 1e9)
    assert result.interval_gbps[0] == approx(938840949.4563067 / 1e9 * share)


def test_udp_server_log_is_already_the_receiver() -> None:
    result = _parse("server_udp_1500M.txt")
    assert result.interval_gbps[:3] == (approx(0.552), approx(0.586), approx(0.538))
    assert result.interval_sent_gbps == ()


def test_udp_out_of_order_lines_are_iperf3_lines_not_skipped_damage() -> None:
    """iperf3 prints "N datagrams received out-of-order" after a receiver's row when UDP
    datagrams were reordered (none were on this link; the lines are added as iperf3 3.12's
    iperf_locale.c formats them)."""
    text = (FIDELITY / "server_udp_1500M.txt").read_text()
    plain = parse_stream(io.BytesIO(text.encode()), "server.txt")
    row = "[  5]   1.00-2.00   sec  69.9 MBytes   586 Mbits/sec  0.003 ms  24697/75320 (33%)  \n"
    total = "164513/725605 (23%)  receiver\n"
    assert row in text and total in text
    text = text.replace(row, row + "[  5]   1.00-2.00   sec  3 datagrams received out-of-order\n")
    text = text.replace(
        total, total + "[  5]   0.00-10.00  sec  3 datagrams received out-of-order\n"
    )
    reordered = parse_stream(io.BytesIO(text.encode()), "server.txt")
    assert reordered.warnings == plain.warnings
    assert reordered.interval_gbps == plain.interval_gbps
    assert reordered.throughput_gbps == plain.throughput_gbps == approx(0.650)


# --- nccl-tests ------------------------------------------------------------------------------


@pytest.fixture
def gb10() -> BenchResult:
    with (FIDELITY / "nccl_2.18.3_gb10_2node.txt").open("rb") as stream:
        return parse_stream(stream, "run-17.log")  # the file name names no collective


def test_the_collective_comes_from_the_header_line(gb10: BenchResult) -> None:
    assert (gb10.collective, gb10.tool) == ("all_gather", "all_gather_perf")
    assert "nccl_collective_inferred" not in _codes(gb10)
    assert all(row.nccl and row.nccl.redop == "none" for row in gb10.sizes)


def test_headline_is_the_largest_size_and_the_average_is_kept(gb10: BenchResult) -> None:
    assert gb10.throughput_gbps == approx(22.14 * 8)  # out-of-place busbw, the headline
    assert gb10.avg_busbw_gbps == approx(21.4033 * 8)


def test_busbw_at_interpolates_on_the_size_curve(gb10: BenchResult) -> None:
    at_1g, at_2g, at_4g = (
        (a + b) / 2 * 8 for a, b in ((19.73, 20.80), (21.23, 22.05), (22.14, 22.46))
    )
    assert busbw_at(gb10, 2**31) == approx(at_2g)
    # 3 GiB sits log2(3) - 1 of the way from 2 GiB to 4 GiB
    assert busbw_at(gb10, 3 * 2**30) == approx(at_2g + (at_4g - at_2g) * 0.5849625007)
    assert busbw_at(gb10, 2**20) == approx(at_1g)  # below the table: its smallest size
    assert busbw_at(gb10, 2**40) == approx(at_4g)  # above: the flat end
    assert busbw_at(gb10, 0) is None


def test_busbw_at_skips_the_size_zero_rows() -> None:
    result = parse_path(CORPUS / "nccl-tests/superbench_nccl_allreduce.log")
    assert busbw_at(result, 4) == approx(result.sizes[2].bw_avg_gbps)
    assert busbw_at(result.sizes, 8589934592) == approx(result.sizes[-1].bw_avg_gbps)


# --- perftest latency sweeps keep every size -------------------------------------------------


def test_latency_sweep_keeps_every_size_row() -> None:
    result = parse_path(CORPUS / "ib_write_lat/cx3_ib_a_percentiles.txt")
    rows = result_to_json(result, "lat")["latency_sizes"]
    assert isinstance(rows, list) and len(rows) == 23
    by_size = {row["bytes"]: row for row in rows}
    assert by_size[2] == {
        "bytes": 2,
        "iterations": 20000,
        "min": 0.88,
        "typical": 0.98,
        "avg": 1.03,
        "max": 6.84,
        "stdev": 0.20,
        "p99": 1.21,
        "p999": 5.42,
    }
    assert (by_size[65536]["avg"], by_size[65536]["p99"], by_size[65536]["p999"]) == (
        20.04,
        23.79,
        25.30,
    )
    assert by_size[8388608]["typical"] == 2302.01


# --- warm-up in concurrent runs --------------------------------------------------------------


def test_a_ramping_first_interval_is_left_out_of_the_pooled_p5() -> None:
    p4 = parse_path(CORPUS / "iperf3-json/local_3.12_tcp_P4.json")
    single = parse_path(CORPUS / "iperf3-json/local_3.12_tcp_single.json")
    assert warmup(p4).rule == "ramp" and warmup(single).intervals == 0
    summary = summarise_run([p4, single], line_rate_gbps=25.0)
    steady = [*p4.interval_gbps[1:], *single.interval_gbps]
    assert summary.tail_p5_gbps == approx(percentile(steady, 0.05))
    assert summary.tail_p5_gbps > p4.interval_gbps[0]
    assert (summary.warmup_intervals, summary.warmup_s) == (1, approx(p4.interval_end_s[0]))
    assert "warmup_dropped" in [w.code for w in summary.warnings]


@pytest.mark.parametrize("name", ["tcp_omit2.txt", "tcp_omit2.json"])
def test_iperf3_omitted_intervals_are_the_warm_up(name: str) -> None:
    result = _parse(name)
    assert (result.intervals, result.omitted_intervals) == (10, 2)
    assert "skipped_lines" not in _codes(result)
    found = warmup(result)
    assert (found.rule, found.omitted, found.dropped) == ("omitted", 2, 0)
    summary = summarise_run([result], line_rate_gbps=1.0)
    assert summary.warmup_intervals == 2
    assert summary.tail_p5_gbps == approx(percentile(result.interval_gbps, 0.05))


def test_udp_has_no_slow_start_to_drop() -> None:
    ramping = parse_path(CORPUS / "iperf3-json/local_3.12_tcp_P4.json")
    assert warmup(ramping).dropped == 1
    assert warmup(replace(ramping, test="udp")).intervals == 0


def test_a_steady_log_drops_nothing() -> None:
    result = _parse("tcp_P4_30s.json")
    assert warmup(result).intervals == 0
    assert result_to_json(result, "p4")["warmup"] is None
