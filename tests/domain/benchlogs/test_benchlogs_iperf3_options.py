"""iperf3 3.12 options that change how the output looks.

Every file was recorded on the build machine over loopback; origins and exact command lines are
in data/fidelity/SOURCES.md ("iperf3 option variants"). Each test asserts the figures iperf3
itself printed in that file.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from pytest import approx

import domain.benchlogs.iperf3_json as iperf3_json
from domain.benchlogs import BenchResult, detect, parse_all, parse_stream

Parse = Callable[[str], BenchResult]
T = "iperf3-text/local_3.12_"
J = "iperf3-json/local_3.12_"
MIB = 1024.0**2


class _Unseekable(io.RawIOBase):
    """An upload stream that cannot seek: the streaming (ijson) path reads it."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _codes(result: BenchResult) -> list[str]:
    return [w.code for w in result.warnings]


def _labels(result: BenchResult) -> list[str]:
    return [summary.label for summary in result.per_stream]


def _direction(result: BenchResult, label: str) -> tuple[float | None, float | None]:
    summary = next(s for s in result.per_direction if s.label == label)
    return summary.receiver_gbps, summary.sender_gbps


# --- --timestamps: a date in front of every line, in any strftime format --------------------


def test_timestamps_default_format_reverse_p2(parse: Parse, corpus: Callable) -> None:
    head = corpus(T + "tcp_reverse_P2_timestamps.txt").read_bytes()[:4096]
    assert detect(head) == "iperf3_text"
    result = parse(T + "tcp_reverse_P2_timestamps.txt")
    assert result.direction == "reverse"
    assert result.streams == 2
    assert result.throughput_gbps == approx(1.60)  # [SUM] receiver 1.60 Gbits/sec
    assert result.sender_gbps == approx(1.60)
    assert result.interval_gbps == approx((1.60, 1.60, 1.60))
    assert [s.receiver_gbps for s in result.per_stream] == approx([0.800, 0.800])
    assert result.error is None and not result.truncated
    assert _codes(result) == []


def test_timestamps_custom_format(parse: Parse) -> None:
    # --timestamps='%H:%M:%S ': "01:03:10 [SUM] ..."
    result = parse(T + "tcp_P2_timestamps_format.txt")
    assert result.streams == 2
    assert result.throughput_gbps == approx(0.999)
    assert result.sender_gbps == approx(1.00)
    assert result.interval_gbps == approx((0.998, 1.00, 1.00))
    assert result.retransmits == 0
    assert not result.truncated


def test_timestamps_udp(parse: Parse) -> None:
    result = parse(T + "udp_timestamps.txt")
    assert result.test == "udp"
    assert result.throughput_gbps == approx(0.299)
    assert (result.lost_packets, result.packets) == (10, 3433)
    assert result.jitter_ms == approx(0.011)
    assert result.interval_sent_gbps == approx((0.300, 0.300, 0.300))


def test_timestamps_bidir(parse: Parse) -> None:
    result = parse(T + "tcp_bidir_timestamps.txt")
    assert result.direction == "bidir"
    assert _direction(result, "forward") == approx((0.400, 0.400))
    assert _direction(result, "reverse") == approx((0.400, 0.400))
    assert result.bidir_total_gbps == approx(0.800)
    assert result.intervals == 3


def test_timestamps_server_side(parse: Parse) -> None:
    result = parse(T + "server_P2_timestamps.txt")
    assert result.role == "server"
    assert result.streams == 2
    assert result.throughput_gbps == approx(2.00)  # [SUM] receiver 2.00 Gbits/sec
    assert result.interval_gbps == approx((2.00, 2.00))


def test_timestamps_logfile(parse: Parse) -> None:
    result = parse(T + "tcp_logfile_timestamps.txt")
    assert result.throughput_gbps == approx(1.000)
    assert result.interval_gbps == approx((0.999, 1.00))
    assert not result.truncated


# --- --get-server-output: the server's report is the other end of the same test -------------


