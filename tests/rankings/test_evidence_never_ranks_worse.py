"""The rule: of two identical quotes, the one with clean evidence never ranks worse, unless its
evidence measured less per port than the claim, and then by exactly that shortfall.

Real one-port logs (tests/domain/data/corpus): ib_write_bw at 394.4 Gbit/s on a 400G IB port and
190.5 Gbit/s on a 200G RoCE port, attached to one of two identical quotes (16 servers × 8 H800,
8 NICs, same price) through the normal upload, parse and ranking path.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as run_create
from domain.evidence.linkrates import achievable_gbps, rdma_payload_share
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.services import ranking_start
from reports.pdf import pdf_context
from reports.selectors import report_data

pytestmark = pytest.mark.django_db
CORPUS = Path(__file__).resolve().parents[1] / "domain" / "data" / "corpus" / "ib_write_bw"
IB_400G = CORPUS / "ru_cloud_numa_table_only_gbits.txt"  # 394.4 Gbit/s, one port
# ConnectX-7 NDR between two hosts (390.5 Gbit/s, one port). The RoCE XRC log used before ran
# server and client on one host (the same GID at both ends): loopback, set aside.
NDR_CX7 = CORPUS.parent / "ib_send_bw" / "cx7_ndr_session_send_bw_lat_read_write.txt"


def _quote(team, user, vendor, label: str, nic_gbps: float, fabric: str) -> Quote:  # type: ignore[no-untyped-def]
    return make_quote(
        team, user, vendor, label=label, gpu=GpuModel.objects.get(key="H800-SXM"), nodes=16,
        gpus_per_node=8, nic_gbps=nic_gbps, nics_per_node=8, fabric=fabric,
        price_per_node_month=Decimal("82000"), monthly_fees=Decimal("0"),
    )  # fmt: skip


def _attach(team, user, quote: Quote, log: Path, capture) -> Quote:  # type: ignore[no-untyped-def]
    run = run_create(team=team, user=user, vendor=quote.vendor, quote=quote, name=log.name)
    with capture(execute=True):
        benchmark_ingest(
            team=team,
            user=user,
            test_run=run,
            upload=SimpleUploadedFile(log.name, log.read_bytes()),
        )
    return Quote.objects.get(pk=quote.pk)


def _rank(team, user, quotes, capture):  # type: ignore[no-untyped-def]
    workload = make_workload(team, nodes=16)
    with capture(execute=True):
        run = ranking_start(team=team, user=user, workload=workload, quotes=quotes)
    run.refresh_from_db()
    return run, {r.quote_version_id: r for r in run.results.all()}


@pytest.mark.parametrize(
    ("log", "fabric", "claim", "per_port"),
    [(IB_400G, "ib", 400.0, 394.4), (NDR_CX7, "ib", 400.0, 390.55)],
)
def test_a_clean_one_port_log_costs_exactly_its_shortfall(  # type: ignore[no-untyped-def]
    team_a,
    analyst_a,
    api_as,
    client_as,
    django_capture_on_commit_callbacks,
    log,
    fabric,
    claim,
    per_port,
):
    vendor = make_vendor(team_a, f"Twin {fabric}", fabric=fabric, gbps=claim)
    plain = _quote(team_a, analyst_a, vendor, "claim only", claim, fabric)
    evidenced = _quote(team_a, analyst_a, vendor, "with evidence", claim, fabric)
    evidenced = _attach(team_a, analyst_a, evidenced, log, django_capture_on_commit_callbacks)
    # The same offer, without evidence, quoting a port whose achievable rate is exactly what
    # the log measured per port (a claim counts at its data rate less headers, linkrates.py; a
    # rate no IB generation is sold at keeps its nominal data rate).
    measured_port = evidenced.measured_gbps / 8
    at_measured = _quote(
        team_a, analyst_a, vendor, "claims the measured rate",
        measured_port / rdma_payload_share(fabric), fabric,
    )  # fmt: skip
    assert achievable_gbps(fabric, claim) > per_port  # a shortfall below what 400G carries
    assert evidenced.measured_gbps == pytest.approx(8 * per_port, rel=1e-3), (
        evidenced.measured_derivation
    )
    assert evidenced.measured_ports_tested == 1 and evidenced.measured_kind == "link"
    assert evidenced.measured_derivation["en"].startswith(f"8 ports × {per_port:.0f} Gbit/s")
    assert evidenced.measured_low_gbps < evidenced.measured_gbps
    run, by_version = _rank(
        team_a, analyst_a, [plain, evidenced, at_measured], django_capture_on_commit_callbacks
    )
    cost = {
        q.label: by_version[q.current_version_id].cost_per_eth
        for q in (plain, evidenced, at_measured)
    }
    # Worse than the claim by exactly the per-port shortfall: the cost of a claim credited 394.4.
    assert cost["with evidence"] == pytest.approx(cost["claims the measured rate"], rel=1e-9)
    assert cost["claim only"] <= cost["with evidence"] <= cost["claim only"] * claim / per_port
    # The API reads the same stored ranking and names the derivation beside the figure.
    body = api_as(analyst_a).get(f"/api/v1/rankings/{run.pk}/").json()
    rows = {row["label"]: row for row in body["results"]}
    assert rows["with evidence"]["cost_per_eth"] == pytest.approx(cost["with evidence"])
    assert "measured on 1 port" in rows["with evidence"]["evidence"]["en"]
    assert rows["claim only"]["evidence"] is None
    # The web ranking and the PDF report's ranking table show the derivation beside the figure.
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    page = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert f"8 ports × {per_port:.0f} Gbit/s measured on 1 port, not tested together" in page
    with translation.override("zh-hans"):
        html = render_to_string("reports/pdf/report.html", pdf_context(report_data(run=run)))
    assert f"8 个端口 × {per_port:.0f} Gbit/s（实测 1 个端口，未同时测试）" in html


def test_evidence_at_line_rate_never_ranks_worse(
    team_a, analyst_a, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    # 394.4 Gbit/s on one port of a 200G IB claim is more than such a port carries: the log is
    # set aside (never priced), so the quote costs exactly what the claim costs, never more.
    vendor = make_vendor(team_a, "Twin 200G IB", fabric="ib", gbps=200)
    plain = _quote(team_a, analyst_a, vendor, "claim only", 200.0, "ib")
    evidenced = _quote(team_a, analyst_a, vendor, "with evidence", 200.0, "ib")
    evidenced = _attach(team_a, analyst_a, evidenced, IB_400G, django_capture_on_commit_callbacks)
    assert evidenced.measured_gbps is None
    log = BenchmarkLog.objects.get(test_run__quote=evidenced)
    assert [r["code"] for r in log.admission["reasons"]] == ["admission.above_line_rate"]
    _run, by_version = _rank(
        team_a, analyst_a, [plain, evidenced], django_capture_on_commit_callbacks
    )
    evid, claim = by_version[evidenced.current_version_id], by_version[plain.current_version_id]
    assert evid.cost_per_eth <= claim.cost_per_eth
    assert evid.cost_per_eth == pytest.approx(claim.cost_per_eth, rel=1e-9)
