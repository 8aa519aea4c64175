"""Real iperf3 logs recorded between network namespaces (tests/domain/data/recorded/SOURCES.md):
what each proves, which ran together, which repeated one another, and what the run reports."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest import approx

from domain.benchlogs import BenchResult, parse_path
from domain.benchlogs.concurrent import summarise_run
from domain.evidence.scope import ONE_PORT, TCP_THROUGHPUT, UDP_AT_RATE, describe
from domain.evidence.sets import group

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDED = DATA / "recorded"
SEQUENTIAL = [RECORDED / f"sequential_pair0_run{k}.json" for k in (1, 2, 3)]
SIMULTANEOUS = [RECORDED / f"simultaneous_pair{k}.json" for k in (1, 2, 3, 4)]
UDP = RECORDED / "udp_b500M_pair0.json"


def _parse(paths: list[Path]) -> list[BenchResult]:
    return [parse_path(path) for path in paths]


def test_each_log_says_what_it_measured() -> None:
    tcp = describe(parse_path(SEQUENTIAL[0]), "a")
    udp = describe(parse_path(UDP), "b")
    assert tcp is not None and udp is not None
    assert (tcp.kind, tcp.scope, tcp.link, tcp.direction) == (
        TCP_THROUGHPUT,
        ONE_PORT,
        "10.77.0.2",
        "forward",
    )
    assert tcp.window is not None and tcp.duration_s == approx(5.0, abs=0.1)
    assert (udp.kind, udp.target_gbps) == (UDP_AT_RATE, 0.5)
    assert not udp.counts_as_capacity and tcp.counts_as_capacity


def test_three_sequential_tests_on_one_pair_are_one_pair_of_repeats() -> None:
    results = _parse(SEQUENTIAL)
    summary = summarise_run(results, line_rate_gbps=2.0)
    assert summary.pairs == 1
    means = sorted(r.throughput_gbps or 0.0 for r in results)
    # The pair's typical figure, never the sum of the three tests.
    assert summary.aggregate_gbps == approx(means[1], rel=0.05)
    assert summary.aggregate_gbps < 2.0 < sum(means)
    assert summary.jain_index is None
    codes = [w.code for w in summary.warnings]
    assert "evidence.repeats" in codes and "run_not_concurrent" not in codes
    grouped = group(TCP_THROUGHPUT, [describe(r, str(i)) for i, r in enumerate(results)])  # type: ignore[misc]
    assert grouped.sets == () and [len(r.logs) for r in grouped.repeats] == [3]


def test_four_simultaneous_pairs_are_summed() -> None:
    results = _parse(SIMULTANEOUS)
    summary = summarise_run(results, line_rate_gbps=1.0)
    assert summary.pairs == 4
    assert summary.aggregate_gbps == approx(sum(r.throughput_gbps or 0.0 for r in results))
    assert summary.aggregate_gbps == approx(3.82, abs=0.05)  # 4 pairs shaped to 1 Gbit/s each
    assert summary.jain_index == approx(1.0, abs=0.01)
    assert summary.aggregate_efficiency == approx(0.955, abs=0.01)
    assert "run_not_concurrent" not in [w.code for w in summary.warnings]


def test_sequential_and_simultaneous_together_keep_the_simultaneous_set() -> None:
    summary = summarise_run(_parse(SEQUENTIAL + SIMULTANEOUS), line_rate_gbps=1.0)
    assert summary.pairs == 4
    assert summary.aggregate_gbps == approx(3.82, abs=0.05)
    codes = [w.code for w in summary.warnings]
    assert "run_not_concurrent" in codes and "evidence.repeats" in codes


def test_udp_at_a_set_rate_is_not_capacity() -> None:
    alone = summarise_run(_parse([UDP]), line_rate_gbps=2.0)
    assert alone.tail_p5_gbps is None and alone.pairs == 0
    assert "evidence.udp_not_capacity" in [w.code for w in alone.warnings]
    with_tcp = summarise_run(_parse([SEQUENTIAL[0], UDP]), line_rate_gbps=2.0)
    tcp_only = summarise_run(_parse([SEQUENTIAL[0]]), line_rate_gbps=2.0)
    assert with_tcp.tail_p5_gbps == tcp_only.tail_p5_gbps
    assert with_tcp.tail_p5_gbps is not None and with_tcp.tail_p5_gbps > 1.0


@pytest.mark.parametrize(
    "other",
    [
        "ib_write_bw/dgx_spark_roce_q4_gbits.txt",
        "nccl-tests/nccl_skypilot_ray_mpi_prefixed_h200_16rank.txt",
    ],
)
def test_a_run_mixing_kinds_keeps_them_apart(other: str) -> None:
    tcp = _parse(SIMULTANEOUS)
    mixed = summarise_run([*tcp, parse_path(DATA / "corpus" / other)], line_rate_gbps=1.0)
    kind_first = summarise_run([parse_path(DATA / "corpus" / other)], line_rate_gbps=1.0)
    assert "run_mixed_kinds" in [w.code for w in mixed.warnings]
    if other.startswith("ib_write_bw"):
        # RDMA leads the run; the TCP pairs are neither added to it nor in its tail.
        assert (mixed.kind, mixed.pairs) == ("rdma_bw", 1)
        assert mixed.tail_p5_gbps == approx(kind_first.tail_p5_gbps)
    else:
        # The collective's 2,633 Gbit/s busbw is not pooled with the 1 Gbit/s TCP pairs.
        assert (mixed.kind, mixed.pairs, mixed.measured_kind) == ("tcp_throughput", 4, "link")
        assert mixed.tail_p5_gbps is not None and mixed.tail_p5_gbps < 1.0
