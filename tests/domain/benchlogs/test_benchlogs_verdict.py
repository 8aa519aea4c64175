"""pass / warn / fail with hand-worked thresholds."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from domain.benchlogs import BenchResult, LatencyStats
from domain.benchlogs.concurrent import summarise_run
from domain.benchlogs.stats import FAIL, PASS, WARN, Thresholds, verdict
from domain.benchlogs.verdict import worst
from domain.messages import Message

FLAT = (10.0, 10.0, 10.0, 10.0)


def _bw(test: str = "tcp", throughput: float | None = 95.0, **fields: object) -> BenchResult:
    return BenchResult(tool="x", test=test, throughput_gbps=throughput, **fields)  # type: ignore[arg-type]


def _codes(reasons: tuple[Message, ...]) -> list[str]:
    return [reason.code for reason in reasons]


class TestBandwidth:
    @pytest.mark.parametrize(
        ("test", "throughput", "status"),
        [
            ("rdma_bw", 95.0, PASS),
            ("rdma_bw", 90.0, PASS),
            ("rdma_bw", 85.0, WARN),  # under 90% but within the 10-point margin
            ("rdma_bw", 79.0, FAIL),
            ("tcp", 86.0, PASS),
            ("tcp", 80.0, WARN),
            ("tcp", 70.0, FAIL),
            ("nccl", 81.0, PASS),
            ("nccl", 60.0, FAIL),
        ],
    )
    def test_efficiency_thresholds(self, test: str, throughput: float, status: str) -> None:
        assert verdict(_bw(test, throughput), line_rate_gbps=100.0).status == status

    def test_pass_states_the_efficiency(self) -> None:
        result = verdict(_bw("rdma_bw", 95.0), line_rate_gbps=100.0)
        assert _codes(result.reasons) == ["verdict_pass"]
        assert "95.0%" in result.reasons[0].en and "95.0%" in result.reasons[0].zh
        assert result.efficiency == pytest.approx(0.95)

    def test_nccl_over_tcp_has_a_lower_bar(self) -> None:
        assert verdict(_bw("nccl", 45.0), line_rate_gbps=100.0, fabric="tcp").status == PASS
        assert verdict(_bw("nccl", 45.0), line_rate_gbps=100.0, fabric="ib").status == FAIL

    def test_thresholds_are_editable(self) -> None:
        strict = Thresholds(tcp_min_efficiency=0.97)
        assert verdict(_bw("tcp", 95.0), line_rate_gbps=100.0, thresholds=strict).status == WARN

    def test_unknown_line_rate_is_said_not_passed(self) -> None:
        result = verdict(_bw("tcp", 95.0), line_rate_gbps=None)
        assert (result.status, _codes(result.reasons)) == (WARN, ["verdict_no_line_rate"])

    def test_missing_receiver_figure_is_said_not_passed(self) -> None:
        result = verdict(_bw("tcp", None), line_rate_gbps=100.0)
        assert (result.status, _codes(result.reasons)) == (WARN, ["verdict_no_throughput"])

    def test_an_error_fails_whatever_the_numbers(self) -> None:
        error = Message("iperf3_interrupted", "interrupted", "中断")
        result = verdict(_bw("tcp", 99.0, error=error), line_rate_gbps=100.0)
        assert (result.status, _codes(result.reasons)) == (FAIL, ["verdict_result_error"])
        assert "interrupted" in result.reasons[0].en and "中断" in result.reasons[0].zh

    def test_truncated_logs_warn(self) -> None:
        result = verdict(_bw("tcp", 95.0, truncated=True), line_rate_gbps=100.0)
        assert (result.status, _codes(result.reasons)) == (WARN, ["verdict_truncated"])


class TestStability:
    def test_a_flat_series_passes(self) -> None:
        result = _bw(interval_gbps=FLAT)
        assert verdict(result, line_rate_gbps=100.0).status == PASS

    def test_cv_between_limit_and_twice_the_limit_warns(self) -> None:
        result = verdict(_bw(interval_gbps=(9.3, 10.7, 9.3, 10.7)), line_rate_gbps=100.0)
        assert (result.status, _codes(result.reasons)) == (WARN, ["verdict_unstable"])

    def test_cv_above_twice_the_limit_fails(self) -> None:
        # mean 10.6, population sd 1.2: CV 11.3%
        result = verdict(_bw(interval_gbps=(10.0, 10.0, 10.0, 10.0, 13.0)), line_rate_gbps=100.0)
        assert result.status == FAIL

    def test_a_long_dip_warns(self) -> None:
        series = (10.0,) * 200 + (8.8,) * 12 + (10.0,) * 200
        result = verdict(_bw(interval_gbps=series), line_rate_gbps=100.0)
        assert (result.status, _codes(result.reasons)) == (WARN, ["verdict_long_dip"])

    def test_two_intervals_say_nothing_about_stability(self) -> None:
        assert verdict(_bw(interval_gbps=(5.0, 15.0)), line_rate_gbps=100.0).status == PASS


class TestLoss:
    @pytest.mark.parametrize(("loss", "status"), [(0.05, PASS), (0.5, WARN), (2.0, FAIL)])
    def test_udp_loss(self, loss: float, status: str) -> None:
        result = _bw("udp", 95.0, lost_percent=loss)
        assert verdict(result, line_rate_gbps=100.0).status == status


class TestLatency:
    @pytest.mark.parametrize(
        ("fabric", "p99", "status"),
        [
            ("ib", 4.0, PASS),
            ("ib", 7.0, WARN),
            ("ib", 12.0, FAIL),
            ("roce", 9.0, PASS),
            ("roce", 25.0, FAIL),
            ("tcp", 150.0, WARN),
        ],
    )
    def test_p99_limits_per_fabric(self, fabric: str, p99: float, status: str) -> None:
        result = BenchResult(tool="ib_write_lat", test="rdma_lat", latency=LatencyStats(p99_us=p99))
        assert verdict(result, line_rate_gbps=None, fabric=fabric).status == status

    def test_latency_without_p99_is_said(self) -> None:
        result = BenchResult(tool="ib_write_lat", test="rdma_lat", latency=LatencyStats(avg_us=2))
        outcome = verdict(result, line_rate_gbps=None, fabric="ib")
        assert (outcome.status, _codes(outcome.reasons)) == (WARN, ["verdict_no_p99"])

    def test_corpus_qdr_latency_passes_on_ib(self, parse: Callable[[str], BenchResult]) -> None:
        result = parse("ib_write_lat/cx3_ib_a_percentiles.txt")
        assert verdict(result, line_rate_gbps=None).status == PASS  # p99 1.21 µs

    def test_corpus_soft_roce_latency_fails(self, parse: Callable[[str], BenchResult]) -> None:
        result = parse("ib_send_lat/rxe_softroce_collapsed_columns.txt")
        outcome = verdict(result, line_rate_gbps=None)
        assert (outcome.status, _codes(outcome.reasons)) == (FAIL, ["verdict_p99_high"])
        assert "RoCE" in outcome.reasons[0].en


class TestCorpus:
    def test_qdr_write_against_a_40g_port_fails(self, parse: Callable[[str], BenchResult]) -> None:
        result = parse("ib_write_bw/cx3_ib_a_MBsec.txt")
        assert verdict(result, line_rate_gbps=40.0).status == FAIL  # 76.9%

    def test_qdr_write_against_its_32g_data_rate_passes(
        self, parse: Callable[[str], BenchResult]
    ) -> None:
        assert verdict(parse("ib_write_bw/cx3_ib_a_MBsec.txt"), line_rate_gbps=32.0).status == PASS

    def test_interrupted_iperf3_fails(self, parse: Callable[[str], BenchResult]) -> None:
        result = parse("iperf3-json/local_3.12_tcp_interrupted_sigint.json")
        assert verdict(result, line_rate_gbps=25.0).status == FAIL


class TestOneHostCollective:
    """nccl-tests whose ranks all ran on one host measured the server's own links."""

    def _nccl(self, hosts: int | None) -> BenchResult:
        return _bw("nccl", 1881.0, measured_kind="collective", hosts=hosts, ranks=8)

    def test_one_host_is_not_compared_with_the_port(self) -> None:
        outcome = verdict(self._nccl(1), line_rate_gbps=200.0)
        assert outcome.status == WARN and outcome.efficiency is None
        assert _codes(outcome.reasons) == ["verdict_one_host"]
        assert outcome.reasons[0].en.startswith("8 ranks ran on one host")

    @pytest.mark.parametrize("hosts", [2, None])
    def test_several_or_unnamed_hosts_are_judged_against_the_port(self, hosts: int | None) -> None:
        outcome = verdict(self._nccl(hosts), line_rate_gbps=200.0)
        assert outcome.efficiency == pytest.approx(1881.0 / 200.0)
        assert "verdict_one_host" not in _codes(outcome.reasons)

    def test_a_run_leaves_one_host_collectives_out_of_its_network_figures(self) -> None:
        one, two = self._nccl(1), _bw("nccl", 380.0, measured_kind="collective", hosts=2)
        summary = summarise_run([one, two], line_rate_gbps=400.0)
        assert summary.pairs == 1 and summary.tail_p5_gbps == 380.0
        assert "run_one_host" in _codes(summary.warnings)
        alone = summarise_run([one], line_rate_gbps=400.0)
        assert alone.pairs == 0 and alone.tail_p5_gbps is None


def test_a_runs_tail_is_named_as_its_p5_not_as_a_logs_throughput() -> None:
    passed = verdict(_bw("tcp", 95.0), line_rate_gbps=100.0, tail=True)
    assert passed.reasons[-1].en == (
        "All checks passed; the run's P5 throughput (95% of its intervals were faster) "
        "reaches 95.0% of line rate."
    )
    low = verdict(_bw("tcp", 70.0), line_rate_gbps=100.0, tail=True)
    assert low.reasons[0].en.startswith("The run's P5 throughput (95% of its intervals")
    assert verdict(_bw("tcp", 70.0), line_rate_gbps=100.0).reasons[0].en.startswith("Throughput")


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [((), PASS), ((PASS, WARN), WARN), ((FAIL, PASS, WARN), FAIL), ((PASS,), PASS)],
)
def test_worst_status(statuses: tuple[str, ...], expected: str) -> None:
    assert worst(statuses) == expected
