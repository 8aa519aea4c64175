"""Reports: PDF text and fonts, XLSX cells, CSV rows, task idempotence, bad input, roles,
isolation, API files and the decision dashboard."""

from __future__ import annotations

import csv
import io
import re
import subprocess
from decimal import Decimal

import pytest
from django.db.models import F
from django.urls import reverse
from openpyxl import load_workbook

from core.models import JobStatus
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import RankingRun
from rankings.tasks import run_job as rank_job
from reports.models import Report
from reports.services import report_build_sync, report_request
from reports.tasks import generate_report, run_job
from tests.reports.downloads import download

pytestmark = pytest.mark.django_db


def _pdf_text(path: str) -> str:
    return subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True,
                          check=True).stdout  # fmt: skip


def _build(team, user, run, kind, language="zh-hans"):  # type: ignore[no-untyped-def]
    report = report_build_sync(team=team, user=user, run=run, kind=kind, language=language)
    assert report.status == JobStatus.DONE, report.error
    return report


def _ranked(team, user, quotes=True):  # type: ignore[no-untyped-def]
    run = RankingRun.objects.create(team=team, created_by=user, workload=make_workload(team),
                                    all_current=True, label="bad input")  # fmt: skip
    rank_job(run.pk)
    run.refresh_from_db()
    return run


def test_the_demo_pdf_names_the_winner_in_chinese_with_an_embedded_cjk_font(
    demo_run, team_a, analyst_a
):
    log = _evidence_for_ranked_vendor(demo_run)
    report = _build(team_a, analyst_a, demo_run, "pdf", language="en")
    text = _pdf_text(report.file.path)
    assert log.sha256 in text.replace(" ", "") or log.sha256[:32] in text
    winner = demo_run.results.order_by("rank").first()
    flat = re.sub(r"\s+", "", text)
    assert "示例" in text and re.sub(r"\s+", "", winner.vendor_name) in flat
    assert "Recommendation" in text and "Decision asked for" in text
    assert f"{winner.cost_per_eth:,.2f} {winner.currency}" in text
    assert f"Ranking run #{demo_run.pk}" in text and "Team A 甲" in text
    info = subprocess.run(["pdfinfo", report.file.path], capture_output=True, text=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    assert f"Page 1 / {pages}" in text and f"Page {pages} / {pages}" in text
    assert "Runner-up" in text and "Saving" in text and "CNY" in text
    for section in ("Risks", "Sensitivity", "Vendor:", "Benchmark evidence", "offer inputs"):
        assert section in text
    fonts = subprocess.run(["pdffonts", report.file.path], capture_output=True, text=True).stdout
    cjk = [line for line in fonts.splitlines() if "CJK" in line]
    assert cjk and all(" yes " in line for line in cjk)  # embedded
    assert report.sha256 and len(report.sha256) == 64 and report.size_bytes > 10_000


def test_the_pdf_is_in_the_users_language(demo_run, team_a, analyst_a):
    text = _pdf_text(_build(team_a, analyst_a, demo_run, "pdf", language="zh-hans").file.path)
    # the project catalogue (locale/) takes precedence over the app catalogue
    assert "推荐" in text and "排名" in text and "页" in text


def _evidence_for_ranked_vendor(run):  # type: ignore[no-untyped-def]
    """The benchmarks demo tests vendors the quotes demo does not quote: move its runs to one."""
    from benchmarks.models import BenchmarkLog, TestRun
    from quotes.models import Quote

    quote = Quote.objects.get(pk=run.snapshot["offers"][0]["quote_id"])
    TestRun.objects.filter(team=run.team).update(vendor=quote.vendor, data_centre=None)
    return BenchmarkLog.objects.filter(team=run.team, is_archive=False).exclude(sha256="").first()


def test_the_workbook_stores_numbers_with_formats(demo_run, team_a, analyst_a):
    log = _evidence_for_ranked_vendor(demo_run)
    report = _build(team_a, analyst_a, demo_run, "xlsx", language="en")
    wb = load_workbook(report.file.path)
    assert wb.sheetnames == ["Ranking", "Breakdown", "Model detail", "Inputs", "Evidence"]
    ws = wb["Ranking"]
    results = list(demo_run.results.order_by(F("decision_rank").asc(nulls_last=True), "rank"))
    assert ws.max_row == 1 + len(results)
    header = [c.value for c in ws[1]]
    currency = results[0].currency  # money columns name their currency
    cost = ws.cell(row=2, column=header.index(f"Cost per ETH ({currency})") + 1)
    # money to the cent, as the page shows it: the deciding figure (risk-adjusted where a
    # premium decides), the bare cost in its own labelled column
    assert isinstance(cost.value, int | float)
    assert cost.value == pytest.approx(results[0].deciding_cost_per_eth, abs=0.005)
    assert cost.number_format == "#,##0.00"
    bare = ws.cell(row=2, column=header.index(
        f"Cost per ETH without risk premium ({currency})") + 1)  # fmt: skip
    assert bare.value == pytest.approx(results[0].cost_per_eth, abs=0.005)
    ranks = [ws.cell(row=i + 2, column=1).value for i in range(len(results))]
    assert ranks == [r.decision_rank if r.eligible else None for r in results]
    util = ws.cell(row=2, column=header.index("Utilisation") + 1)
    assert util.number_format == "0.0%" and 0 < util.value <= 1
    assert util.value == pytest.approx(results[0].utilisation, abs=0.0005)  # 0.0 % shown
    assert isinstance(ws.cell(row=2, column=1).value, int)
    inputs = {(r[0], r[1]): r[2] for r in wb["Inputs"].iter_rows(min_row=2, values_only=True)}
    assert inputs[("Workload", "Model size (parameters)")] == pytest.approx(7.0)
    evidence = list(wb["Evidence"].iter_rows(min_row=2, values_only=True))
    assert any(row[6] == log.sha256 for row in evidence)  # log SHA-256


def test_the_csv_has_one_row_per_result(demo_run, team_a, analyst_a):
    report = _build(team_a, analyst_a, demo_run, "csv", language="en")
    with open(report.file.path, "rb") as fh:
        raw = fh.read()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0][:3] == ["Rank", "Vendor", "Offer"]
    assert len(rows) == 1 + demo_run.results.count()
    assert rows[1][0] == "1" and float(rows[1][5]) > 0


