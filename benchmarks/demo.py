"""Demo evidence: concurrent test runs on the fictional demo vendors' quoted networks.

One run per quoted network of the demo vendors (names contain "示例", see ``vendors.demo``):
10G TCP in Dongguan (iperf3 -J, 3 pairs × 2 streams), 100G RoCE in Shenzhen and 200G IB in
Guangzhou (ib_write_bw, 4 pairs each). Each run is linked to that vendor's quote, so its summary
sets the quote's measured bandwidth through the normal service path, and the ranking demo (loaded
after this app) ranks those offers on measured, not brochure, bandwidth. The logs are generated
by ``demo_data/make_demo_logs.py`` from the corpus layouts, with figures a real port could give.

The logs are parsed here, synchronously: ``demo_setup`` runs inside one transaction, so queued
parsing would only start after the ranking demo had already been computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.core.files.base import ContentFile

from quotes.models import Quote

from .services import benchmark_ingest, benchmark_parse, test_run_create

DATA = Path(__file__).resolve().parent / "demo_data"
DEMO_MARK = "示例"


@dataclass(frozen=True)
class DemoRun:
    fabric: str
    nic_gbps: int
    name: str
    notes: str
    prefix: str  # the run's files in demo_data/

    @property
    def files(self) -> list[Path]:
        return sorted(DATA.glob(f"{self.prefix}*"))


RUNS = (
    DemoRun(
        "tcp",
        10,
        "iperf3 -P 2 · 3 对并发 · 10G TCP / 3 concurrent pairs",
        "演示数据：验收期内 3 对服务器同时运行 iperf3 -J -P 2 -t 10。"
        " / Demo data: 3 server pairs ran iperf3 -J -P 2 -t 10 at the same time.",
        "dg10g_",
    ),
    DemoRun(
        "roce",
        100,
        "ib_write_bw · 4 对并发 · 100G RoCE / 4 concurrent pairs",
        "演示数据：4 对服务器同时运行 ib_write_bw --report_gbits -q 4。"
        " / Demo data: 4 server pairs ran ib_write_bw --report_gbits -q 4 at the same time.",
        "sz100g_",
    ),
    DemoRun(
        "ib",
        200,
        "ib_write_bw · 4 对并发 · 200G IB（每端口）/ 4 concurrent pairs, per port",
        "演示数据：4 对服务器各用一个 200G 端口同时运行 ib_write_bw，其中一对扫描了消息大小。"
        " / Demo data: 4 server pairs, one 200G port each, ran ib_write_bw at the same time;"
        " one pair swept the message sizes.",
        "gz200g_",
    ),
)


def demo_quote(team, spec: DemoRun) -> Quote | None:  # type: ignore[no-untyped-def]
    """The demo vendor's current quote on the network ``spec`` was measured on."""
    return (
        Quote.objects.filter(
            team=team,
            vendor__name_zh__contains=DEMO_MARK,
            data_centre__network__fabric=spec.fabric,
            data_centre__network__nic_gbps=spec.nic_gbps,
        )
        .select_related("vendor", "data_centre")
        .order_by("-is_current", "pk")
        .first()
    )


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    for spec in RUNS:
        quote = demo_quote(team, spec)
        if quote is None:
            continue
        run = test_run_create(
            team=team,
            user=user,
            vendor=quote.vendor,
            data_centre=quote.data_centre,
            quote=quote,
            name=spec.name,
            notes=spec.notes,
            # The demo's pairs were generated as one simultaneous test; their perftest logs carry
            # no clock, so the run says so (else they would be unplaced, counted link by link).
            started_together="yes",
        )
        created = []
        for path in spec.files:
            content = ContentFile(path.read_bytes(), name=path.name)
            outcome = benchmark_ingest(team=team, user=user, test_run=run, upload=content)
            created += outcome.created
        for log in created:  # the last one summarises the run and updates the quote
            benchmark_parse(log_id=log.pk)
