"""Every corpus file uploads through the service and parses: status, error code and figures."""

import pytest

from benchmarks.services import benchmark_ingest
from core.models import JobStatus

from .conftest import CORPUS, upload

pytestmark = pytest.mark.django_db

FILES = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file())

# Logs of a test that failed or was cut short: kept, marked failed with the parser's reason.
FAILS = {
    "iperf3-json/local_3.12_error_refused.json": "iperf3_reported_error",
    "iperf3-text/local_3.12_error_refused.txt": "iperf3_reported_error",
    "iperf3-json/local_3.12_tcp_interrupted_sigint.json": "iperf3_interrupted",
    "iperf3-text/freekds_tcp_interrupted.txt": "iperf3_interrupted",
    "iperf3-text/freekds_udp_interrupted.txt": "iperf3_interrupted",
}

# Logs the parser refuses (the run died before printing a result): no result, the reason kept.
REFUSED = {
    "nccl-tests/nccl_2.19.7_h200_cuda_failure_no_rows.txt": "nccl_failed",
    "ib_send_bw/k8s_sriov_connect_refused_no_title.txt": "perftest_failed",
    "nccl-tests/nccl_2.17.6_h100_every_process_rank0_no_mpi.txt": "nccl_ranks_not_joined",
}

# Logs whose figures were read but that the tool itself declared invalid (wrong values).
FLAGGED = {
    "nccl-tests/nccl_rtx3090_2node_inc_wrong_values_failed.txt": "nccl_validation_failed",
    "nccl-tests/nccl_2.17.9_gh200_int8_corrupted_wrong_no_footer.txt": "nccl_validation_failed",
}

# Receiver-side figures (Gbit/s) of a few, one per tool and layout.
THROUGHPUT = {
    "iperf3-json/local_3.12_tcp_P4.json": 13.332362914,
    "iperf3-text/local_3.12_tcp_P2.txt": 21.3,
    "iperf3-text/pkb_windows_tcp_P5.txt": 4.67,
    "ib_write_bw/cx3_ib_a_MBsec.txt": 30.746345472,
    "ib_write_bw/dgx_spark_roce_q4_gbits.txt": 111.71,
    # nccl-tests: busbw at the largest size (8 GiB), not the all-size average (547.2384).
    "nccl-tests/superbench_nccl_allreduce.log": 235.26 * 8,  # out-of-place busbw
}

# Logs whose two ends are one host (corpus SOURCES.md: the local iperf3 logs ran against
# 127.0.0.1; the others print the same LID or GID at both ends): set aside, never a run figure.
LOOPBACK = {
    "ib_atomic_bw/roce_fetch_add_server_client_interleaved.txt",
    "ib_send_bw/roce_ud_server_client_interleaved_one_line.txt",
    "ib_send_lat/mlx4_freeflow_duration_D20_cpufreq.txt",
    "ib_write_bw/roce_xrc_server_client_interleaved.txt",
    "ib_write_bw/superbench_ib_loopback_8M_size.log",
    "ib_write_bw/superbench_ib_loopback_all_sizes.log",
    "iperf3-text/pkb_windows_tcp_P5.txt",
}
SET_ASIDE = {
    rel: {"admission.loopback"}
    for rel in LOOPBACK | {str(p.relative_to(CORPUS)) for p in CORPUS.glob("iperf3-*/local_3.12_*")}
}
P99_US = {"ib_write_lat/cx3_ib_a_percentiles.txt": 1.21}


def test_the_corpus_is_all_there():
    tools = {rel.split("/", 1)[0] for rel in FILES}
    assert {"iperf3-json", "iperf3-text", "ib_write_bw", "ib_write_lat", "nccl-tests"} <= tools
    assert set(FAILS) | set(REFUSED) | set(FLAGGED) | set(THROUGHPUT) | set(P99_US) <= set(FILES)


@pytest.mark.parametrize("rel", FILES)
def test_every_corpus_file_uploads_and_parses(
    rel, run_a, analyst_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        outcome = benchmark_ingest(
            team=run_a.team, user=analyst_a, test_run=run_a, upload=upload(rel)
        )
    (log,) = outcome.created
    log.refresh_from_db()
    run_a.refresh_from_db()
    assert run_a.status == JobStatus.DONE
    if rel in REFUSED:
        assert log.status == JobStatus.FAILED and log.result is None
        assert log.error_code == REFUSED[rel] and log.error_en and log.error_zh
        return
    assert log.result is not None  # even a failed test keeps what the parser read
    if rel in FAILS:
        assert log.status == JobStatus.FAILED
        assert log.error_code == FAILS[rel] and log.error_en and log.error_zh
        assert log.result["error"]["code"] == FAILS[rel]
        return
    assert log.status == JobStatus.DONE, log.error_en
    if rel in FLAGGED:
        assert log.error_code == FLAGGED[rel] and log.verdict == "fail"
        return
    assert log.error_code == ""
    assert log.verdict in ("pass", "warn", "fail")
    assert log.verdict_reasons and all(r["en"] and r["zh"] for r in log.verdict_reasons)
    if log.test_kind == "rdma_lat":
        latency = log.result["latency_us"]
        # Duration mode (-D) prints no percentiles: the average is then all there is.
        assert (latency["p99"] or latency["avg"]) > 0
    elif log.result["measured_kind"] == "collective" and log.result["hosts"] == 1:
        # Every rank on one host: the links inside the server, never the network's figure.
        assert log.throughput_gbps > 0
        assert log.verdict == "warn"
        assert "verdict_one_host" in {r["code"] for r in log.verdict_reasons}
        assert run_a.pairs == 0 and run_a.tail_p5_gbps is None and run_a.verdict == "unknown"
        assert [r["code"] for r in run_a.verdict_reasons] == ["verdict_no_network_figure"]
        assert "run_one_host" in {note["code"] for note in run_a.run_notes}
    elif log.test_kind == "udp":
        # UDP at a rate set with -b is a loss and jitter test: never the run's capacity.
        assert log.throughput_gbps > 0
        assert run_a.pairs == 0 and run_a.tail_p5_gbps is None and run_a.verdict == "unknown"
        codes = {note["code"] for note in run_a.run_notes}
        codes |= {r["code"] for r in log.admission["reasons"]}
        assert {"evidence.udp_not_capacity", "admission.udp_at_rate"} & codes
    elif log.admission["admitted"]:
        assert log.throughput_gbps > 0
        assert run_a.pairs == 1 and run_a.tail_p5_gbps is not None
    else:
        # Set aside (the local iperf3 logs ran over 127.0.0.1): shown with the reason, never the
        # run's figure.
        codes = [r["code"] for r in log.admission["reasons"]]
        assert codes and set(codes) <= SET_ASIDE.get(rel, set()), (rel, codes)
        assert run_a.pairs == 0 and run_a.tail_p5_gbps is None
    if rel in THROUGHPUT:
        assert log.throughput_gbps == pytest.approx(THROUGHPUT[rel], rel=1e-6)
    if rel in P99_US:
        assert log.result["latency_us"]["p99"] == pytest.approx(P99_US[rel])
