"""Public iperf3 outputs of versions other than the corpus' 3.12, read as iperf3 printed them.

Every file in data/public_iperf3/ is real output copied unchanged from a public repository or
page; data/public_iperf3/SOURCES.md gives each one's origin, command and the figures iperf3
printed. Text rates are printed with three significant digits, so they are compared with a
tolerance of half a unit in the last printed digit; JSON figures are exact.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchResult, detect, parse_path

DATA = Path(__file__).resolve().parents[1] / "data" / "public_iperf3"
MBIT = 1e-3  # Mbits/sec → Gbit/s


def _parse(name: str) -> BenchResult:
    path = DATA / name
    assert path.is_file(), f"missing public iperf3 file {name}"
    return parse_path(path)


def _codes(result: BenchResult) -> list[str]:
    return [warning.code for warning in result.warnings]


def _printed(value: float, digits: float) -> object:
    """A figure iperf3 printed rounded to ``digits`` (its last printed place)."""
    return approx(value, abs=digits / 2)


def _direction(result: BenchResult, label: str) -> tuple[float | None, float | None]:
    summary = next(s for s in result.per_direction if s.label == label)
    return summary.receiver_gbps, summary.sender_gbps


def test_every_file_is_listed_in_sources() -> None:
    listed = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    names = sorted(p.name for p in DATA.iterdir() if p.name != "SOURCES.md")
    assert len(names) >= 10
    assert [name for name in names if f"`{name}`" not in listed] == []


# --- text ----------------------------------------------------------------------------------------


def test_3_1_6_verbose_tcp_bandwidth_header() -> None:
    result = _parse("blog_3.1.6_tcp_verbose_t3.txt")
    assert (result.version, result.role, result.test, result.direction) == (
        "3.1.6",
        "client",
        "tcp",
        "forward",
    )
    assert result.throughput_gbps == _printed(14.7, 0.1)
    assert result.sender_gbps == _printed(14.7, 0.1)
    assert result.retransmits == 0
    assert result.interval_gbps == approx((14.6, 14.8, 14.8))
    assert result.duration_s == approx(3.0)
    assert result.error is None and not result.truncated
    assert _codes(result) == []


def test_3_5_udp_reverse_with_server_output() -> None:
    result = _parse("wireguard_3.5_udp_R_get_server_output.txt")
    assert (result.test, result.direction, result.role) == ("udp", "reverse", "client")
    assert result.throughput_gbps == _printed(90.4 * MBIT, 0.1 * MBIT)
    assert result.sender_gbps == _printed(745 * MBIT, 1 * MBIT)
    assert (result.lost_packets, result.packets) == (1796264, 2043994)
    assert result.lost_percent == approx(100 * 1796264 / 2043994)
    assert round(result.lost_percent) == 88  # printed "(88%)"
    assert result.jitter_ms == approx(0.051)
    assert result.interval_gbps == approx((0.0904, 0.0903, 0.0904))
    assert result.error is None and not result.truncated
    assert _codes(result) == []
    # The server's own report (iperf 3.5+): it sent; its receiver line is "not available".
    server = result.server
    assert server is not None
    assert (server.role, server.test, server.direction, server.version) == (
        "server",
        "udp",
        "reverse",
        "3.5+",
    )
    assert server.sender_gbps == _printed(745 * MBIT, 1 * MBIT)
    assert server.throughput_gbps is None
    assert server.intervals == 31
    assert server.interval_packets[:2] == (37484, 63771)
    assert _codes(server) == ["receiver_figures_missing"]  # not "skipped lines"


def test_bidir_summary_both_directions() -> None:
    result = _parse("framework_aqc107_tcp_bidir_t30.txt")
    assert result.direction == "bidir"
    assert _direction(result, "forward") == (approx(5.79), approx(5.79))
    assert _direction(result, "reverse") == (approx(5.78), approx(5.78))
    assert result.throughput_gbps == _printed(5.78, 0.01)
    assert result.direction_used == "reverse"
    assert result.bidir_total_gbps == approx(5.79 + 5.78)
    assert result.retransmits == 124  # 0 on TX-C, 124 on RX-C (the server's sender)
    assert result.intervals == 30
    assert result.interval_gbps[:3] == approx((6.04, 5.93, 5.77))  # RX-C, the lower way
    assert result.error is None and not result.truncated


def test_bidir_cut_before_its_summary_is_one_direction() -> None:
    """No summary: the throughput is the lower direction's mean, never both added."""
    result = _parse("sigyn_wifi_tcp_bidir_cut_no_summary.txt")
    forward = (127 + 106 + 79.7 + 94.4 + 57.7) / 5 * MBIT
    reverse = (56.3 + 99.6 + 69.2 + 117 + 178) / 5 * MBIT
    assert result.direction == "bidir"
    assert result.intervals == 5
    assert _direction(result, "forward")[0] == approx(forward)
    assert _direction(result, "reverse")[0] == approx(reverse)
    assert result.throughput_gbps == approx(forward)
    assert result.direction_used == "forward"
    assert result.bidir_total_gbps == approx(forward + reverse)
    assert result.interval_gbps == approx((0.127, 0.106, 0.0797, 0.0944, 0.0577))
    assert result.retransmits == 15
    assert result.truncated
    assert "throughput_from_intervals" in _codes(result)


