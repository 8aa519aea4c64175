"""iperf3 plain-text corpus files parse to the figures listed in corpus SOURCES.md.

Text values carry 3 significant figures; transfers are binary units (MBytes = 2^20 bytes) and
rates decimal (Gbits/sec = 10^9 bit/s), so expected bytes are written as value × 2^n.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchResult, parse_all

Parse = Callable[[str], BenchResult]
T = "iperf3-text/"
MiB = 1024.0**2
GiB = 1024.0**3


def _codes(result: BenchResult) -> list[str]:
    return [w.code for w in result.warnings]


class TestWindowsUdp:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "pkb_windows_udp.txt")

    def test_it_parses_without_a_connecting_line(self, result: BenchResult) -> None:
        assert (result.tool, result.test) == ("iperf3", "udp")
        assert result.peer is None

    def test_three_intervals(self, result: BenchResult) -> None:
        assert result.interval_bytes == (159 * MiB, 166 * MiB, 167 * MiB)
        # The client's rows are its sending rate; the series is scaled by what arrived.
        assert result.interval_sent_gbps == (1.34, 1.40, 1.40)
        kept = 1 - 35148 / 62949
        assert result.interval_gbps == (
            approx(1.34 * kept),
            approx(1.40 * kept),
            approx(1.40 * kept),
        )
        assert "udp_series_scaled" in _codes(result)
        assert result.interval_packets == (20398, 21292, 21323)

    def test_single_summary_row(self, result: BenchResult) -> None:
        assert result.duration_s == approx(3.0)
        assert result.bytes_sent == 492 * MiB
        assert result.sender_gbps == approx(1.38)
        assert result.jitter_ms == approx(0.072)
        assert (result.lost_packets, result.packets) == (35148, 62949)

    def test_sent_datagrams(self, result: BenchResult) -> None:
        assert result.packets_sent == 62949

    def test_loss_comes_from_the_counts_not_the_rounded_percentage(
        self, result: BenchResult
    ) -> None:
        assert result.lost_percent == approx(55.836, abs=5e-4)

    def test_received_rate_is_estimated_from_sender_rate_and_loss(
        self, result: BenchResult
    ) -> None:
        assert result.throughput_gbps == approx(1.38 * (1 - 35148 / 62949), rel=1e-12)
        assert "udp_receiver_rate_estimated" in _codes(result)


class TestWindowsTcpP5:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "pkb_windows_tcp_P5.txt")

    def test_five_streams(self, result: BenchResult) -> None:
        assert result.streams == 5
        labels = [s.label for s in result.series]
        assert labels == ["stream 10", "stream 12", "stream 4", "stream 6", "stream 8"]

    def test_sum_lines_give_the_interval_series(self, result: BenchResult) -> None:
        assert result.interval_gbps == (4.27, 4.48, 5.27)

    def test_each_stream_summary(self, result: BenchResult) -> None:
        assert len(result.per_stream) == 5
        for stream in result.per_stream:
            assert stream.bytes_sent == stream.bytes_received == 335 * MiB
            assert stream.sender_gbps == stream.receiver_gbps == approx(0.935)

    def test_sum_summary_in_forced_mbits(self, result: BenchResult) -> None:
        assert result.duration_s == approx(3.01)
        assert result.bytes_sent == result.bytes_received == approx(1.64 * GiB)
        assert result.sender_gbps == approx(4.67)
        assert result.throughput_gbps == approx(4.67)

    def test_windows_has_no_retransmit_column(self, result: BenchResult) -> None:
        assert result.retransmits is None
        assert result.interval_retransmits == ()


class TestFreekdsUdpInterrupted:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "freekds_udp_interrupted.txt")

    def test_378_intervals_with_a_partial_last_one(self, result: BenchResult) -> None:
        assert result.intervals == 378
        assert (result.interval_start_s[0], result.interval_end_s[0]) == (0.0, 1.02)
        assert (result.interval_start_s[-1], result.interval_end_s[-1]) == (377.01, 377.55)

    def test_kbits_lines_are_converted_per_line(self, result: BenchResult) -> None:
        assert result.interval_gbps[1] == approx(992e3 / 1e9)
        kbit_range = [v for v in result.interval_gbps if v < 1e-3]
        assert len(kbit_range) == 22

    def test_summary(self, result: BenchResult) -> None:
        assert result.duration_s == approx(377.55)
        assert result.bytes_sent == approx(47.2 * MiB)
        assert result.sender_gbps == approx(1.05e-3)
        assert result.jitter_ms == 0.0
        assert (result.lost_packets, result.packets, result.lost_percent) == (0, 6041, 0.0)
        assert result.packets_sent == 6041

    def test_interrupt_without_done_is_an_error(self, result: BenchResult) -> None:
        assert result.error is not None and result.error.code == "iperf3_interrupted"
        assert result.throughput_gbps is None
        assert not result.truncated


class TestFreekdsTcpInterrupted:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "freekds_tcp_interrupted.txt")

    def test_405_intervals_without_retr(self, result: BenchResult) -> None:
        assert result.intervals == 405
        assert (result.interval_start_s[-1], result.interval_end_s[-1]) == (404.0, 404.79)
        assert result.interval_retransmits == ()

    def test_sender_summary(self, result: BenchResult) -> None:
        assert result.bytes_sent == 614 * MiB
        assert result.sender_gbps == approx(12.7e-3)

    def test_zero_receiver_is_missing_not_zero(self, result: BenchResult) -> None:
        assert result.bytes_received == 0.0
        assert result.throughput_gbps is None
        assert result.error is not None and result.error.code == "iperf3_interrupted"


class TestSelfhealingUdp:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "selfhealing_note_udp_10pct_loss_3.1.3.txt")

    def test_ids_with_a_space_before_the_bracket(self, result: BenchResult) -> None:
        assert [s.label for s in result.series] == ["stream 4"]

    def test_one_interval(self, result: BenchResult) -> None:
        assert (result.interval_start_s, result.interval_end_s) == ((0.0,), (0.70,))
        assert result.interval_bytes == (approx(7.81 * MiB),)
        assert result.interval_sent_gbps == (approx(93.2e-3),)
        assert result.interval_gbps == (approx(93.2e-3 * (1 - 102 / 996)),)
        assert result.interval_packets == (1000,)

    def test_summary(self, result: BenchResult) -> None:
        assert result.jitter_ms == approx(0.093)
        assert (result.lost_packets, result.packets) == (102, 996)
        assert result.lost_percent == approx(100 * 102 / 996)
        assert result.packets_sent == 996


class TestLocalP2:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "local_3.12_tcp_P2.txt")

    def test_two_streams_three_intervals(self, result: BenchResult) -> None:
        assert (result.test, result.streams, result.intervals) == ("tcp", 2, 3)

    def test_sum_interval_rates_and_retransmits(self, result: BenchResult) -> None:
        assert result.interval_gbps == (21.2, 21.8, 20.9)
        assert result.interval_retransmits == (26, 2, 4)

    def test_sum_sender_line(self, result: BenchResult) -> None:
        assert result.bytes_sent == approx(7.44 * GiB)
        assert result.sender_gbps == approx(21.3)
        assert result.retransmits == 32

    def test_sum_receiver_line(self, result: BenchResult) -> None:
        assert result.bytes_received == approx(7.44 * GiB)
        assert result.throughput_gbps == approx(21.3)


class TestLocalUdp2G:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "local_3.12_udp_2G.txt")

    def test_three_intervals_at_2g(self, result: BenchResult) -> None:
        assert result.interval_sent_gbps == (2.0, 2.0, 2.0)
        # received 663 MBytes of the 715 MBytes sent
        assert result.interval_gbps == (approx(2.0 * 663 / 715),) * 3

    def test_sender_line(self, result: BenchResult) -> None:
        assert result.bytes_sent == 715 * MiB
        assert result.sender_gbps == approx(2.0)
        assert result.packets_sent == 22882

    def test_receiver_line(self, result: BenchResult) -> None:
        assert result.bytes_received == 663 * MiB
        assert result.throughput_gbps == approx(1.85)
        assert result.jitter_ms == approx(0.011)
        assert (result.lost_packets, result.packets) == (1656, 22881)
        assert result.lost_percent == approx(7.2, abs=0.05)
        assert "udp_receiver_rate_estimated" not in _codes(result)


class TestLocalBidir:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "local_3.12_tcp_bidir.txt")

    def test_role_tags(self, result: BenchResult) -> None:
        assert result.direction == "bidir"
        assert [s.label for s in result.per_stream] == ["stream 5 TX-C", "stream 7 RX-C"]

    def test_tx_c(self, result: BenchResult) -> None:
        forward = result.per_direction[0]
        assert forward.label == "forward"
        assert forward.bytes_sent == forward.bytes_received == approx(1.34 * GiB)
        assert (forward.sender_gbps, forward.retransmits) == (approx(3.84), 11)
        assert forward.receiver_gbps == approx(3.83)

    def test_rx_c(self, result: BenchResult) -> None:
        reverse = result.per_direction[1]
        assert reverse.label == "reverse"
        assert reverse.bytes_sent == approx(5.05 * GiB)
        assert (reverse.sender_gbps, reverse.retransmits) == (approx(14.4), 11)
        assert reverse.bytes_received == approx(5.04 * GiB)
        assert reverse.receiver_gbps == approx(14.4)

    def test_throughput_is_the_lower_receiver_and_the_sum_is_kept(
        self, result: BenchResult
    ) -> None:
        assert (result.throughput_gbps, result.direction_used) == (approx(3.83), "forward")
        assert result.bidir_total_gbps == approx(3.83 + 14.4)
        assert result.interval_gbps == (approx(7.93), approx(1.68), approx(1.93))


class TestLocalReverse:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(T + "local_3.12_tcp_reverse.txt")

    def test_reverse_mode_line(self, result: BenchResult) -> None:
        assert result.direction == "reverse"

    def test_intervals_have_no_retr(self, result: BenchResult) -> None:
        assert result.interval_gbps == (18.1, 19.6, 18.3)
        assert result.interval_retransmits == ()

    def test_summary(self, result: BenchResult) -> None:
        assert (result.bytes_sent, result.sender_gbps) == (approx(6.51 * GiB), approx(18.6))
        assert result.retransmits == 6
        assert (result.bytes_received, result.throughput_gbps) == (approx(6.51 * GiB), 18.6)


def test_a_refused_connection_is_an_error_result(parse: Parse) -> None:
    result = parse(T + "local_3.12_error_refused.txt")
    assert result.error is not None and result.error.code == "iperf3_reported_error"
    assert "unable to connect to server: Connection refused" in result.error.en
    assert (result.test, result.intervals, result.throughput_gbps) == (None, 0, None)


class TestServerSide:
    @pytest.fixture
    def results(self, corpus: Callable[[str], Path]) -> tuple[BenchResult, ...]:
        with corpus(T + "local_3.12_server_side.txt").open("rb") as stream:
            return parse_all(stream, "local_3.12_server_side.txt")

    def test_nine_tests_and_no_result_for_the_idle_banner(
        self, results: tuple[BenchResult, ...]
    ) -> None:
        assert len(results) == 9
        assert all(r.role == "server" for r in results)

    def test_zero_length_last_intervals_are_excluded(
        self, results: tuple[BenchResult, ...]
    ) -> None:
        first = results[0]
        assert first.interval_gbps == (17.2, 15.2, 16.8)
        assert first.zero_length_intervals == 1
        assert "zero_length_intervals" in _codes(first)

    def test_a_normal_server_summary_has_only_the_receiver_line(
        self, results: tuple[BenchResult, ...]
    ) -> None:
        assert results[0].throughput_gbps == approx(16.4)
        assert results[0].sender_gbps is None

    def test_under_reverse_the_server_only_sends(self, results: tuple[BenchResult, ...]) -> None:
        reverse = results[4]
        assert reverse.direction == "reverse"
        assert (reverse.sender_gbps, reverse.retransmits) == (approx(14.4), 11)
        assert reverse.throughput_gbps is None

    def test_the_first_test_is_reported_with_a_warning(self, parse: Parse) -> None:
        result = parse(T + "local_3.12_server_side.txt")
        assert result.throughput_gbps == approx(16.4)
        assert "multiple_tests" in _codes(result)

    def test_server_stop_after_a_finished_test_is_not_its_error(
        self, results: tuple[BenchResult, ...]
    ) -> None:
        assert results[-1].error is None
        assert results[-1].sender_gbps == approx(18.6)
