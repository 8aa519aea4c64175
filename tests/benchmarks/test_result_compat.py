"""Stored results: the issue-16 fields round-trip, and results stored before them still load."""

import pytest

from benchmarks.parsing import Limits, log_verdict, result_from_json, result_json
from domain.benchlogs import parse_path
from domain.benchlogs.curves import busbw_at
from domain.benchlogs.measures import line_rate_efficiency

from .conftest import corpus

FIDELITY = corpus("iperf3-json").parents[1] / "fidelity"

# A bidir result as the earlier parser stored it: both directions summed, none of the new keys.
OLD_BIDIR = {
    "file": "bidir.json",
    "tool": "iperf3",
    "test": "tcp",
    "throughput_gbps": 1.9,
    "interval_gbps": [1.9, 1.9, 1.9],
    "direction": "bidir",
    "measured_kind": "link",
    "latency_us": None,
    "sizes": [],
    "warnings": [],
    "error": None,
}


def test_an_old_bidir_result_loads_and_is_still_judged_against_both_directions():
    rebuilt = result_from_json(OLD_BIDIR)
    assert (rebuilt.per_direction, rebuilt.bidir_total_gbps, rebuilt.sizes) == ((), None, ())
    assert line_rate_efficiency(rebuilt, 1.0) == pytest.approx(0.95)
    status, _ = log_verdict(OLD_BIDIR, limits=Limits(), line_rate_gbps=1.0, fabric="tcp")
    assert status in ("pass", "warn", "fail")


def test_new_fields_round_trip_through_the_stored_json():
    bidir = result_from_json(result_json(parse_path(FIDELITY / "tcp_bidir.json")))
    assert [d.label for d in bidir.per_direction] == ["forward", "reverse"]
    assert bidir.direction_used == "reverse"
    assert line_rate_efficiency(bidir, 1.0) == pytest.approx(0.950823505518326)
    nccl = parse_path(FIDELITY / "nccl_2.18.3_gb10_2node.txt")
    stored = result_from_json(result_json(nccl))
    assert stored.avg_busbw_gbps == pytest.approx(21.4033 * 8)
    assert busbw_at(stored, 3 * 2**30) == pytest.approx(busbw_at(nccl, 3 * 2**30))
    lat = result_from_json(result_json(parse_path(corpus("ib_read_lat/cx3_ib_a_percentiles.txt"))))
    assert len(lat.sizes) == 23
    assert lat.sizes[-1].latency is not None and lat.sizes[-1].latency.p999_us == 2202.42