def test_3_16_server_test_number_and_ctrl_c() -> None:
    result = _parse("passt_3.16plus_server_test1_then_ctrl_c.txt")
    assert (result.role, result.test, result.direction) == ("server", "tcp", "forward")
    assert result.throughput_gbps == _printed(8.78, 0.01)
    assert result.intervals == 11
    assert result.interval_gbps[-1] == approx(6.36)  # the 10.00-10.04 tail
    assert result.error is None and not result.truncated


def test_udp_server_with_a_zero_length_tail() -> None:
    name = "udpforward_win_server_udp_b100G_test1.txt"
    assert detect((DATA / name).read_bytes()[:4096]) == "iperf3_text"
    result = _parse(name)
    assert (result.role, result.test) == ("server", "udp")
    assert result.throughput_gbps == _printed(49.4, 0.1)
    assert (result.lost_packets, result.packets) == (7472, 951397)
    assert result.jitter_ms == approx(0.013)
    assert result.intervals == 10  # "10.01-10.01" is left out, with a warning
    assert result.zero_length_intervals == 1
    assert _codes(result) == ["zero_length_intervals"]


# --- JSON ----------------------------------------------------------------------------------------


def test_3_16_json_error_after_a_command_line() -> None:
    result = _parse("picow_3.16_macos_json_error_control_socket.json")
    assert result.version == "3.16"
    assert result.throughput_gbps is None
    assert result.error is not None
    assert "control socket has closed unexpectedly" in result.error.en
    assert result.error.zh


def test_3_14_macos_json_without_retransmits() -> None:
    result = _parse("oxide_3.14_macos_tcp.json")
    assert (result.version, result.test, result.role) == ("3.14", "tcp", "client")
    assert result.throughput_gbps == approx(204737447.4407 / 1e9)
    assert result.sender_gbps == approx(204765977.5822317 / 1e9)
    assert result.retransmits is None  # macOS reports none
    assert result.intervals == 10
    assert result.interval_gbps[0] == approx(207270487.48337844 / 1e9)
    assert result.error is None and _codes(result) == []


def test_3_9_json_crlf_receiver_got_nothing() -> None:
    result = _parse("cloudpilot_3.9_tcp_n10K_receiver_zero.json")
    assert result.version == "3.9"
    assert result.sender_gbps == approx(1387803.2571441371 / 1e9)
    assert result.throughput_gbps is None  # sum_received printed 0 bytes
    assert result.intervals == 1
    assert result.retransmits == 0
    assert _codes(result) == ["receiver_figures_missing"]


# --- --json-stream interval events ---------------------------------------------------------------


def test_json_stream_tcp_bidir_interval_is_one_direction() -> None:
    result = _parse("omnt_android_jsonstream_tcp_bidir_one_interval.jsonl")
    forward, reverse = 31473171298.031265 / 1e9, 29513829576.759514 / 1e9
    assert result.direction == "bidir"
    assert _direction(result, "forward")[0] == approx(forward)
    assert _direction(result, "reverse")[0] == approx(reverse)
    assert result.throughput_gbps == approx(reverse)
    assert result.direction_used == "reverse"
    assert result.bidir_total_gbps == approx(forward + reverse)
    assert result.interval_gbps == approx((reverse,))
    assert result.retransmits == 0
    assert "throughput_from_intervals" in _codes(result)


def test_json_stream_udp_bidir_tie_takes_forward() -> None:
    result = _parse("omnt_android_jsonstream_udp_bidir_one_interval.jsonl")
    rate = 1081247.7156053118 / 1e9
    assert result.throughput_gbps == approx(rate)
    assert result.direction_used == "forward"
    assert result.bidir_total_gbps == approx(2 * rate)


@pytest.mark.parametrize(
    ("name", "gbps"),
    [("omnt_android_jsonstream_udp_reverse_one_interval.jsonl", 1081340.7773533543 / 1e9)],
)
def test_json_stream_single_interval(name: str, gbps: float) -> None:
    result = _parse(name)
    assert result.throughput_gbps == approx(gbps)
    assert result.interval_start_s == approx((1.00107,))
    assert result.intervals == 1
    assert _codes(result) == ["throughput_from_intervals"]
