"""Fixtures of the serving tests: a team with quotes, a workload, a plan and traffic CSVs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quotes.models import GpuModel
from quotes.testing import make_quote, make_vendor, seed_quotes
from serving.services import mixed_plan_create, serving_workload_create

SERVING_WORKLOAD: dict[str, Any] = {
    "name": "chat", "params_b": 7.0, "precision": "bf16", "mean_rps": 20.0, "peak_rps": 60.0,
    "tokens_in": 800.0, "tokens_out": 300.0, "response_kb": 150.0, "latency_target_s": 10.0,
    "gpus_per_replica": 1, "bandwidth_headroom": 0.3, "peak_hours_per_day": 4.0,
}  # fmt: skip


def month_csv(values: list[float], *, header: str = "timestamp,Mbit/s") -> bytes:
    """Five-minute samples from 2026-11-01 00:00, one `timestamp,value` row each."""
    start = datetime(2026, 11, 1)
    rows = [header] if header else []
    step = timedelta(minutes=5)
    rows += [f"{start + i * step:%Y-%m-%d %H:%M},{v:g}" for i, v in enumerate(values)]
    return ("\n".join(rows) + "\n").encode()


# A 30-day month: each day 14 samples at 800 Mbit/s, 10 at 500 and 264 at 100 (tests/domain's
# hand-worked month): 95th percentile 500 Mbit/s, peak 800, 47,925 GB.
GOOD_DAY = [800.0] * 14 + [500.0] * 10 + [100.0] * 264
GOOD_MONTH = month_csv(GOOD_DAY * 30)


@pytest.fixture
def csv_file() -> Callable[..., SimpleUploadedFile]:
    def make(content: bytes = GOOD_MONTH, name: str = "traffic.csv") -> SimpleUploadedFile:
        return SimpleUploadedFile(name, content, content_type="text/csv")

    return make


@pytest.fixture
def make_serving_setup(team_a, analyst_a):  # type: ignore[no-untyped-def]
    """Two training quotes (tcp, roce), an L40S serving quote, a serving workload and a mixed
    plan whose serving side runs on `plan_serving` ("serve" or "roce")."""

    def make(*, public_bandwidth_mbps: int = 2000, plan_serving: str = "serve") -> dict[str, Any]:
        tcp, roce = seed_quotes(team_a, analyst_a)
        vendor = make_vendor(team_a, "Serve Co")
        serve = make_quote(team_a, analyst_a, vendor, label="L40S serving", nodes=6,
                           gpu=GpuModel.objects.get(key="L40S"),
                           price_per_node_month=Decimal("16000"),
                           public_bandwidth_mbps=public_bandwidth_mbps, bandwidth_billing="p95",
                           bandwidth_price=Decimal("25"))  # fmt: skip
        workload = serving_workload_create(team=team_a, data=dict(SERVING_WORKLOAD))
        quotes = {"tcp": tcp, "roce": roce, "serve": serve}
        plan = mixed_plan_create(team=team_a, data={
            "name": "plan", "training_quote": roce, "training_months": 3,
            "training_bandwidth_mbps": 1000.0, "serving_workload": workload,
            "serving_quote": quotes[plan_serving], "horizon_months": 12,
            "bandwidth_price_mbps_month": Decimal("30"),
        })  # fmt: skip
        return {**quotes, "workload": workload, "plan": plan}

    return make


@pytest.fixture
def serving_setup(make_serving_setup) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return make_serving_setup()  # type: ignore[no-any-return]


@pytest.fixture
def count_queries() -> Callable[[Callable[[], object]], int]:
    def count(fn: Callable[[], object]) -> int:
        with CaptureQueriesContext(connection) as ctx:
            fn()
        return len(ctx.captured_queries)

    return count


@pytest.fixture(autouse=True)
def _own_media_root(settings, tmp_path):  # type: ignore[no-untyped-def]
    """Each test stores uploads in its own directory, so it can count the files it left."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