def test_running_the_task_twice_keeps_one_row_and_one_file(
    demo_run, team_a, analyst_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        report = report_request(team=team_a, user=analyst_a, run=demo_run, kind="xlsx")
    report.refresh_from_db()
    assert report.status == JobStatus.DONE and report.progress == 100
    first = (report.file.name, report.sha256)
    generate_report.apply(args=[report.pk])
    run_job(report.pk)
    report.refresh_from_db()
    assert Report.objects.filter(run=demo_run).count() == 1
    assert (report.file.name, report.sha256) == first and report.attempts == 1


def test_an_empty_ranking_still_renders_and_says_what_is_missing(team_a, analyst_a):
    run = _ranked(team_a, analyst_a)
    assert run.status == JobStatus.DONE and not run.results.exists()
    text = _pdf_text(_build(team_a, analyst_a, run, "pdf", language="en").file.path)
    assert "no results" in text and "no recommendation" in text
    wb = load_workbook(_build(team_a, analyst_a, run, "xlsx", language="en").file.path)
    assert "no results" in wb["Ranking"].cell(row=2, column=2).value
    assert _build(team_a, analyst_a, run, "csv").size_bytes > 0


def test_long_names_mixed_currencies_and_missing_vendor_data_render(team_a, analyst_a):
    long_name = "超长供应商名称" * 28  # 196 characters
    vendor = make_vendor(team_a, long_name)
    bare = make_vendor(team_a, "Bare vendor")
    bare.data_centres.all().delete()
    make_quote(team_a, analyst_a, vendor, label="L" * 120)
    make_quote(team_a, analyst_a, bare, label="dollars", currency="USD",
               price_per_node_month=Decimal("5500"), fx_to_cny=Decimal("7.2"))  # fmt: skip
    run = _ranked(team_a, analyst_a)
    assert run.results.count() == 2
    assert {r.currency for r in run.results.all()} == {"CNY"}
    text = _pdf_text(_build(team_a, analyst_a, run, "pdf", language="en").file.path)
    assert "No SLA terms recorded." in text and "No data centre recorded." in text
    assert "USD" in text and "超长供应商名称" in text
    wb = load_workbook(_build(team_a, analyst_a, run, "xlsx").file.path)
    assert any(long_name in (c.value or "") for c in wb.worksheets[0]["B"])


def test_another_team_sees_none_of_the_reports(
    demo_run, team_a, analyst_a, analyst_b, api_as, client_as
):
    report = _build(team_a, analyst_a, demo_run, "pdf")
    api = api_as(analyst_b)
    listed = api.get("/api/v1/reports/").json()
    assert (listed["results"] if isinstance(listed, dict) else listed) == []
    assert api.get(f"/api/v1/reports/{report.pk}/").status_code == 404
    assert api.get(f"/api/v1/rankings/{demo_run.pk}/report.pdf").status_code == 404
    assert api.post("/api/v1/reports/", {"run": demo_run.pk, "kind": "pdf"}).status_code == 400
    web = client_as(analyst_b)
    for name in ("reports:download", "reports:status", "reports:ranking"):
        pk = demo_run.pk if name == "reports:ranking" else report.pk
        assert web.get(reverse(name, args=[pk])).status_code == 404


def test_a_viewer_downloads_but_cannot_request(
    demo_run, team_a, analyst_a, viewer_a, api_as, client_as
):
    api = api_as(viewer_a)
    assert api.get(f"/api/v1/rankings/{demo_run.pk}/report.pdf").status_code == 404  # none yet
    assert api.post("/api/v1/reports/", {"run": demo_run.pk, "kind": "pdf"}).status_code == 403
    report = _build(team_a, analyst_a, demo_run, "pdf", language="en")
    response = api.get(f"/api/v1/rankings/{demo_run.pk}/report.pdf")
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert b"".join(response.streaming_content).startswith(b"%PDF")
    web = client_as(viewer_a)
    assert web.get(reverse("reports:download", args=[report.pk])).status_code == 200
    assert (
        web.post(reverse("reports:ranking", args=[demo_run.pk]), {"kind": "csv"}).status_code == 403
    )


def test_the_api_starts_a_job_when_there_is_no_file_then_serves_it(demo_run, analyst_a, api_as):
    api = api_as(analyst_a)
    url = f"/api/v1/rankings/{demo_run.pk}/report.xlsx"
    first = api.get(url, HTTP_ACCEPT="*/*")
    assert first.status_code == 202 and first.json()["status"] == "pending"
    assert first["Retry-After"]
    response = download(api, url, HTTP_ACCEPT="*/*")
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert body[:2] == b"PK"
    api.get(f"/api/v1/rankings/{demo_run.pk}/report.xlsx")
    assert Report.objects.filter(run=demo_run, kind="xlsx").count() == 1
    listed = api.get("/api/v1/reports/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert rows[0]["sha256"] == response["X-Content-SHA256"]


def test_requesting_from_the_page_shows_it_in_the_list(
    demo_run, analyst_a, client_as, django_capture_on_commit_callbacks
):
    web = client_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        response = web.post(reverse("reports:ranking", args=[demo_run.pk]), {"kind": "csv"})
    assert response.status_code == 302
    page = web.get(reverse("reports:ranking", args=[demo_run.pk])).content.decode()
    assert "Download" in page or "下载" in page
    report = Report.objects.get(run=demo_run)
    status = web.get(reverse("reports:status", args=[report.pk])).json()
    assert status["finished"] and status["download_url"]


def test_the_dashboard_shows_leaders_red_flags_and_missing_evidence(demo_run, analyst_a, client_as):
    page = client_as(analyst_a).get("/").content.decode()
    leader = demo_run.results.order_by("rank").first()
    assert leader.label in page
    for section in ("open-evaluations", "leaders", "red-flags", "missing-evidence"):
        assert f'id="{section}"' in page
    page2 = client_as(analyst_a).get(reverse("reports:dashboard")).content.decode()
    assert leader.label in page2


def test_the_demo_loader_leaves_finished_reports(demo_run, team_a, analyst_a):
    import reports.demo

    reports.demo.load(team=team_a, user=analyst_a)
    kinds = set(
        Report.objects.filter(run=demo_run, status=JobStatus.DONE).values_list("kind", flat=True)
    )
    assert {"pdf", "xlsx"} <= kinds
