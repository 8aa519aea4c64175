"""One decision everywhere: a ranking with a three-way tie and an excluded vendor says the same
recommendation, tie, runner-up and savings on the ranking page, in the API, the PDF, the workbook,
the CSV and the dashboard; savings compare with eligible offers only; a job longer than an
offer's contract term is flagged on the offer and in the report."""

from __future__ import annotations

import csv
import io
import re
import subprocess
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from core.models import JobStatus
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import RankingRun
from rankings.tasks import run_job
from reports.selectors import report_data
from reports.services import report_build_sync
from vendors.models import DataCentre, NetworkProfile, Vendor
from vendors.services import vendor_refresh_findings

pytestmark = pytest.mark.django_db

TIED = (("示例甲算力", "Alpha Compute Ltd", 40000), ("示例乙算力", "Beta Compute Ltd", 40300),
        ("示例丙算力", "Gamma Compute Ltd", 40600))  # fmt: skip


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture
def tied_run(team_a, analyst_a):  # type: ignore[no-untyped-def]
    """Three near-identical claimed-bandwidth offers (a tie within their ranges), the third on a
    one-month term the job outlasts, and a much cheaper offer of an unlicensed vendor."""
    for zh, en, price in TIED:
        vendor = make_vendor(team_a, en)
        Vendor.objects.filter(pk=vendor.pk).update(name_zh=zh)
        vendor.refresh_from_db()
        make_quote(team_a, analyst_a, vendor, label=f"{en[:5]} 8×A100",
                   price_per_node_month=Decimal(price),
                   term_months=1 if price == 40600 else 36)  # fmt: skip
    bad = Vendor.objects.create(team=team_a, name_en="No Licence Co", name_zh="无证公司",
                                services=["gpu_rental", "idc"])  # fmt: skip
    dc = DataCentre.objects.create(vendor=bad, name="无证机房", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="roce", nic_gbps=Decimal("100"))
    bad = vendor_refresh_findings(vendor=bad)
    make_quote(team_a, analyst_a, bad, label="unlicensed 8×A100",
               price_per_node_month=Decimal("9000"), term_months=1)  # fmt: skip
    run = RankingRun.objects.create(team=team_a, created_by=analyst_a,
                                    workload=make_workload(team_a, train_tokens=2e12))  # fmt: skip
    run_job(run.pk)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE, run.error
    return run


def _build(team, user, run, kind, language="en"):  # type: ignore[no-untyped-def]
    report = report_build_sync(team=team, user=user, run=run, kind=kind, language=language)
    assert report.status == JobStatus.DONE, report.error
    return report


def test_the_stored_decision_is_a_three_way_tie_with_the_cheap_unlicensed_offer_excluded(
    tied_run,
):
    d = tied_run.decision
    by_label = {r.label: r for r in tied_run.results.all()}
    bad = by_label["unlicensed 8×A100"]
    assert bad.rank == 1 and not bad.eligible  # cheapest on cost, but excluded
    assert d["tie"] and len(d["tied"]) == 2 and d["excluded"] == 1
    runner = tied_run.results.get(decision_rank=2)
    assert d["runner_up"] == runner.offer_id
    # a tie claims no savings at all (and savings never compare with the excluded offer)
    assert d["savings"] == []


