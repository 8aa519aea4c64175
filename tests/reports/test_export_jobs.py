"""Every export is a job: the download URL answers 202 with the job until the file exists, then
the file; one row (one build) per file; a build past its time limit ends failed with its reason
and is never sent again; workbooks hold money to the cent."""

from __future__ import annotations

import io
import threading
import zipfile
from datetime import timedelta
from decimal import Decimal

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from openpyxl import load_workbook

from core import jobs
from core.models import JobStatus
from core.tasks import requeue_stale_jobs
from rankings.models import RankingRun
from reports import services as report_services
from reports.models import ListExport, Report
from reports.xlsx import MONEY, RANKING_COLUMNS
from tests.reports.downloads import body, download, run_pending_exports

pytestmark = pytest.mark.django_db


def test_the_api_answers_202_with_the_job_then_the_file(demo_run, analyst_a, api_as):
    api = api_as(analyst_a)
    url = f"/api/v1/rankings/{demo_run.pk}/report.pdf"
    first = api.get(url)
    assert first.status_code == 202
    job = first.json()
    assert job["status"] == "pending" and job["progress"] == 0 and job["code"] == "export_pending"
    again = api.get(url)  # asked again before a worker took it: the same job, no second row
    assert again.status_code == 202 and again.json()["id"] == job["id"]
    assert Report.objects.filter(run=demo_run, kind="pdf").count() == 1
    assert run_pending_exports() == 1
    done = api.get(url)
    assert done.status_code == 200 and body(done).startswith(b"%PDF")
    assert api.get(url)["X-Content-SHA256"] == done["X-Content-SHA256"]  # the same file
    assert Report.objects.filter(run=demo_run, kind="pdf").count() == 1


def test_a_ranking_computed_again_gets_a_new_file(demo_run, analyst_a, api_as):
    api = api_as(analyst_a)
    url = f"/api/v1/rankings/{demo_run.pk}/report.csv"
    first = download(api, url)
    assert first.status_code == 200
    RankingRun.objects.filter(pk=demo_run.pk).update(finished_at=timezone.now())
    assert api.get(url).status_code == 202  # new results: a new file is built
    assert Report.objects.filter(run=demo_run, kind="csv").count() == 2


def test_the_page_shows_progress_and_reloads_until_the_file_exists(demo_run, analyst_a, client_as):
    web = client_as(analyst_a)
    url = reverse("reports:ranking-file", args=[demo_run.pk, "xlsx"])
    first = web.get(url)
    assert first.status_code == 202
    page = first.content.decode()
    assert 'http-equiv="refresh"' in page and 'role="progressbar"' in page
    assert "The file is waiting for a worker." in page
    zh = web.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")  # its own job: a Chinese workbook
    assert zh.status_code == 202 and "页面会自动刷新" in zh.content.decode()
    run_pending_exports()
    done = web.get(url)
    assert done.status_code == 200 and body(done)[:2] == b"PK"
    assert done["Content-Disposition"].startswith("attachment;")


def test_list_exports_are_jobs_keyed_by_their_filters_and_the_rows_stamps(
    demo_run, analyst_a, client_as
):
    web = client_as(analyst_a)
    url = reverse("quotes-export", args=["xlsx"])
    assert web.get(url, {"sort": "label"}).status_code == 202
    assert web.get(url, {"sort": "label", "page": "3"}).status_code == 202  # same file
    assert ListExport.objects.count() == 1
    as_json = web.get(url, {"sort": "label"}, HTTP_ACCEPT="application/json")
    assert as_json.status_code == 202 and as_json.json()["status"] == "pending"
    run_pending_exports()
    assert web.get(url, {"sort": "label"}).status_code == 200
    assert web.get(url, {"sort": "-label"}).status_code == 202  # other order: another file
    from quotes.models import Quote

    Quote.objects.filter(team=demo_run.team).update(updated_at=timezone.now())
    assert web.get(url, {"sort": "label"}).status_code == 202  # a quote changed: a new file
    assert ListExport.objects.count() == 3


def test_another_team_gets_404_for_the_files_and_their_jobs(
    demo_run, analyst_a, analyst_b, api_as, client_as
):
    response = download(api_as(analyst_a), f"/api/v1/rankings/{demo_run.pk}/report.xlsx")
    assert response.status_code == 200
    report = Report.objects.get(run=demo_run, kind="xlsx")
    other = api_as(analyst_b)
    assert other.get(f"/api/v1/rankings/{demo_run.pk}/report.xlsx").status_code == 404
    web = client_as(analyst_b)
    assert web.get(reverse("reports:ranking-file", args=[demo_run.pk, "xlsx"])).status_code == 404
    assert web.get(reverse("reports:download", args=[report.pk])).status_code == 404
    assert web.get(reverse("reports:status", args=[report.pk])).status_code == 404


