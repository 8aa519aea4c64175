"""core.jobs under real faults: a job that keeps killing its worker
is failed for good after its attempts (no crash loop), a job whose worker died is re-queued as
soon as its heartbeat stops (not after the broker's one-hour visibility timeout), and a report
job survives its worker being killed."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkLog
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as create_test_run
from core import jobs
from core.models import JobStatus
from core.tasks import requeue_stale_jobs
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingResult, RankingRun
from rankings.services import ranking_run_sync
from reports.models import Report
from reports.services import report_request
from vendors.models import DataCentre, NetworkProfile, Vendor

from .conftest import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

P4 = Path(__file__).parents[1] / "domain/data/corpus/iperf3-json/local_3.12_tcp_P4.json"
FAST = {
    "CELERY_VISIBILITY_TIMEOUT": "2",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
}
SLOW = {**FAST, "PORTAL_FAULT_DELAY_S": "120"}


def _log_upload(team, user):  # type: ignore[no-untyped-def]
    vendor = Vendor.objects.create(team=team, name_zh="毒消息厂商")
    dc = DataCentre.objects.create(vendor=vendor, name="DC", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="tcp", nic_gbps=25, nics_per_node=8)
    run = create_test_run(team=team, user=user, vendor=vendor, data_centre=dc, name="poison")
    outcome = benchmark_ingest(
        team=team, user=user, test_run=run, upload=SimpleUploadedFile("P4.json", P4.read_bytes())
    )
    (log,) = outcome.created
    return log


def test_a_job_that_keeps_killing_its_worker_is_failed_for_good(start_worker, team_a, analyst_a):
    log = _log_upload(team_a, analyst_a)
    limit = jobs.get("parse").max_attempts
    for attempt in range(1, limit + 1):
        worker = start_worker(PORTAL_FAULT_DELAY_AT="parse", **SLOW)
        wait_for(
            lambda n=attempt, w=worker: BenchmarkLog.objects.filter(pk=log.pk, attempts=n).exists()
            and "fault-test delay" in w.output(),
            60, f"attempt {attempt} to reach the parser",
        )  # fmt: skip
        worker.kill9()  # what the kernel's OOM killer does to a worker eating all memory
    log.refresh_from_db()
    assert log.status == JobStatus.RUNNING and log.attempts == limit

    start_worker(**FAST)  # the message comes back once more: it must not be run again
    wait_for(
        lambda: BenchmarkLog.objects.filter(pk=log.pk, status=JobStatus.FAILED).exists(),
        60, "the poison message to be refused",
    )  # fmt: skip
    log.refresh_from_db()
    assert log.attempts == limit and log.result is None
    assert f"stopped its worker {limit} times" in log.error and "不再重试" in log.error


def test_a_dead_workers_job_is_requeued_when_its_heartbeat_stops(
    start_worker, team_a, analyst_a, settings
):
    seed_quotes(team_a, analyst_a)
    run = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=make_workload(team_a)
    )
    # The broker's own redelivery is an hour away, as in production.
    first = start_worker(
        PORTAL_FAULT_DELAY_AT="ranking:70", PORTAL_FAULT_DELAY_S="120", JOB_HEARTBEAT_S="0.5"
    )
    assert jobs.submit("rank", run)
    wait_for(lambda: "fault-test delay" in first.output(), 60, "the worker to be mid-ranking")
    run.refresh_from_db()
    beat = run.heartbeat_at
    wait_for(lambda: RankingRun.objects.get(pk=run.pk).heartbeat_at > beat, 10, "a heartbeat")
    first.kill9()

    settings.JOB_STALE_HEARTBEAT_S = 2
    assert requeue_stale_jobs()["rankings.RankingRun"] == 0  # still fresh: left alone
    wait_for(
        lambda: requeue_stale_jobs().get("rankings.RankingRun") == 1,
        15, "the silent job to be sent again",
    )  # fmt: skip
    start_worker(JOB_HEARTBEAT_S="0.5")
    wait_for(
        lambda: RankingRun.objects.filter(pk=run.pk, status=JobStatus.DONE).exists(),
        60, "the re-queued ranking to finish",
    )  # fmt: skip
    run.refresh_from_db()
    assert run.attempts == 2 and run.error == ""
    assert RankingResult.objects.filter(run=run).count() == 2


def test_a_report_survives_its_worker_being_killed(start_worker, team_a, analyst_a):
    seed_quotes(team_a, analyst_a)
    run = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=make_workload(team_a)
    )
    ranking_run_sync(run=run)
    first = start_worker(PORTAL_FAULT_DELAY_AT="report", **SLOW)
    report = report_request(team=team_a, user=analyst_a, run=run, kind="xlsx")
    wait_for(lambda: "fault-test delay" in first.output(), 60, "the worker to be mid-report")
    first.kill9()
    report.refresh_from_db()
    assert report.status == JobStatus.RUNNING and not report.sha256

    start_worker(**FAST)
    wait_for(
        lambda: Report.objects.filter(pk=report.pk, status=JobStatus.DONE).exists(),
        90, "the redelivered report to finish",
    )  # fmt: skip
    report.refresh_from_db()
    assert report.attempts == 2 and report.sha256 and report.file.size > 0
    assert Report.objects.filter(run=run).count() == 1


def test_an_rfq_closing_job_survives_its_worker_being_killed(start_worker, team_a, analyst_a):
    from datetime import timedelta

    from django.utils import timezone

    from quotes.models import GpuModel
    from sourcing.choices import AuditVerb, RfqState
    from sourcing.models import AuditEvent, Rfq
    from sourcing.services import rfq_create, rfq_publish
    from sourcing.tasks import close_due_rfqs
    from sourcing.testing import pass_deadline

    data = {
        "title": "closing under fire", "workload": make_workload(team_a), "nodes": 8,
        "min_internode_gbps": 100, "fabric": "rdma", "require_pfc": True, "term_months": 12,
        "deadline": timezone.now() + timedelta(days=3), "sealed": True, "kit_pairs": 1,
        "gpu_models": [GpuModel.objects.get(key="A100-SXM4-80GB")],
    }  # fmt: skip
    rfq = rfq_create(team=team_a, user=analyst_a, data=data)
    rfq_publish(rfq=rfq, user=analyst_a)
    pass_deadline(rfq)

    first = start_worker(PORTAL_FAULT_DELAY_AT="close", **SLOW)
    assert close_due_rfqs() == [rfq.pk]
    wait_for(lambda: "fault-test delay" in first.output(), 60, "the worker to be closing")
    first.kill9()
    rfq.refresh_from_db()
    assert rfq.state == RfqState.PUBLISHED and rfq.status == JobStatus.RUNNING

    start_worker(**FAST)
    wait_for(
        lambda: Rfq.objects.filter(pk=rfq.pk, status=JobStatus.DONE).exists(),
        60, "the redelivered closing to finish",
    )  # fmt: skip
    rfq.refresh_from_db()
    assert rfq.state == RfqState.CLOSED and rfq.attempts == 2
    assert AuditEvent.objects.filter(rfq=rfq, verb=AuditVerb.CLOSED).count() == 1
