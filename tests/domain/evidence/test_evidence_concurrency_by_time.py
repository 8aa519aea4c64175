"""Concurrency by time, not by port: tests that overlap on one link share it and are summed;
tests one after another are repeats. Real iperf3 logs recorded between two network namespaces
over one veth shaped to 1 Gbit/s (scripts/record_netns_one_link.sh, recorded/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from pytest import approx

from domain.benchlogs import parse_path
from domain.benchlogs.concurrent import summarise_run
from domain.evidence.offer import OfferPorts, derive
from domain.evidence.scope import TCP_THROUGHPUT, describe
from domain.evidence.sets import group

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded"
FOUR = [RECORDED / f"one_link_port{p}.json" for p in (5401, 5402, 5403, 5404)]
STAGGERED = [RECORDED / f"one_link_staggered_port{p}.json" for p in (5411, 5412, 5413)]
SEQUENTIAL = [RECORDED / f"sequential_pair0_run{k}.json" for k in (1, 2, 3)]


def test_four_processes_on_four_ports_of_one_link_are_what_the_link_carried() -> None:
    results = [parse_path(p) for p in FOUR]
    assert all(0.2 < (r.throughput_gbps or 0) < 0.3 for r in results)  # each a quarter
    summary = summarise_run(results, line_rate_gbps=1.0)
    assert summary.pairs == 1
    assert summary.aggregate_efficiency is not None and summary.aggregate_efficiency > 0.9
    assert summary.aggregate_gbps == approx(sum(r.throughput_gbps or 0 for r in results), rel=0.03)
    # Its tail is the link's: the per-second sum, not one process's quarter.
    assert summary.tail_p5_gbps is not None and summary.tail_p5_gbps > 0.85


def test_staggered_overlapping_tests_are_summed_second_by_second() -> None:
    results = [parse_path(p) for p in STAGGERED]
    naive = sum(r.throughput_gbps or 0 for r in results)
    assert naive > 1.05  # adding the averages would claim more than the 1 Gbit/s link carries
    summary = summarise_run(results, line_rate_gbps=1.0)
    assert summary.pairs == 1
    assert summary.aggregate_efficiency is not None and 0.9 < summary.aggregate_efficiency <= 1.0


def test_the_offer_is_credited_the_link_not_a_quarter() -> None:
    evidence = [describe(parse_path(p), str(i)) for i, p in enumerate(FOUR)]
    offer = OfferPorts(ports=1, port_gbps=1.0, gpus_per_server=8, fabric="tcp")
    figure = derive([e for e in evidence if e is not None], offer)
    assert figure is not None and figure.gbps > 0.85


def test_tests_one_after_another_are_repeats_never_summed() -> None:
    results = [parse_path(p) for p in SEQUENTIAL]
    grouped = group(TCP_THROUGHPUT, [describe(r, str(i)) for i, r in enumerate(results)])  # type: ignore[misc]
    assert grouped.sets == () and [len(r.logs) for r in grouped.repeats] == [3]
    assert [r.tests for r in grouped.repeats[0].logs] == [1, 1, 1]