def test_a_build_that_runs_out_of_time_fails_with_its_reason_and_is_not_sent_again(
    demo_run, analyst_a, api_as, monkeypatch
):
    api = api_as(analyst_a)
    url = f"/api/v1/rankings/{demo_run.pk}/report.xlsx"
    assert api.get(url).status_code == 202
    report = Report.objects.get(run=demo_run, kind="xlsx")

    def too_slow(*, report_id, progress=None):  # type: ignore[no-untyped-def]
        raise SoftTimeLimitExceeded  # what Celery raises in the task at its soft time limit

    monkeypatch.setattr(report_services, "report_generate", too_slow)
    assert jobs.run("report", report.pk) == "timed out"
    report.refresh_from_db()
    assert report.status == JobStatus.FAILED and report.attempts == 1
    assert "time limit" in report.error and "时限" in report.error
    sent = []
    monkeypatch.setattr("core.tasks.enqueue", lambda task, pk, job_row=None: sent.append(pk))
    requeue_stale_jobs(older_than_s=0, running_for_s=0)
    assert sent == [] and Report.objects.get(pk=report.pk).status == JobStatus.FAILED
    failed = api.get(url)
    assert failed.status_code == 409 and failed.json()["code"] == "export_failed"
    assert "时限" in failed.json()["error"]
    # asking again by POST (the user's own decision) starts it once more, with fresh attempts
    monkeypatch.undo()
    again = api.post("/api/v1/reports/", {"run": demo_run.pk, "kind": "xlsx", "language": "en"})
    assert again.status_code == 202 and again.json()["id"] == report.pk
    assert Report.objects.get(pk=report.pk).status == JobStatus.PENDING


def test_the_job_systems_own_deadline_stops_a_build_at_its_next_progress_report(
    demo_run, analyst_a, settings
):
    settings.EXPORT_TIME_LIMIT_S = 1
    report = report_services.report_request(team=demo_run.team, user=analyst_a, run=demo_run,
                                            kind="pdf", language="en")  # fmt: skip
    Report.objects.filter(pk=report.pk).update(attempts=0)
    real = timezone.now

    # the clock jumps past the limit once the build has started
    monkey = {"calls": 0}

    def later():  # type: ignore[no-untyped-def]
        monkey["calls"] += 1
        return real() + timedelta(seconds=5) if monkey["calls"] > 2 else real()

    import core.jobs

    core.jobs.timezone.now = later  # type: ignore[method-assign]
    try:
        assert jobs.run("report", report.pk) == "timed out"
    finally:
        core.jobs.timezone.now = real  # type: ignore[method-assign]
    report.refresh_from_db()
    assert report.status == JobStatus.FAILED and "1 s" in report.error and not report.sha256


def test_the_re_sender_fails_a_build_past_its_time_limit_or_out_of_attempts(
    demo_run, analyst_a, monkeypatch, settings
):
    settings.EXPORT_TIME_LIMIT_S = 60
    late = report_services.report_request(team=demo_run.team, user=analyst_a, run=demo_run,
                                          kind="pdf", language="en")  # fmt: skip
    used = report_services.report_request(team=demo_run.team, user=analyst_a, run=demo_run,
                                          kind="xlsx", language="en")  # fmt: skip
    long_ago = timezone.now() - timedelta(minutes=10)
    # a worker killed at its hard time limit leaves the row running, its heartbeat stopped
    Report.objects.filter(pk=late.pk).update(
        status=JobStatus.RUNNING, attempts=1, started_at=long_ago, heartbeat_at=long_ago
    )
    # a build that twice stopped its worker (out of memory) and is still marked running
    Report.objects.filter(pk=used.pk).update(
        status=JobStatus.RUNNING, attempts=2, started_at=timezone.now() - timedelta(seconds=30),
        heartbeat_at=long_ago,
    )  # fmt: skip
    sent = []
    monkeypatch.setattr("core.tasks.enqueue", lambda task, pk, job_row=None: sent.append(pk))
    requeue_stale_jobs()
    assert late.pk not in sent and used.pk not in sent
    late.refresh_from_db()
    used.refresh_from_db()
    assert late.status == JobStatus.FAILED and "60 s" in late.error and "时限" in late.error
    assert used.status == JobStatus.FAILED and "2 times" in used.error


