"""Properties of the engine over generated delivery histories."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.delivery.engine import Incident, evaluate
from domain.delivery.report import report_from_dict, report_to_dict
from domain.delivery.terms import BandwidthClause
from domain.delivery.windows import Window
from tests.domain.delivery.conftest import kit, local, schedule, terms

NOW = local(2027, 1, 5)
HOURS = 24 * 45  # 1 November to mid-December, in hours

runs = st.lists(
    st.tuples(
        st.sampled_from(["gpu01", "gpu02"]),
        st.integers(0, HOURS - 1),  # start hour
        st.integers(1, 72),  # length in hours
        st.floats(0.0, 600.0),  # delivered Gbit/s
        st.booleans(),  # saturating
    ),
    max_size=12,
)


def build(spec: list[tuple[str, int, int, float, bool]]) -> list[Window]:
    windows: dict[tuple[str, object], Window] = {}
    for host, hour, length, gbps, saturating in spec:
        for w in kit(host, local(2026, 11, 1) + timedelta(hours=hour), length, gbps):
            windows[(host, w.start)] = replace(w, saturating=saturating)
    return list(windows.values())


common = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(
    spec=runs,
    cap=st.floats(0.0, 100.0),
    rate=st.floats(0.0, 50.0),
    outage_h=st.floats(0.0, 300.0),
)
def test_credits_never_exceed_the_cap(
    spec: list[tuple[str, int, int, float, bool]], cap: float, rate: float, outage_h: float
) -> None:
    t = terms(schedule=schedule(cap_pct=cap, bandwidth=BandwidthClause(0.9, 30, rate)))
    start = local(2026, 11, 20)
    incident = Incident(start=start, end=start + timedelta(hours=outage_h))
    report = evaluate(t, build(spec), [incident], now=NOW)
    for month in report.months:
        cap_amount = (month.fee_amount * Decimal(str(cap)) / 100).quantize(Decimal("0.01"))
        assert month.credits_pct <= cap + 1e-9
        assert month.credit_amount <= cap_amount
        assert month.claimable_amount <= month.credit_amount
        hours = month.compliant_h + month.breach_h + month.inconclusive_h + month.no_data_h
        assert abs(hours - month.scheduled_h) < 1e-6
    # What the app stores is strict JSON (PostgreSQL refuses NaN) and comes back the same.
    stored = json.loads(json.dumps(report_to_dict(report), allow_nan=False))
    assert report_from_dict(stored) == report


@common
@given(spec=runs, factor=st.floats(1.0, 5.0))
def test_scaling_delivery_up_never_adds_breach_time_or_credit(
    spec: list[tuple[str, int, int, float, bool]], factor: float
) -> None:
    t = terms()
    base = evaluate(t, build(spec), [], now=NOW)
    scaled_spec = [(h, s, n, g * factor, sat) for h, s, n, g, sat in spec]
    scaled = evaluate(t, build(scaled_spec), [], now=NOW)
    # Breach *time* and credits can only fall. (The number of episodes can rise: a long episode
    # whose middle hours climb above the threshold splits in two, each still a breach.)
    assert scaled.credit_amount <= base.credit_amount
    for before, after in zip(base.months, scaled.months, strict=True):
        assert after.breach_h <= before.breach_h + 1e-9
    breach_hours = {(e.host, e.kind): 0.0 for e in base.episodes + scaled.episodes if e.breach}
    for report, sign in ((base, 1.0), (scaled, -1.0)):
        for e in report.episodes:
            if e.breach:
                breach_hours[(e.host, e.kind)] += sign * e.duration_h
    assert all(v >= -1e-9 for v in breach_hours.values())


series_st = st.lists(
    st.tuples(
        st.sampled_from(["gpu01:9100", "gpu02", "other:9100"]),
        st.sampled_from(["eth0", "ib0", ""]),
        st.lists(
            st.tuples(
                st.integers(1_790_000_000, 1_790_100_000),
                st.floats(allow_nan=False, allow_infinity=False, width=64),
            ),
            max_size=30,
        ),
    ),
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(
    data=series_st,
    indent=st.sampled_from([None, 0, 1, 2, "\t"]),
    crlf=st.booleans(),
    chunk=st.integers(3, 200),
    pages=st.integers(1, 3),
)
def test_the_scanner_agrees_with_a_full_json_parse(
    data: list[tuple[str, str, list[tuple[int, float]]]],
    indent: int | str | None,
    crlf: bool,
    chunk: int,
    pages: int,
) -> None:
    import io

    import numpy as np
    import pytest

    from domain.delivery import _promscan
    from domain.delivery.series import parse_prometheus_range

    docs = []
    for p in range(pages):
        result = [
            {
                "metric": {"__name__": "m", "instance": inst, **({"device": dev} if dev else {})},
                "values": [[t, repr(v)] for t, v in points[p::pages]],
            }
            for inst, dev, points in data
        ]
        docs.append({"status": "success", "data": {"resultType": "matrix", "result": result}})
    text = json.dumps(docs if pages > 1 else docs[0], indent=indent)
    if crlf:
        text = text.replace("\n", "\r\n")
    # Reference: the whole document parsed, each series' samples sorted, equal times merged
    # (the later read wins), other hosts left out.
    expected: dict[tuple[str, str, str], dict[float, float]] = {}
    for doc in docs:
        for r in doc["data"]["result"]:
            host = r["metric"]["instance"].split(":")[0]
            if host == "other":
                continue
            key = (host, r["metric"].get("device", ""), "m")
            for t, v in r["values"]:
                expected.setdefault(key, {})[float(t)] = float(v)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_promscan, "CHUNK", chunk)
        ingest = parse_prometheus_range(
            io.BytesIO(text.encode()), hosts=("gpu01", "gpu02"), now=NOW
        )
    got = {
        k: dict(zip(s.ts.tolist(), s.values.tolist(), strict=True))
        for k, s in ingest.series.items()
    }
    assert got == {k: v for k, v in expected.items() if v}
    for s in ingest.series.values():
        assert bool(np.all(np.diff(s.ts) > 0))
