"""A run's verdict is its bandwidth and each latency log together, every reason naming its part;
a collective test that stayed inside one host is never the run's network figure."""

import pytest

from benchmarks.models import AcceptanceThresholds
from benchmarks.services import benchmark_ingest

from .conftest import upload

pytestmark = pytest.mark.django_db

LATENCY = "ib_write_lat/cx3_ib_a_percentiles.txt"  # P99 1.21 µs at 2 B
# 1.79 Gbit/s between two network namespaces (recorded/SOURCES.md) on the fixture's 25 Gbit/s
# port (a loopback log would be set aside and give the run no bandwidth to judge).
BANDWIDTH = "../recorded/sequential_pair0_run1.json"


def _ingest(run, user, rel, capture) -> None:  # type: ignore[no-untyped-def]
    with capture(execute=True):
        benchmark_ingest(team=run.team, user=user, test_run=run, upload=upload(rel))
    run.refresh_from_db()


def test_a_latency_only_run_is_judged_by_its_latency_log(
    run_a, analyst_a, django_capture_on_commit_callbacks
):
    _ingest(run_a, analyst_a, LATENCY, django_capture_on_commit_callbacks)
    log = run_a.logs.get()
    assert log.verdict == "pass"
    # Before: "Cannot judge - No log gave a figure" beside a log that passed.
    assert run_a.verdict == "pass"
    assert [r["en"] for r in run_a.verdict_reasons] == [
        "Latency (cx3_ib_a_percentiles.txt): All checks passed."
    ]
    assert run_a.verdict_reasons[0]["zh"] == "延迟（cx3_ib_a_percentiles.txt）：所有检查均通过。"


def test_a_failed_latency_fails_the_run_and_the_passing_bandwidth_says_it_is_only_bandwidth(
    run_a, analyst_a, django_capture_on_commit_callbacks
):
    AcceptanceThresholds.objects.create(
        team=run_a.team,
        tcp_min_line_fraction=0.05,
        p99_latency_ib_us=0.5,
        p99_latency_roce_us=0.5,
        p99_latency_tcp_us=0.5,
    )
    _ingest(run_a, analyst_a, BANDWIDTH, django_capture_on_commit_callbacks)
    assert run_a.verdict == "pass"
    (only,) = run_a.verdict_reasons
    assert only["en"].startswith("All checks passed; the run's P5 throughput (95% of its ")
    assert "P5 吞吐量" in only["zh"]
    _ingest(run_a, analyst_a, LATENCY, django_capture_on_commit_callbacks)
    assert run_a.verdict == "fail"
    texts = [r["en"] for r in run_a.verdict_reasons]
    assert texts[0].startswith("Bandwidth: All checks passed; the run's P5 throughput")
    assert texts[1].startswith("Latency (cx3_ib_a_percentiles.txt): P99 latency 1.21 µs exceeds")
    assert [r["status"] for r in run_a.verdict_reasons] == ["pass", "fail"]
    assert not any(text.startswith("All checks passed") for text in texts)
    assert run_a.verdict_reasons[0]["zh"].startswith("带宽：所有检查均通过")


def test_a_one_host_collective_is_shown_but_never_the_quotes_network_figure(
    run_a, analyst_a, django_capture_on_commit_callbacks
):
    # superbench all-reduce: 8 ranks on one host, 1,881 Gbit/s of NVLink bus bandwidth.
    _ingest(
        run_a,
        analyst_a,
        "nccl-tests/superbench_nccl_allreduce.log",
        django_capture_on_commit_callbacks,
    )
    log = run_a.logs.get()
    assert log.throughput_gbps == pytest.approx(1882.08)  # out-of-place busbw
    assert log.result["hosts"] == 1 and log.result["ranks"] == 8
    assert log.verdict == "warn"
    (reason,) = log.verdict_reasons
    assert reason["code"] == "verdict_one_host" and reason["en"].startswith(
        "8 ranks ran on one host"
    )
    assert "line rate" not in " ".join(r["en"] for r in log.verdict_reasons if "%" in r["en"])
    assert run_a.tail_p5_gbps is None and run_a.pairs == 0 and run_a.measured_kind == ""
    assert run_a.verdict == "unknown"
    assert run_a.verdict_reasons[0]["code"] == "verdict_no_network_figure"
    # A two-host run of the same tool still is the network's figure.
    _ingest(run_a, analyst_a, "nccl-tests/pkb_nccl_output.txt", django_capture_on_commit_callbacks)
    assert run_a.pairs == 1 and run_a.measured_kind == "collective"
    assert run_a.tail_p5_gbps == pytest.approx(
        run_a.logs.get(original_name="pkb_nccl_output.txt").throughput_gbps
    )