def test_server_output_is_kept_apart(parse: Parse, corpus: Callable) -> None:
    result = parse(T + "tcp_gso.txt")
    assert result.streams == 1
    assert result.throughput_gbps == approx(1.000)  # receiver 1000 Mbits/sec
    assert result.interval_gbps == approx((0.999, 1.00, 1.00))
    assert _labels(result) == ["stream 5"]
    assert "multiple_tests" not in _codes(result)
    server = result.server
    assert server is not None and server.role == "server"
    assert server.throughput_gbps == approx(1.000)
    assert server.streams == 1
    assert server.intervals == 3
    assert len(parse_all(corpus(T + "tcp_gso.txt").open("rb"))) == 1


def test_server_output_reverse(parse: Parse) -> None:
    result = parse(T + "tcp_reverse_gso.txt")
    assert result.direction == "reverse"
    assert result.throughput_gbps == approx(1.00)
    assert result.intervals == 2
    assert _codes(result) == []
    server = result.server
    assert server is not None
    assert server.direction == "reverse"
    assert server.sender_gbps == approx(1.00)  # the server only printed its sender line
    assert server.throughput_gbps is None


def test_server_output_parallel(parse: Parse) -> None:
    result = parse(T + "tcp_P2_gso.txt")
    assert result.streams == 2
    assert result.throughput_gbps == approx(1.00)
    assert _labels(result) == ["stream 5", "stream 7"]
    assert result.server is not None
    assert result.server.streams == 2
    assert result.server.throughput_gbps == approx(1.00)


def test_server_output_udp_gives_the_received_series(parse: Parse) -> None:
    result = parse(T + "udp_gso.txt")
    assert result.throughput_gbps == approx(0.200)
    assert (result.lost_packets, result.packets) == (0, 1526)
    assert "multiple_tests" not in _codes(result)
    assert "udp_receiver_series" in _codes(result)
    assert result.server is not None
    assert result.interval_gbps == result.server.interval_gbps == approx((0.200, 0.200))


def test_server_output_udp_reverse(parse: Parse) -> None:
    result = parse(T + "udp_reverse_gso.txt")
    assert result.direction == "reverse"
    assert result.throughput_gbps == approx(0.200)
    assert result.server is not None
    # the server's table counts datagrams sent: it is the sending end
    assert result.server.direction == "reverse"
    assert result.server.sender_gbps == approx(0.200)


def test_server_output_bidir_keeps_the_client_lines_printed_after_it(parse: Parse) -> None:
    # 3.12 prints the client's RX-C summary after the server's output.
    result = parse(T + "tcp_bidir_gso.txt")
    assert _direction(result, "forward") == approx((0.300, 0.300))
    assert _direction(result, "reverse") == approx((0.300, 0.300))
    assert result.bidir_total_gbps == approx(0.600)
    assert _labels(result) == ["stream 5 TX-C", "stream 7 RX-C"]
    server = result.server
    assert server is not None
    assert [s.label for s in server.per_stream] == ["stream 5 RX-S", "stream 8 TX-S"]


def test_server_output_with_timestamps_on_both_ends(parse: Parse) -> None:
    result = parse(T + "tcp_gso_timestamps.txt")
    assert result.throughput_gbps == approx(0.998)
    assert result.server is not None and result.server.throughput_gbps == approx(0.998)
    # client "%c " prefix, server "%s " prefix (epoch seconds) inside the section
    result = parse(T + "tcp_gso_two_timestamp_formats.txt")
    assert result.throughput_gbps == approx(1.000)
    assert result.interval_gbps == approx((0.999, 1.00))
    assert result.server is not None
    assert result.server.throughput_gbps == approx(1.000)
    assert result.server.interval_gbps == approx((0.999, 1.00))


# --- -V -J: stderr lines in front of the JSON document --------------------------------------


def test_verbose_json_skips_the_leading_lines(parse: Parse, corpus: Callable) -> None:
    data = corpus(J + "tcp_verbose.json").read_bytes()
    assert data.startswith(b"warning: Verbose output")
    assert detect(data[:65536]) == "iperf3_json"
    result = parse(J + "tcp_verbose.json")
    assert result.throughput_gbps == approx(999601801.8117096 / 1e9)
    assert result.sender_gbps == approx(999775725.3073997 / 1e9)
    assert result.intervals == 2
    assert result.version == "3.12"
    assert result.error is None