def test_page_api_pdf_workbook_csv_and_dashboard_say_the_same_decision(
    tied_run, team_a, analyst_a, client_as
):
    d = tied_run.decision
    client = client_as(analyst_a)
    recommended = tied_run.results.get(recommended=True)
    tied = list(tied_run.results.filter(tie_with_winner=True, recommended=False))
    headline_en = d["headline"]["en"]

    page = client.get(f"/rankings/{tied_run.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert _flat(headline_en) in _flat(page.replace("&amp;", "&").replace("&#x27;", "'"))

    api = client.get(f"/api/v1/rankings/{tied_run.pk}/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert api["decision"]["tied"] == d["tied"] and api["recommended"] == recommended.offer_id
    assert api["decision"]["runner_up"] == d["runner_up"]

    pdf = _build(team_a, analyst_a, tied_run, "pdf")
    text = subprocess.run(["pdftotext", "-layout", pdf.file.path, "-"], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    page_one = _flat(text.split("\f")[0])
    assert _flat(headline_en) in page_one  # the same tie sentence, three-way, same gap
    for r in [recommended, *tied]:
        assert _flat(r.label) in page_one
    assert _flat("no saving to claim") in page_one  # a tie: no savings table, no saving figure
    assert _flat("Runner-up") not in page_one.split("Savings")[1]

    wb = load_workbook(_build(team_a, analyst_a, tied_run, "xlsx").file.path)
    ws = wb["Ranking"]
    header = [c.value for c in ws[1]]
    rows = [dict(zip(header, (c.value for c in row), strict=True)) for row in ws.iter_rows(2)]
    assert [r["Offer"] for r in rows if r["Recommended"] == "yes"] == [recommended.label]
    assert sorted(r["Offer"] for r in rows if r["Tie with the recommended offer"] == "yes") == (
        sorted(t.label for t in tied)
    )
    excluded = [r for r in rows if r["Eligible"] == "no"]
    assert [r["Offer"] for r in excluded] == ["unlicensed 8×A100"]
    assert "Not eligible" in excluded[0]["Excluded because"]

    lines = list(csv.reader(io.StringIO(_build(team_a, analyst_a, tied_run, "csv")
                                        .file.read().decode("utf-8-sig"))))  # fmt: skip
    csv_rows = [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]
    assert [r["Offer"] for r in csv_rows if r["Recommended"] == "yes"] == [recommended.label]

    board = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    leaders = board.split('id="leaders"')[1].split("</section>")[0]
    assert recommended.label in leaders and "unlicensed" not in leaders
    assert "tie" in leaders


def test_a_job_longer_than_the_term_is_flagged_on_the_offer_and_in_the_workbook(
    tied_run, team_a, analyst_a
):
    short = tied_run.results.get(label__startswith="Gamma")
    assert short.job_hours > 730  # a one-month term cannot hold it
    codes = [w["code"] for w in short.warnings]
    assert "job_longer_than_term" in codes
    assert str(short.offer_id) in tied_run.decision["term_short"]
    long_term = tied_run.results.get(label__startswith="Alpha")
    assert "job_longer_than_term" not in [w["code"] for w in long_term.warnings]
    wb = load_workbook(_build(team_a, analyst_a, tied_run, "xlsx").file.path)
    ws = wb["Ranking"]
    header = [c.value for c in ws[1]]
    fits = {row[header.index("Offer")].value: row[header.index("Job fits the contract term")].value
            for row in ws.iter_rows(2)}  # fmt: skip
    assert fits[short.label] == "no" and fits[long_term.label] == "yes"


def test_english_exports_use_english_vendor_names_with_the_legal_name_beside(
    tied_run, team_a, analyst_a
):
    wb = load_workbook(_build(team_a, analyst_a, tied_run, "xlsx", language="en").file.path)
    vendors = {row[1].value for row in wb["Ranking"].iter_rows(2)}
    assert "Alpha Compute Ltd (示例甲算力)" in vendors
    zh = load_workbook(_build(team_a, analyst_a, tied_run, "xlsx", language="zh-hans").file.path)
    assert "示例甲算力" in {row[1].value for row in zh["排名"].iter_rows(2)}
    text = subprocess.run(
        ["pdftotext", "-layout", _build(team_a, analyst_a, tied_run, "pdf").file.path, "-"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "AlphaComputeLtd(示例甲算力)" in _flat(text)


def test_report_savings_never_compare_with_an_excluded_offer(tied_run):
    data = report_data(run=tied_run)
    assert data.winner is not None and data.winner.recommended
    assert all(s["result"].eligible for s in data.savings_rows)
    assert data.cheapest_rent is None or data.cheapest_rent.eligible
    assert data.runner_up is not None and data.runner_up.decision_rank == 2


def test_a_recommendation_slower_than_the_runner_up_says_so_on_page_one(
    demo_run, team_a, analyst_a
):
    saving = next(s for s in demo_run.decision["savings"] if s["kind"] == "runner_up")
    assert saving["hours_saved"] < 0  # the demo's cheaper winner trains more slowly
    text = subprocess.run(["pdftotext", _build(team_a, analyst_a, demo_run, "pdf").file.path,
                           "-"], capture_output=True, text=True, check=True).stdout  # fmt: skip
    page_one = re.sub(r"\s+", " ", text.split("\f")[0])
    assert f"It takes {-saving['hours_saved']:,.0f} h longer than the runner-up" in page_one
    assert "sooner than" not in page_one
