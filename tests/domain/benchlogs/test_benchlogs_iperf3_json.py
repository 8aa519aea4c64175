"""iperf3 -J corpus files parse to the exact figures listed in corpus SOURCES.md."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytest import approx

from domain.benchlogs import BenchResult

Parse = Callable[[str], BenchResult]
J = "iperf3-json/"


def _header(result: BenchResult) -> dict[str, str]:
    return dict(result.header)


class TestIperf3011:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "iperf3-python_results_tcp_3.0.11.json")

    def test_it_is_a_single_stream_forward_tcp_test(self, result: BenchResult) -> None:
        assert (result.tool, result.test, result.direction) == ("iperf3", "tcp", "forward")
        assert result.streams == 1
        assert _header(result)["duration"] == "13"
        assert _header(result)["reverse"] == "0"

    def test_it_has_13_intervals(self, result: BenchResult) -> None:
        assert result.intervals == 13

    def test_sum_sent_figures_read_from_exponent_form(self, result: BenchResult) -> None:
        assert result.bytes_sent == 1520994808
        assert result.sender_gbps == approx(9.35992e8 / 1e9, rel=1e-12)
        assert result.retransmits == 0
        assert result.duration_s == approx(13.0001)

    def test_sum_received_is_the_throughput(self, result: BenchResult) -> None:
        assert result.bytes_received == 1518193248
        assert result.throughput_gbps == approx(9.34268e8 / 1e9, rel=1e-12)

    def test_interval_range_mixes_exponent_and_integer_forms(self, result: BenchResult) -> None:
        assert min(result.interval_gbps) == approx(9.27871e8 / 1e9, rel=1e-12)
        assert max(result.interval_gbps) == approx(9.50062e8 / 1e9, rel=1e-12)
        assert 930484800 / 1e9 in result.interval_gbps

    def test_missing_sender_keys_and_congestion_are_tolerated(self, result: BenchResult) -> None:
        assert "sender_tcp_congestion" not in _header(result)
        assert result.error is None and result.warnings == ()

    def test_remote_host_and_version(self, result: BenchResult) -> None:
        assert (result.peer, result.peer_port) == ("192.168.0.188", 9987)
        assert result.version == "3.0.11"


class TestIperf313Udp:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "selfhealing_note_udp_3.1.3.json")

    def test_block_bounded_udp_test(self, result: BenchResult) -> None:
        assert result.test == "udp"
        assert _header(result)["blksize"] == "8192"
        assert _header(result)["blocks"] == "10000"
        assert _header(result)["duration"] == "0"

    def test_one_interval(self, result: BenchResult) -> None:
        assert result.intervals == 1
        assert (result.interval_start_s[0], result.interval_end_s[0]) == (0, approx(0.785134))

    def test_end_sum_figures(self, result: BenchResult) -> None:
        assert result.bytes_sent == 81920000
        assert result.sender_gbps == approx(834711189.017002 / 1e9, rel=1e-12)
        assert result.jitter_ms == approx(0.092)
        assert result.lost_packets == 69
        assert result.packets == 9996
        assert result.lost_percent == approx(0.690276)

    def test_without_sum_received_the_received_rate_is_estimated(self, result: BenchResult) -> None:
        expected = 834711189.017002 / 1e9 * (1 - 0.690276 / 100)
        assert result.throughput_gbps == approx(expected, rel=1e-12)
        assert [w.code for w in result.warnings] == [
            "udp_receiver_rate_estimated",
            "udp_series_scaled",
        ]

    def test_end_stream_has_only_the_udp_key(self, result: BenchResult) -> None:
        assert [s.label for s in result.per_stream] == ["stream 4"]
        assert result.per_stream[0].receiver_gbps is None


class TestLocalSingle:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "local_3.12_tcp_single.json")

    def test_shape(self, result: BenchResult) -> None:
        assert (result.test, result.streams, result.intervals) == ("tcp", 1, 3)

    def test_sum_sent(self, result: BenchResult) -> None:
        assert result.bytes_sent == 6155141120
        assert result.sender_gbps == approx(16411231557.368172 / 1e9, rel=1e-12)
        assert result.retransmits == 26

    def test_sum_received(self, result: BenchResult) -> None:
        assert result.bytes_received == 6155141120
        assert result.throughput_gbps == approx(16411045593.598639 / 1e9, rel=1e-12)

    def test_congestion_control_is_recorded(self, result: BenchResult) -> None:
        assert _header(result)["sender_tcp_congestion"] == "bbr"


class TestLocalP4:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "local_3.12_tcp_P4.json")

    def test_four_streams_in_every_interval(self, result: BenchResult) -> None:
        assert result.streams == 4
        stream_series = [s for s in result.series if s.label.startswith("stream")]
        assert len(stream_series) == 4
        assert all(len(s.gbps) == 3 for s in stream_series)
        assert result.intervals == 3

    def test_sum_sent(self, result: BenchResult) -> None:
        assert result.bytes_sent == 5001314304
        assert result.sender_gbps == approx(13332571721.049263 / 1e9, rel=1e-12)
        assert result.retransmits == 0

    def test_sum_received(self, result: BenchResult) -> None:
        assert result.bytes_received == 5001314304
        assert result.throughput_gbps == approx(13332362914.181807 / 1e9, rel=1e-12)

    def test_interval_sums_are_unstable(self, result: BenchResult) -> None:
        assert min(result.interval_gbps) == approx(9.9959, rel=1e-4)
        assert max(result.interval_gbps) == approx(15.3001, rel=1e-5)


class TestLocalUdp:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "local_3.12_udp_500M.json")

    def test_test_parameters(self, result: BenchResult) -> None:
        assert result.test == "udp"
        assert _header(result)["target_bitrate"] == "500000000"
        assert _header(result)["blksize"] == "32768"
        assert result.intervals == 3

    def test_loss_and_jitter_are_the_receivers(self, result: BenchResult) -> None:
        assert result.jitter_ms == approx(0.013335226528397736, rel=1e-12)
        assert result.lost_packets == 18
        assert result.packets == 5721
        assert result.lost_percent == approx(0.3146303093864709, rel=1e-12)

    def test_sender_side(self, result: BenchResult) -> None:
        assert result.sender_gbps == approx(499887612.72026575 / 1e9, rel=1e-12)
        assert result.packets_sent == 5721

    def test_sum_received_is_the_throughput(self, result: BenchResult) -> None:
        assert result.bytes_received == 186875904
        assert result.throughput_gbps == approx(498301361.20607674 / 1e9, rel=1e-12)

    def test_out_of_order(self, result: BenchResult) -> None:
        assert result.out_of_order == 0


class TestLocalBidir:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "local_3.12_tcp_bidir.json")

    def test_bidir_is_detected_without_a_flag(self, result: BenchResult) -> None:
        assert result.direction == "bidir"
        assert "bidir" not in _header(result)

    def test_two_sockets_and_two_directions_per_interval(self, result: BenchResult) -> None:
        labels = [s.label for s in result.series]
        assert labels == ["forward", "reverse", "stream 5", "stream 7"]
        assert result.intervals == 3

    def test_forward_direction(self, result: BenchResult) -> None:
        forward = result.per_direction[0]
        assert forward.label == "forward"
        assert forward.sender_gbps == approx(10296800087.19817 / 1e9, rel=1e-12)
        assert forward.retransmits == 50
        assert forward.receiver_gbps == approx(10273567526.001537 / 1e9, rel=1e-12)

    def test_reverse_direction(self, result: BenchResult) -> None:
        reverse = result.per_direction[1]
        assert reverse.label == "reverse"
        assert reverse.sender_gbps == approx(4334023118.847837 / 1e9, rel=1e-12)
        assert reverse.retransmits == 20
        assert reverse.receiver_gbps == approx(4333952929.074958 / 1e9, rel=1e-12)

    def test_throughput_is_the_lower_direction_and_the_sum_is_kept(
        self, result: BenchResult
    ) -> None:
        # sum_received_bidir_reverse 4.3340 < sum_received 10.2736 Gbit/s
        assert result.throughput_gbps == approx(4333952929.074958 / 1e9, rel=1e-12)
        assert result.direction_used == "reverse"
        assert result.bidir_total_gbps == approx(14607520455.076495 / 1e9, rel=1e-12)
        assert result.sender_gbps == approx(4334023118.847837 / 1e9, rel=1e-12)
        assert "bidir_one_direction" in [w.code for w in result.warnings]

    def test_interval_series_is_the_direction_used(self, result: BenchResult) -> None:
        assert result.interval_gbps[0] == approx(2792148525.3235669 / 1e9, rel=1e-12)
        forward = next(s for s in result.series if s.label == "forward")
        assert forward.gbps[0] == approx(12634393439.785572 / 1e9, rel=1e-12)


class TestLocalReverse:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "local_3.12_tcp_reverse.json")

    def test_reverse_single_stream(self, result: BenchResult) -> None:
        assert result.direction == "reverse"
        assert _header(result)["reverse"] == "1"
        assert (result.streams, result.intervals) == (1, 3)

    def test_sum_sent_from_the_remote_sender(self, result: BenchResult) -> None:
        assert result.sender_gbps == approx(14370407577.8396 / 1e9, rel=1e-12)
        assert result.retransmits == 11

    def test_sum_received_is_the_throughput(self, result: BenchResult) -> None:
        assert result.throughput_gbps == approx(14370465548.643093 / 1e9, rel=1e-12)
        assert result.throughput_gbps > result.sender_gbps  # the two `seconds` differ


class TestLocalRefused:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "local_3.12_error_refused.json")

    def test_the_error_field_fails_the_result(self, result: BenchResult) -> None:
        assert result.error is not None
        assert result.error.code == "iperf3_reported_error"
        assert "unable to connect to server: Connection refused" in result.error.en
        assert result.error.zh

    def test_empty_intervals_end_and_connections(self, result: BenchResult) -> None:
        assert result.intervals == 0
        assert result.throughput_gbps is None and result.sender_gbps is None
        assert result.streams is None

    def test_version(self, result: BenchResult) -> None:
        assert result.version == "3.12"


class TestLocalInterrupted:
    @pytest.fixture
    def result(self, parse: Parse) -> BenchResult:
        return parse(J + "local_3.12_tcp_interrupted_sigint.json")

    def test_the_interrupt_is_an_error(self, result: BenchResult) -> None:
        assert result.error is not None and result.error.code == "iperf3_interrupted"
        assert "interrupt - the client has terminated" in result.error.en

    def test_only_three_of_ten_seconds_ran(self, result: BenchResult) -> None:
        assert _header(result)["duration"] == "10"
        assert result.intervals == 3

    def test_sender_figures_survive(self, result: BenchResult) -> None:
        assert result.duration_s == approx(2.498315)
        assert result.bytes_sent == 6053822464
        assert result.sender_gbps == approx(19385297575.3658 / 1e9, rel=1e-12)
        assert result.retransmits == 15

    def test_zero_receiver_is_not_reported_as_zero_throughput(self, result: BenchResult) -> None:
        assert result.bytes_received == 0
        assert result.throughput_gbps is None
        assert "receiver_figures_missing" in [w.code for w in result.warnings]

    def test_no_receiver_congestion(self, result: BenchResult) -> None:
        assert "receiver_tcp_congestion" not in _header(result)
