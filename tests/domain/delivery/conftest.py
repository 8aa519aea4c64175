"""Builders for the delivery tests: a contract's terms and hourly windows."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from domain.delivery.terms import (
    AvailabilityBand,
    BandwidthClause,
    Commitment,
    ContractTerms,
    OverrunClause,
    Schedule,
)
from domain.delivery.windows import Window

SHANGHAI = ZoneInfo("Asia/Shanghai")
DATA = Path(__file__).resolve().parent / "data"


def local(*args: int) -> datetime:
    return datetime(*args, tzinfo=SHANGHAI)  # type: ignore[misc]


def schedule(**changes: Any) -> Schedule:
    base = Schedule(
        availability_bands=(
            AvailabilityBand(99.9, 10.0),
            AvailabilityBand(99.0, 25.0),
            AvailabilityBand(95.0, 100.0),
        ),
        bandwidth=BandwidthClause(
            threshold_fraction=0.9, min_duration_minutes=60, credit_pct_per_hour=1.0
        ),
        overruns=(OverrunClause("response", 0.5), OverrunClause("repair", 1.0)),
        cap_pct=30.0,
        claim_window_days=30,
    )
    return replace(base, **changes)


def terms(**changes: Any) -> ContractTerms:
    base = ContractTerms(
        commitment=Commitment(
            bandwidth_gbps_per_server=400.0,
            availability_pct=99.9,
            p99_latency_us=None,
            response_minutes=30.0,
            repair_hours=4.0,
        ),
        schedule=schedule(),
        monthly_fee=Decimal("100000.00"),
        currency="CNY",
        hosts=("gpu01", "gpu02"),
        term_start=local(2026, 11, 1),
        term_end=local(2027, 1, 1),
    )
    return replace(base, **changes)


def kit(
    host: str,
    start: datetime,
    hours: float,
    gbps: float,
    *,
    step_s: int = 3600,
    latency_us: float | None = None,
) -> list[Window]:
    """Saturating (kit) windows of ``step_s`` for ``hours`` from ``start`` at ``gbps``."""
    out = []
    for i in range(round(hours * 3600 / step_s)):
        a = start + timedelta(seconds=i * step_s)
        out.append(
            Window(
                host=host,
                start=a,
                end=a + timedelta(seconds=step_s),
                delivered_gbps=gbps,
                up_fraction=None,
                samples=1,
                coverage=1.0,
                p99_latency_us=latency_us,
                saturating=True,
                source="kit:iperf3",
            )
        )
    return out


def traffic(host: str, start: datetime, hours: int, gbps: float) -> list[Window]:
    return [
        replace(w, saturating=False, source="monitoring") for w in kit(host, start, hours, gbps)
    ]


@pytest.fixture
def mk() -> SimpleNamespace:
    return SimpleNamespace(
        local=local, schedule=schedule, terms=terms, kit=kit, traffic=traffic, data=DATA
    )
