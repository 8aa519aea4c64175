"""Answers recorded from a real Prometheus scraping a real node_exporter (see data/README.md)."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from domain.delivery.counters import increases, total_increase
from domain.delivery.series import Ingest, IngestError, parse_prometheus_range
from domain.delivery.windows import aggregate

DATA = Path(__file__).resolve().parent / "data"
NOW = datetime(2027, 1, 1, tzinfo=UTC)
HOST = "127.0.0.1"


def load(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((DATA / name).read_text())


def parse_bytes(raw: bytes) -> Ingest:
    return parse_prometheus_range(io.BytesIO(raw), hosts=[HOST], now=NOW)


def test_the_recorded_range_answer_is_read_whole() -> None:
    raw = (DATA / "prom_node_exporter_range.json").read_bytes()
    ingest = parse_bytes(raw)
    doc = json.loads(raw)
    expected = {
        (HOST, r["metric"].get("device", ""), r["metric"]["__name__"]): r["values"]
        for r in doc["data"]["result"]
    }
    assert set(ingest.series) == set(expected)
    for key, values in expected.items():
        s = ingest.series[key]
        assert list(s.ts) == [float(t) for t, _ in values]
        assert list(s.values) == [float(v) for _, v in values]
    assert ingest.notes == ()
    # node_exporter was stopped for ~30 s while recording: `up` is 0 there.
    up = ingest.series[(HOST, "", "up")]
    assert 0 < np.count_nonzero(up.values == 0) < len(up)


def test_re_saved_shapes_of_the_real_answer_read_the_same() -> None:
    doc = load("prom_node_exporter_range.json")
    original = parse_bytes((DATA / "prom_node_exporter_range.json").read_bytes())
    for text in (
        json.dumps(doc, indent=2),
        json.dumps(doc, indent=4).replace("\n", "\r\n"),
        json.dumps(doc, separators=(",", ":"), sort_keys=True),
    ):
        again = parse_bytes(text.encode())
        assert {k: list(v.values) for k, v in again.series.items()} == {
            k: list(v.values) for k, v in original.series.items()
        }


def test_windows_from_the_real_answer_see_the_exporter_stop() -> None:
    ingest = parse_bytes((DATA / "prom_node_exporter_range.json").read_bytes())
    tx = ingest.series[(HOST, "eth0", "node_network_transmit_bytes_total")]
    windows = aggregate(ingest, window_s=60, committed_hosts=[HOST], max_gap_s=20)
    assert windows and all(w.host == HOST for w in windows)
    # eth0 was idle while recording (its counters did not move): every known window is 0 Gbit/s.
    assert tx.values[0] == tx.values[-1]
    assert {w.delivered_gbps for w in windows if w.coverage > 0} == {0.0}
    # The stop left steps over 20 s without samples: those seconds are not covered.
    steps = np.diff(tx.ts)
    known_s = float(steps[steps <= 20].sum())
    assert known_s < tx.ts[-1] - tx.ts[0]
    assert sum(w.coverage * 60 for w in windows) == pytest.approx(known_s)
    assert any(w.up_fraction is not None and w.up_fraction < 1 for w in windows)


def _prometheus_extrapolation(
    ts: np.ndarray,
    values: np.ndarray,
    raw: float,  # type: ignore[type-arg]
    range_start: float,
    range_end: float,
) -> float:
    """increase() as Prometheus 2.x extrapolates the raw increase to the range's edges (in our
    words: extend by the distance to an edge when it is under 1.1 average steps, else by half a
    step, and never past the point where the counter would have been zero)."""
    sampled = ts[-1] - ts[0]
    average = sampled / (len(ts) - 1)
    to_start, to_end = ts[0] - range_start, range_end - ts[-1]
    if raw > 0 and values[0] >= 0:
        to_start = min(to_start, sampled * values[0] / raw)
    threshold = average * 1.1
    extended = sampled
    extended += to_start if to_start < threshold else average / 2
    extended += to_end if to_end < threshold else average / 2
    return raw * extended / sampled


def test_counter_resets_match_prometheus_own_increase_and_resets() -> None:
    # node_exporter's own request counter restarted from zero when it was restarted mid-recording.
    raw_answer = (DATA / "prom_counter_raw.json").read_bytes()
    ingest = parse_prometheus_range(io.BytesIO(raw_answer), hosts=None, now=NOW)
    ((key, series),) = ingest.series.items()
    assert key[2] == "promhttp_metric_handler_requests_total"
    inc = increases(series.ts, series.values, max_gap_s=1e9)
    prom_resets = float(load("prom_counter_resets.json")["data"]["result"][0]["value"][1])
    assert inc.resets == prom_resets == 1
    at, prom_increase = load("prom_counter_increase.json")["data"]["result"][0]["value"]
    raw = total_increase(series.ts, series.values, max_gap_s=1e9)
    ours = _prometheus_extrapolation(series.ts, series.values, raw, float(at) - 600, float(at))
    assert ours == pytest.approx(float(prom_increase), rel=1e-9)
    # The plain difference last - first would have been wrong by the value before the reset.
    assert raw > series.values[-1] - series.values[0]


def test_the_real_error_answer_is_refused_with_prometheus_reason() -> None:
    with pytest.raises(IngestError) as caught:
        parse_bytes((DATA / "prom_error_too_many_points.json").read_bytes())
    assert "11,000 points per timeseries" in caught.value.messages[0].en
