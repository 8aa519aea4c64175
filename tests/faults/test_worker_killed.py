"""`kill -9` of a worker in the middle of a job: the unacknowledged message goes to a new worker
(acks_late + a short visibility timeout) and the job completes once, with no duplicated or
half-written results.

"The middle" is made deterministic by the test hook `core.queue.fault_delay`
(PORTAL_FAULT_DELAY_S / PORTAL_FAULT_DELAY_AT), set only for the first worker.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.models import BenchmarkLog, TestRun
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as create_test_run
from core.models import JobStatus
from core.queue import enqueue
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingResult, RankingRun
from rankings.tasks import compute_ranking
from vendors.models import DataCentre, NetworkProfile, Vendor

from .conftest import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# A real iperf3 run between two network namespaces (a loopback log would be set aside and
# count no pair, which is not what this test is about).
P4 = Path(__file__).parents[1] / "domain/data/recorded/sequential_pair0_run1.json"
# A dead worker's message is handed on after 2 s; the new worker looks every second.
FAST = {
    "CELERY_VISIBILITY_TIMEOUT": "2",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
    "CELERY_UNACKED_RESTORE_THROTTLE": "1",
}
SLOW = {**FAST, "PORTAL_FAULT_DELAY_S": "120"}


@pytest.mark.parametrize(
    "point",
    [
        "ranking:70",  # computed, nothing written yet
        "ranking:100",  # every result written, the run not yet marked done
    ],
)
def test_a_ranking_survives_its_worker_being_killed(point, start_worker, team_a, analyst_a):
    seed_quotes(team_a, analyst_a)
    run = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=make_workload(team_a)
    )
    first = start_worker(PORTAL_FAULT_DELAY_AT=point, **SLOW)
    assert enqueue(compute_ranking, run.pk, job_row=run)
    wait_for(lambda: "fault-test delay" in first.output(), 30, "the worker to reach " + point)
    first.kill9()

    run.refresh_from_db()
    assert run.status == JobStatus.RUNNING and run.attempts == 1
    written = RankingResult.objects.filter(run=run).count()
    assert written == (2 if point == "ranking:100" else 0)

    start_worker(**FAST)
    wait_for(
        lambda: RankingRun.objects.filter(pk=run.pk, status=JobStatus.DONE).exists(),
        60,
        "the redelivered ranking to finish",
    )
    run.refresh_from_db()
    assert run.attempts == 2 and run.progress == 100 and run.error == ""
    results = list(RankingResult.objects.filter(run=run).order_by("rank"))
    assert [r.rank for r in results] == [1, 2]  # one set: no duplicate, nothing missing
    assert len({r.offer_id for r in results}) == 2
    assert all(r.cost_per_eth > 0 and r.hourly_cost > 0 for r in results)


def test_a_log_parse_survives_its_worker_being_killed(start_worker, team_a, analyst_a):
    vendor = Vendor.objects.create(team=team_a, name_zh="故障测试厂商")
    dc = DataCentre.objects.create(vendor=vendor, name="DC", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="tcp", nic_gbps=25, nics_per_node=8)
    test_run = create_test_run(
        team=team_a, user=analyst_a, vendor=vendor, data_centre=dc, name="kill"
    )
    first = start_worker(PORTAL_FAULT_DELAY_AT="parse", **SLOW)
    outcome = benchmark_ingest(
        team=team_a,
        user=analyst_a,
        test_run=test_run,
        upload=SimpleUploadedFile("P4.json", P4.read_bytes()),
    )
    (log,) = outcome.created
    wait_for(lambda: "fault-test delay" in first.output(), 30, "the worker to be mid-parse")
    first.kill9()

    log.refresh_from_db()
    assert log.status == JobStatus.RUNNING and log.attempts == 1
    assert log.result is None and log.throughput_gbps is None  # nothing half-written

    start_worker(**FAST)
    wait_for(
        lambda: BenchmarkLog.objects.filter(pk=log.pk, status=JobStatus.DONE).exists(),
        60,
        "the redelivered parse to finish",
    )
    wait_for(
        lambda: TestRun.objects.filter(pk=test_run.pk, status=JobStatus.DONE).exists(),
        30,
        "the test run summary",
    )
    log.refresh_from_db()
    assert log.attempts == 2 and log.progress == 100
    assert log.result and log.throughput_gbps and log.error == ""
    assert BenchmarkLog.objects.filter(test_run=test_run).count() == 1
    test_run.refresh_from_db()
    assert test_run.pairs == 1 and test_run.summarised_at is not None
