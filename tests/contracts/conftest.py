"""Fixtures of the contracts tests: a signed contract with servers and a schedule, and helpers
that write Prometheus answers, CSV series and kit uploads."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile

from contracts.models import DeliveryEvaluation, DeliveryUpload, DeliveryWindow
from contracts.services import contract_create, contract_servers_set, incident_create
from quotes.testing import make_quote, make_vendor

HOSTS = ["gpu-01", "gpu-02", "gpu-03", "gpu-04"]

SCHEDULE: dict[str, Any] = {
    "availability_bands": [
        {"below_pct": 99.5, "credit_pct": 10}, {"below_pct": 99.0, "credit_pct": 25},
    ],
    "bandwidth": {
        "threshold_fraction": 0.8, "min_duration_minutes": 60, "credit_pct_per_hour": 0.5,
    },
    "latency": None,
    "overruns": [{"kind": "response", "credit_pct_per_hour": 1.0}],
    "cap_pct": 30.0,
    "claim_window_days": 30,
}  # fmt: skip


def contract_data(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": "Rack A 8×H800", "starts_on": date(2026, 11, 1), "ends_on": date(2027, 11, 1),
        "monthly_fee": Decimal("320000"), "currency": "CNY", "committed_gbps": 100.0,
        "availability_pct": Decimal("99.9"), "response_minutes": 30, "repair_hours": 4.0,
        "schedule": dict(SCHEDULE),
    }  # fmt: skip
    data.update(over)
    return data


@pytest.fixture
def vendor_a(team_a):  # type: ignore[no-untyped-def]
    return make_vendor(team_a, "Rack Co")


@pytest.fixture
def quote_a(team_a, analyst_a, vendor_a):  # type: ignore[no-untyped-def]
    return make_quote(team_a, analyst_a, vendor_a, label="8×H800 RoCE")


@pytest.fixture
def contract_a(team_a, analyst_a, vendor_a):  # type: ignore[no-untyped-def]
    contract = contract_create(team=team_a, user=analyst_a, vendor=vendor_a, data=contract_data())
    contract_servers_set(contract=contract, servers=[{"hostname": h} for h in HOSTS])
    return contract


def prom_answer(series: list[tuple[dict[str, str], list[tuple[float, float]]]]) -> bytes:
    """A query_range answer as Prometheus writes it."""
    result = [{"metric": labels, "values": [[t, repr(v)] for t, v in values]}
              for labels, values in series]  # fmt: skip
    return json.dumps({"status": "success", "data": {"resultType": "matrix",
                                                     "result": result}}).encode()  # fmt: skip


Labelled = tuple[dict[str, str], list[tuple[float, float]]]


def counter_series(host: str, start: datetime, hours: int, gbps: float, *, step_s: int = 60,
                   metric: str = "node_network_transmit_bytes_total", device: str = "eth0",
                   reset_at: int | None = None) -> Labelled:  # fmt: skip
    """A byte counter growing at ``gbps``; ``reset_at`` (sample index) restarts it at zero."""
    rate = gbps * 1e9 / 8
    values, total = [], 0.0
    t0 = start.timestamp()
    for i in range(hours * 3600 // step_s + 1):
        if reset_at is not None and i == reset_at:
            total = 0.0
        values.append((t0 + i * step_s, total))
        total += rate * step_s
    labels = {"__name__": metric, "instance": f"{host}:9100", "device": device}
    return labels, values


def upload_file(content: bytes, name: str = "export.json") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


NOV = datetime(2026, 11, 2, tzinfo=UTC)
NOW = NOV + timedelta(days=3)


T0 = datetime(2026, 11, 2, tzinfo=UTC)


def kit_windows(contract, hours: int = 48, low: dict[str, tuple[int, int, float]] | None = None):  # type: ignore[no-untyped-def]
    """Hourly saturating (kit) windows at 95 Gbit/s; ``low`` maps a host to (first hour,
    hours, Gbit/s) delivered instead."""
    upload = DeliveryUpload.objects.create(
        contract=contract, kind="kit_log", original_name="kit.txt", size_bytes=3, sha256="0" * 64,
        status="done", file=ContentFile(b"kit", name="kit.txt"),
    )  # fmt: skip
    rows = []
    for host in HOSTS:
        first, count, gbps = (low or {}).get(host, (0, 0, 0.0))
        for h in range(hours):
            rows.append(DeliveryWindow(
                contract=contract, upload=upload, origin=f"upload:{upload.pk}", kind="kit",
                saturating=True, samples=1, host=host, starts_at=T0 + timedelta(hours=h),
                seconds=3600, delivered_gbps=gbps if first <= h < first + count else 95.0,
                up_fraction=1.0, coverage=1.0))  # fmt: skip
    DeliveryWindow.objects.bulk_create(rows)


@pytest.fixture
def evaluated(contract_a, analyst_a, api_as, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    kit_windows(contract_a, low={"gpu-02": (10, 3, 50.0)})
    incident_create(contract=contract_a, data={
        "started_at": T0 + timedelta(hours=30), "ended_at": T0 + timedelta(hours=35),
        "opened_at": T0 + timedelta(hours=30), "responded_at": T0 + timedelta(hours=32),
        "vendor_ticket": "INC-1"})  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        r = api_as(analyst_a).post(f"/api/v1/contracts/{contract_a.pk}/evaluate/")
    assert r.status_code == 202, r.content
    row = DeliveryEvaluation.objects.get()
    assert row.status == "done", row.error
    return row
