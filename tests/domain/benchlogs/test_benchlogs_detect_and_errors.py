"""Detection of every corpus file, and the errors raised for logs that cannot be used."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from domain.benchlogs import BenchLogError, BenchResult, detect, parse_stream
from domain.benchlogs.detect import (
    IPERF3_JSON,
    IPERF3_JSON_STREAM,
    IPERF3_TEXT,
    NCCL_TESTS,
    PERFTEST_BW,
    PERFTEST_LAT,
)

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"

EXPECTED = {
    "iperf3-json": IPERF3_JSON,
    "iperf3-text": IPERF3_TEXT,
    "ib_write_bw": PERFTEST_BW,
    "ib_read_bw": PERFTEST_BW,
    "ib_send_bw": PERFTEST_BW,
    "ib_atomic_bw": PERFTEST_BW,
    "ib_write_lat": PERFTEST_LAT,
    "ib_read_lat": PERFTEST_LAT,
    "ib_send_lat": PERFTEST_LAT,
    "nccl-tests": NCCL_TESTS,
}
ALL_FILES = sorted(p for p in CORPUS.glob("*/*") if p.is_file())


def _parse(data: bytes, name: str = "") -> BenchResult:
    return parse_stream(io.BytesIO(data), name)


def _code(data: bytes, name: str = "") -> str:
    with pytest.raises(BenchLogError) as caught:
        _parse(data, name)
    assert caught.value.message.en and caught.value.message.zh
    return caught.value.code


def test_the_corpus_has_all_69_files() -> None:
    assert len(ALL_FILES) == 93  # 35, 34 option variants, 24 real nccl/perftest variants


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_file_is_detected_from_its_head(path: Path) -> None:
    head = path.read_bytes()[:4096]
    assert detect(head, "") == EXPECTED[path.parent.name]


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_detection_ignores_a_misleading_file_name(path: Path) -> None:
    assert detect(path.read_bytes()[:4096], "all_reduce_perf.json") == EXPECTED[path.parent.name]


def test_json_stream_lines_are_detected() -> None:
    head = b'{"event":"start","data":{"version":"iperf 3.17"}}\n'
    assert detect(head, "") == IPERF3_JSON_STREAM


class TestRefusedInputs:
    def test_empty_file(self) -> None:
        assert _code(b"") == "empty_file"

    def test_whitespace_only_file(self) -> None:
        assert _code(b" \n\t\r\n") == "empty_file"

    def test_binary_garbage(self) -> None:
        garbage = bytes(random.Random(7).randrange(256) for _ in range(4096))
        assert _code(garbage) == "binary_file"

    def test_nul_bytes(self) -> None:
        assert _code(b"[  5] 0.00-1.00 sec\x00\x00\x00") == "binary_file"

    def test_unsupported_tool(self) -> None:
        assert _code(b"PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n") == "unsupported_tool"

    def test_json_that_is_not_iperf3(self) -> None:
        assert _code(b'{"results": [{"MsgSize": 2}]}', "out.json") == "unsupported_json"

    def test_a_json_array(self) -> None:
        assert _code(b"[1, 2, 3]") == "unsupported_json"

    def test_unknown_iperf3_protocol(self) -> None:
        doc = b'{"start": {"test_start": {"protocol": "SCTP"}}, "intervals": [], "end": {"x": 1}}'
        assert _code(doc) == "iperf3_unknown_protocol"


class TestTruncatedJson:
    @pytest.fixture
    def data(self, corpus: Callable[[str], Path]) -> bytes:
        return corpus("iperf3-json/local_3.12_tcp_single.json").read_bytes()

    def test_cut_before_any_interval_is_refused(self, data: bytes) -> None:
        assert _code(data[:600]) == "json_truncated"

    def test_malformed_before_any_data_is_refused(self, data: bytes) -> None:
        assert _code(b'{"start": {"version": "iperf 3.12",, }') == "json_malformed"

    def test_cut_inside_the_intervals_keeps_the_complete_ones(self, data: bytes) -> None:
        cut = data.index(b'"end":\t{\n\t\t"streams"')
        result = _parse(data[: cut - 400])
        assert result.truncated
        assert result.intervals == 2
        codes = [w.code for w in result.warnings]
        assert "truncated_log" in codes and "throughput_from_intervals" in codes
        assert result.throughput_gbps == pytest.approx(sum(result.interval_gbps) / 2)

    def test_cut_inside_the_end_section(self, data: bytes) -> None:
        cut = data.index(b'"sum_received"')
        result = _parse(data[:cut])
        assert result.truncated and result.intervals == 3

    def test_damage_after_the_intervals_is_reported(self, data: bytes) -> None:
        cut = data.index(b'"sum_sent"')
        result = _parse(data[:cut] + b"}}}}]]]garbage")
        assert result.truncated
        assert "json_damaged" in [w.code for w in result.warnings]


class TestTruncatedText:
    def test_iperf3_text_cut_inside_the_intervals(self, corpus: Callable[[str], Path]) -> None:
        lines = corpus("iperf3-text/local_3.12_tcp_P2.txt").read_bytes().splitlines(True)
        result = _parse(b"".join(lines[:10]) + lines[10][:25])
        assert result.truncated
        assert result.interval_gbps == (21.2, 21.8)
        assert result.throughput_gbps == pytest.approx(21.5)
        codes = [w.code for w in result.warnings]
        assert "throughput_from_intervals" in codes and "skipped_lines" in codes

    def test_iperf3_text_with_nothing_complete(self) -> None:
        assert _code(b"Connecting to host 10.0.0.2, port 5201\n[  5] local 10.") == "no_results"

    def test_iperf3_text_cut_between_sender_and_receiver(
        self, corpus: Callable[[str], Path]
    ) -> None:
        data = corpus("iperf3-text/local_3.12_tcp_reverse.txt").read_bytes()
        result = _parse(data[: data.index(b"receiver") - 60])
        assert result.truncated and result.throughput_gbps is None

    def test_perftest_cut_in_the_header(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("ib_write_bw/cx3_ib_a_MBsec.txt").read_bytes()
        assert _code(data[: data.index(b"Link type")]) == "no_results"

    def test_perftest_cut_in_the_table(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("ib_write_bw/cx3_ib_a_MBsec.txt").read_bytes()
        result = _parse(data[: data.index(b" 4096 ")])
        assert result.truncated and len(result.sizes) == 11
        assert result.throughput_gbps == pytest.approx(3556.86 * 1024 * 1024 * 8 / 1e9)

    def test_nccl_cut_before_the_table(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("nccl-tests/pkb_nccl_output.txt").read_bytes()
        assert _code(data[: data.index(b"#       size")]) == "no_results"

    def test_nccl_cut_before_the_average(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("nccl-tests/pkb_nccl_output.txt").read_bytes()
        result = _parse(data[: data.index(b"  134217728")])
        assert result.truncated and len(result.sizes) == 7
        assert "nccl_average_recomputed" in [w.code for w in result.warnings]


class TestUnits:
    def test_unknown_iperf3_rate_unit(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("iperf3-text/local_3.12_tcp_reverse.txt").read_bytes()
        assert _code(data.replace(b"Gbits/sec", b"Xbits/sec", 1)) == "unknown_units"

    def test_unknown_iperf3_transfer_unit(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("iperf3-text/local_3.12_tcp_reverse.txt").read_bytes()
        assert _code(data.replace(b"GBytes", b"QBytes", 1)) == "unknown_units"

    def test_unknown_perftest_bandwidth_unit(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("ib_write_bw/cx3_ib_a_MBsec.txt").read_bytes()
        assert _code(data.replace(b"[MB/sec]", b"[GB/sec]")) == "unknown_units"

    def test_perftest_bandwidth_without_a_unit(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("ib_write_bw/cx3_ib_a_MBsec.txt").read_bytes()
        assert _code(data.replace(b"[MB/sec]", b"")) == "missing_units"

    def test_latency_in_cycles_is_not_guessed(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("ib_write_lat/dgx_spark_roce_single.txt").read_bytes()
        assert _code(data.replace(b"[usec]", b"[cycles]")) == "unknown_units"

    def test_nccl_units_other_than_gbytes(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("nccl-tests/pkb_nccl_output.txt").read_bytes()
        assert _code(data.replace(b"(GB/s)", b"(GiB/s)")) == "unknown_units"

    def test_nccl_without_a_units_line(self, corpus: Callable[[str], Path]) -> None:
        lines = corpus("nccl-tests/pkb_nccl_output.txt").read_bytes().splitlines(True)
        kept = [line for line in lines if not line.startswith(b"#        (B)")]
        assert _code(b"".join(kept)) == "missing_units"


class TestOtherFailures:
    def test_perftest_that_could_not_connect(self) -> None:
        log = (
            b"---------------------------------------------------------------------------------------\n"
            b"                    RDMA_Write BW Test\n"
            b" Dual-port       : OFF          Device         : mlx5_0\n"
            b"Couldn't connect to 10.0.0.2:18515\n"
            b"Unable to init the socket connection\n"
        )
        assert _code(log) == "perftest_failed"

    def test_nccl_wrong_values_fail_the_result(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("nccl-tests/pkb_nccl_output.txt").read_bytes()
        bad = data.replace(b"0.44    0.44    N/A", b"0.44    0.44      3", 1)
        result = _parse(bad)
        assert result.error is not None and result.error.code == "nccl_validation_failed"

    def test_nccl_failed_footer_fails_the_result(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("nccl-tests/superbench_nccl_allreduce.log").read_bytes()
        result = _parse(data.replace(b"0 OK", b"2 FAILED"))
        assert result.error is not None and result.error.code == "nccl_validation_failed"

    def test_unknown_collective(self, corpus: Callable[[str], Path]) -> None:
        data = corpus("nccl-tests/pkb_nccl_output.txt").read_bytes()
        assert _code(data.replace(b"     sum  ", b"    none  ")) == "nccl_collective_unknown"