def test_verbose_json_uses_the_fast_path(corpus: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[bool] = []
    real = iperf3_json.parse_iperf3_json_fast

    def spy(stream: object) -> BenchResult | None:
        result = real(stream)
        used.append(result is not None)
        return result

    monkeypatch.setattr(iperf3_json, "parse_iperf3_json_fast", spy)
    data = corpus(J + "tcp_verbose.json").read_bytes()
    fast = parse_stream(io.BytesIO(data), "v.json")
    assert used == [True]
    # the same document read by the streaming path, and as UTF-16 from Windows
    slow = parse_stream(io.BufferedReader(_Unseekable(data)), "v.json")
    utf16 = parse_stream(io.BytesIO(data.decode().encode("utf-16")), "v.json")
    assert fast.throughput_gbps == slow.throughput_gbps == utf16.throughput_gbps


def test_verbose_json_with_server_output(parse: Parse) -> None:
    result = parse(J + "tcp_verbose_gso.json")
    assert result.throughput_gbps == approx(500068737.9774526 / 1e9)
    assert result.server is not None
    assert result.server.throughput_gbps == approx(0.500)


def test_logfile_json(parse: Parse) -> None:
    assert parse(J + "tcp_logfile.json").throughput_gbps == approx(999739736.170447 / 1e9)


def test_verbose_text_reverse(parse: Parse) -> None:
    result = parse(T + "tcp_reverse_verbose.txt")
    assert result.direction == "reverse"
    assert result.version == "3.12"
    assert result.throughput_gbps == approx(0.501)
    assert result.sender_gbps == approx(0.500)
    assert result.interval_gbps == approx((0.501, 0.500))


# --- -f: forced units -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "printed"),
    [("tcp_f_t.txt", "0.00 Tbits/sec"), ("tcp_f_T.txt", "0.00 TBytes/sec"),
     ("tcp_f_G.txt", "0.12 GBytes/sec")],
)  # fmt: skip
def test_forced_unit_that_rounds_the_rate_away_uses_the_transfer(
    parse: Parse, corpus: Callable, name: str, printed: str
) -> None:
    # Receiver line "0.00-2.00 sec 238 MBytes <printed>": the transfer column still has
    # three significant digits, the rate has none (or two).
    assert f"238 MBytes  {printed}" in corpus(T + name).read_text()
    result = parse(T + name)
    assert result.throughput_gbps == approx(238 * MIB * 8 / 2 / 1e9)
    assert result.interval_gbps == approx((119 * MIB * 8 / 1e9,) * 2)


def test_forced_kbits(parse: Parse) -> None:
    result = parse(T + "tcp_f_k.txt")
    assert result.throughput_gbps == approx(999746e3 / 1e9)  # 999746 Kbits/sec
    assert result.sender_gbps == approx(999761e3 / 1e9)


def test_forced_kbytes_udp(parse: Parse) -> None:
    result = parse(T + "udp_f_K.txt")
    assert result.throughput_gbps == approx(36606 * 1024 * 8 / 1e9)  # 36606 KBytes/sec
    assert (result.lost_packets, result.packets) == (0, 2288)


# --- other options: read as printed, kept so --------------------------------------------------


def test_udp_reverse(parse: Parse) -> None:
    result = parse(T + "udp_reverse.txt")
    assert result.direction == "reverse"
    assert result.throughput_gbps == approx(0.300)
    assert (result.lost_packets, result.packets) == (5, 3433)
    assert result.jitter_ms == approx(0.016)
    assert result.interval_gbps == approx((0.300, 0.300, 0.299))


def test_udp_reverse_parallel(parse: Parse) -> None:
    result = parse(T + "udp_reverse_P2.txt")
    assert result.streams == 2
    assert result.throughput_gbps == approx(0.400)
    assert (result.lost_packets, result.packets) == (0, 4576)
    assert result.interval_gbps == approx((0.400, 0.400, 0.400))


def test_bidir_parallel(parse: Parse) -> None:
    result = parse(T + "tcp_bidir_P2.txt")
    assert result.streams == 2
    assert _direction(result, "forward") == approx((1.00, 1.00))
    assert _direction(result, "reverse") == approx((1.00, 1.00))
    assert result.bidir_total_gbps == approx(2.00)
    assert result.interval_gbps == approx((1.00, 1.00, 1.00))