@pytest.mark.django_db(transaction=True)
def test_two_requests_at_once_start_one_build(demo_run_committed, monkeypatch):

    if connection.vendor != "postgresql":
        pytest.skip("racing requests need PostgreSQL's row locks (SQLite locks the whole file)")
    run, analyst = demo_run_committed
    sent = []
    lock = threading.Lock()

    def count(report):  # type: ignore[no-untyped-def]
        with lock:
            sent.append(report.pk)
        return True

    monkeypatch.setattr(report_services, "_enqueue", count)
    barrier = threading.Barrier(4)
    answers = []

    def ask() -> None:
        client = Client()
        client.force_login(analyst)
        barrier.wait()
        try:
            answers.append(client.get(f"/api/v1/rankings/{run.pk}/report.xlsx").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert answers == [202] * 4
    assert Report.objects.filter(run=run, kind="xlsx").count() == 1
    assert len(sent) == 1  # one build sent to the workers


@pytest.fixture
def demo_run_committed(transactional_db, make_user):  # type: ignore[no-untyped-def]
    import benchmarks.demo
    import quotes.demo
    import rankings.demo
    import vendors.demo
    from accounts.models import Team

    team = Team.objects.create(name="Team T", slug="team-t")
    analyst = make_user("tina", team)
    for module in (vendors.demo, quotes.demo, benchmarks.demo, rankings.demo):
        module.load(team=team, user=analyst)
    return RankingRun.objects.get(team=team), analyst


def _xml_numbers(raw: bytes, sheet: int = 1) -> list[str]:
    import re

    xml = zipfile.ZipFile(io.BytesIO(raw)).read(f"xl/worksheets/sheet{sheet}.xml").decode()
    return re.findall(r"<v>([-0-9.eE+]+)</v>", xml)


def test_workbook_money_is_exact_to_the_cent_and_formatted_as_the_page(demo_run, analyst_a, api_as):
    # a rent the cost model stored as a float a hair under 419,000
    best = demo_run.results.order_by("rank").first()
    type(best).objects.filter(pk=best.pk).update(
        monthly_rent=418999.9999999999, cost_per_eth=1234.5650000000001, job_cost=1e6 / 3
    )
    raw = body(download(api_as(analyst_a), f"/api/v1/rankings/{demo_run.pk}/report.xlsx"))
    wb = load_workbook(io.BytesIO(raw))
    ws = wb.worksheets[0]
    header = [c.value for c in ws[1]]
    money_columns = [i for i, (_t, fmt) in enumerate(RANKING_COLUMNS) if fmt == MONEY]
    assert len(money_columns) >= 5
    currencies = {r.currency for r in demo_run.results.all()}
    named = f"({next(iter(currencies))})" if len(currencies) == 1 else "(in the offer's currency)"
    for i in money_columns:
        assert header[i].endswith(named), header[i]
        for (cell,) in ws.iter_rows(min_row=2, min_col=i + 1, max_col=i + 1):
            if cell.value is None:
                continue
            assert cell.number_format == "#,##0.00", (header[i], cell.number_format)
            exact = Decimal(repr(cell.value))
            assert exact == exact.quantize(Decimal("0.01")), (header[i], cell.value)
    rent_col = [str(t) for t, _f in RANKING_COLUMNS].index("Rent per month")
    assert ws.cell(row=2, column=rent_col + 1).value == 419000
    # no 12-digit float anywhere: every number in every sheet's XML has at most 4 decimals
    for n in range(1, len(wb.worksheets) + 1):
        for text in _xml_numbers(raw, n):
            assert "e" not in text.lower() and len(text.partition(".")[2]) <= 4, (n, text)
    sheet = zipfile.ZipFile(io.BytesIO(raw)).read("xl/worksheets/sheet1.xml").decode()
    assert "<v>419000.00</v>" in sheet and "418999.99" not in sheet


def test_csv_money_is_exact_to_the_cent(demo_run, analyst_a, api_as):
    best = demo_run.results.order_by("rank").first()
    type(best).objects.filter(pk=best.pk).update(monthly_rent=418999.9999999999)
    text = body(download(api_as(analyst_a), f"/api/v1/rankings/{demo_run.pk}/report.csv"))
    assert b"419000.00" in text and b"418999.9999" not in text
