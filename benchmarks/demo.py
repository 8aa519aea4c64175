"""Demo data: a concurrent iperf3 run and an ib_write_bw run, so the pages show charts at once."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from django.core.files.base import ContentFile

from vendors.models import Vendor

from .services import benchmark_ingest, test_run_create

DATA = Path(__file__).resolve().parent / "demo_data"

RUNS = [
    (
        "iperf3 ×3 并发 / 3 concurrent pairs",
        Decimal("25"),
        "tcp",
        ["pair1_P4.json", "pair2_single.json", "pair3_reverse.json"],
    ),
    ("ib_write_bw RoCE", Decimal("200"), "roce", ["ib_write_bw_roce.txt", "ib_write_bw_sizes.txt"]),
]


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    vendors = list(Vendor.objects.filter(team=team).order_by("pk")[:2])
    if not vendors:
        return
    for index, (name, line_rate, fabric, files) in enumerate(RUNS):
        vendor = vendors[index % len(vendors)]
        run = test_run_create(
            team=team,
            user=user,
            vendor=vendor,
            data_centre=vendor.data_centres.first(),
            name=name,
            line_rate_gbps=line_rate,
            fabric=fabric,
            notes="demo",
        )
        for filename in files:
            content = ContentFile((DATA / filename).read_bytes(), name=filename)
            benchmark_ingest(team=team, user=user, test_run=run, upload=content)