def test_bidir_udp(parse: Parse) -> None:
    result = parse(T + "udp_bidir.txt")
    assert _direction(result, "forward") == approx((0.300, 0.300))
    assert _direction(result, "reverse") == approx((0.299, 0.300))
    assert result.direction_used == "reverse"
    assert result.throughput_gbps == approx(0.299)


def test_omitted_interval_with_parallel_streams(parse: Parse) -> None:
    result = parse(T + "tcp_P2_omit1.txt")
    assert result.omitted_intervals == 1
    assert result.intervals == 3
    assert result.interval_gbps == approx((1.00, 1.00, 0.998))
    assert result.throughput_gbps == approx(1.000)
    assert "omitted_intervals" in _codes(result)


def test_a_bracketed_timestamp_format_is_learned_too(corpus: Callable) -> None:
    # --timestamps='[%F %T] ' would print "[2026-12-04 01:03:10] [  5] ...": the real
    # '%H:%M:%S ' log with only its prefixes rewritten that way.
    lines = corpus(T + "tcp_P2_timestamps_format.txt").read_text().splitlines(keepends=True)
    assert all(line[2] == ":" and line[8] == " " for line in lines)
    data = "".join(f"[2026-12-04 {line[:8]}] {line[9:]}" for line in lines)
    assert detect(data.encode()) == "iperf3_text"
    result = parse_stream(io.BytesIO(data.encode()), "ts.txt")
    assert result.streams == 2
    assert result.throughput_gbps == approx(0.999)
    assert result.interval_gbps == approx((0.998, 1.00, 1.00))


def test_timestamps_without_a_separator_and_half_second_intervals(parse: Parse) -> None:
    # --timestamps=%s. prints "1796346817.[  5]   0.00-0.50 ..."
    result = parse(T + "tcp_reverse_i05_timestamps_epoch.txt")
    assert result.direction == "reverse"
    assert result.intervals == 4
    assert result.interval_end_s == approx((0.5, 1.0, 1.5, 2.0))
    assert result.throughput_gbps == approx(1.00)


def test_server_output_udp_parallel(parse: Parse) -> None:
    result = parse(T + "udp_P2_gso.txt")
    assert result.streams == 2
    assert result.throughput_gbps == approx(0.200)  # [SUM] receiver 200 Mbits/sec
    assert (result.lost_packets, result.packets) == (0, 1526)  # not 0/3052: counted once
    assert result.jitter_ms == approx(0.082)
    assert result.server is not None and result.server.streams == 2
    assert result.interval_gbps == result.server.interval_gbps == approx((0.200, 0.200))


def test_server_output_when_the_client_prints_no_intervals(parse: Parse) -> None:
    # -i 0: the client prints one 0.00-2.00 block, the server its own 1-second intervals.
    result = parse(T + "tcp_P2_i0_gso.txt")
    assert result.intervals == 1
    assert result.throughput_gbps == approx(1.00)
    assert result.server is not None
    assert result.server.intervals == 2
    assert result.server.throughput_gbps == approx(1.00)


def test_forced_mbits_parallel(parse: Parse) -> None:
    result = parse(T + "tcp_P2_f_m.txt")
    assert result.throughput_gbps == approx(1.000)  # [SUM] 1000 Mbits/sec
    assert [s.receiver_gbps for s in result.per_stream] == approx([0.500, 0.500])


def test_forced_mbytes_bidir(parse: Parse) -> None:
    result = parse(T + "tcp_bidir_f_M.txt")
    each_way = 35.7 * MIB * 8 / 1e9  # 35.7 MBytes/sec: binary prefix
    assert _direction(result, "forward")[0] == approx(each_way)
    assert _direction(result, "reverse")[0] == approx(each_way)
    assert result.throughput_gbps == approx(each_way)


def test_forced_kbytes_parallel(parse: Parse) -> None:
    result = parse(T + "tcp_P3_f_K.txt")
    assert result.streams == 3
    assert result.throughput_gbps == approx(109799 * 1024 * 8 / 1e9)  # [SUM] 109799 KBytes/sec
