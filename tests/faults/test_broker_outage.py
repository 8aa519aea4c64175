"""Redis stopped: pages render, starting a job answers "queue unavailable, retry later" (503 on
the API, a message on the form) and keeps it pending; with Redis back, requeue_stale_jobs sends
it and a real worker completes it exactly once."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks.models import BenchmarkLog
from benchmarks.services import test_run_create as create_test_run
from core.models import JobStatus
from core.queue import QUEUE_UNAVAILABLE, QUEUE_UNAVAILABLE_NOTE, enqueue
from core.tasks import requeue_stale_jobs
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingResult, RankingRun
from rankings.tasks import compute_ranking
from vendors.models import DataCentre, NetworkProfile, Vendor

from .conftest import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

P4 = Path(__file__).parents[1] / "domain/data/corpus/iperf3-json/local_3.12_tcp_P4.json"


def _says_unavailable(text: str) -> bool:
    return QUEUE_UNAVAILABLE.zh in text or QUEUE_UNAVAILABLE.en in text


def _test_run(team, user):  # type: ignore[no-untyped-def]
    vendor = Vendor.objects.create(team=team, name_zh="故障测试厂商")
    dc = DataCentre.objects.create(vendor=vendor, name="DC", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="tcp", nic_gbps=25, nics_per_node=8)
    return create_test_run(team=team, user=user, vendor=vendor, data_centre=dc, name="outage")


def test_redis_down_keeps_jobs_pending_and_they_run_once_when_it_is_back(
    broker, start_worker, team_a, analyst_a, api_as, client
):
    seed_quotes(team_a, analyst_a)
    workload = make_workload(team_a)
    test_run = _test_run(team_a, analyst_a)
    client.force_login(analyst_a)
    api = api_as(analyst_a)

    broker.stop()

    # Pages that need no queue still render.
    for name in ("vendors:list", "rankings:list", "benchmarks:list"):
        assert client.get(reverse(name)).status_code == 200, name

    # API start: 503 with the bilingual message, quickly, and the run is kept pending.
    t0 = time.monotonic()
    r = api.post("/api/v1/rankings/", {"workload": workload.pk}, format="json")
    assert time.monotonic() - t0 < 10
    assert r.status_code == 503, r.content
    body = r.json()
    assert body["code"] == "queue.unavailable"
    assert "queue unavailable, retry later" in body["en"].lower()
    assert "任务队列暂不可用，请稍后重试" in body["zh"]
    api_run = RankingRun.objects.get(pk=body["id"])
    assert api_run.status == JobStatus.PENDING and api_run.error == QUEUE_UNAVAILABLE_NOTE

    # Form start: the run page opens with the message (no 500), the run is kept.
    r = client.post(reverse("rankings:start"), {"workload": workload.pk}, follow=True)
    assert r.status_code == 200
    assert _says_unavailable(r.content.decode())
    form_run = RankingRun.objects.exclude(pk=api_run.pk).get()
    assert form_run.status == JobStatus.PENDING
    assert client.get(reverse("rankings:detail", args=[form_run.pk])).status_code == 200

    # Upload over the API: the file is stored, parsing waits; 503 says so.
    upload = SimpleUploadedFile("P4.json", P4.read_bytes())
    r = api.post(
        "/api/v1/benchmarks/", {"test_run": test_run.pk, "files": [upload]}, format="multipart"
    )
    assert r.status_code == 503, r.content
    assert r.json()["code"] == "queue.unavailable" and len(r.json()["created"]) == 1
    log = BenchmarkLog.objects.get(test_run=test_run)
    assert log.status == JobStatus.PENDING and log.error == QUEUE_UNAVAILABLE_NOTE

    # Upload through the form: the page shows the message.
    again = SimpleUploadedFile("P4-copy.json", P4.read_bytes() + b"\n")
    r = client.post(
        reverse("benchmarks:upload"), {"test_run": test_run.pk, "files": [again]}, follow=True
    )
    assert r.status_code == 200 and _says_unavailable(r.content.decode())
    assert BenchmarkLog.objects.filter(test_run=test_run, status=JobStatus.PENDING).count() == 2

    # Still down: the periodic requeue sends nothing and keeps everything pending.
    assert sum(requeue_stale_jobs(older_than_s=0).values()) == 0
    assert RankingRun.objects.filter(status=JobStatus.PENDING).count() == 2

    # Redis is back: the frequent beat entry sends the jobs never sent at once (their age
    # does not matter: no waiting CELERY_REQUEUE_STALE_AFTER_S), then a real worker runs them.
    broker.start()
    frequent = settings.CELERY_BEAT_SCHEDULE["requeue-unsent-jobs"]
    assert frequent["schedule"] <= 10
    sent = requeue_stale_jobs(**frequent["kwargs"])
    assert {kind: n for kind, n in sent.items() if n} == {
        "rankings.RankingRun": 2,
        "benchmarks.BenchmarkLog": 2,
    }
    assert RankingRun.objects.get(pk=api_run.pk).error == ""  # the note is cleared once sent
    worker = start_worker()

    def all_finished() -> bool:
        runs = RankingRun.objects.filter(status=JobStatus.DONE).count()
        logs = BenchmarkLog.objects.filter(test_run=test_run, status=JobStatus.DONE).count()
        return runs == 2 and logs == 2

    wait_for(all_finished, 60, "the requeued jobs to finish")

    # Exactly once: one set of results per run, one attempt each; a second requeue and a
    # duplicate message change nothing.
    again = requeue_stale_jobs(older_than_s=0)
    assert again["rankings.RankingRun"] == 0 and again["benchmarks.BenchmarkLog"] == 0
    assert not any(again.values())
    assert enqueue(compute_ranking, api_run.pk)
    wait_for(
        lambda: len(re.findall(r"compute_ranking\[.*\] succeeded.*'skipped'", worker.output())),
        30,
        "the duplicate message to be skipped",
    )
    for run in RankingRun.objects.all():
        assert run.attempts == 1 and run.error == ""
        assert RankingResult.objects.filter(run=run).count() == 2
        assert sorted(run.results.values_list("rank", flat=True)) == [1, 2]
    for log in BenchmarkLog.objects.filter(test_run=test_run):
        assert log.attempts == 1 and log.result and log.throughput_gbps
    test_run.refresh_from_db()
    assert test_run.status == JobStatus.DONE


def test_requeue_sends_only_jobs_pending_longer_than_the_limit_and_only_once(
    broker, team_a, analyst_a
):
    from datetime import timedelta

    from django.utils import timezone

    seed_quotes(team_a, analyst_a)
    workload = make_workload(team_a)
    fresh = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    stale = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    done = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=workload, status=JobStatus.DONE
    )
    busy = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=workload, status=JobStatus.RUNNING
    )
    lost = RankingRun.objects.create(
        team=team_a, created_by=analyst_a, workload=workload, status=JobStatus.RUNNING
    )
    old = timezone.now() - timedelta(seconds=600)
    RankingRun.objects.filter(pk__in=[stale.pk, done.pk, busy.pk, lost.pk]).update(queued_at=old)
    RankingRun.objects.filter(pk=busy.pk).update(started_at=timezone.now())
    RankingRun.objects.filter(pk=lost.pk).update(started_at=old)  # its message was lost

    def requeue() -> int:
        return requeue_stale_jobs(older_than_s=300, running_for_s=500)["rankings.RankingRun"]

    assert requeue() == 2  # `stale` (pending) and `lost` (running far too long)
    stale.refresh_from_db()
    lost.refresh_from_db()
    assert stale.queued_at > old and lost.started_at > old  # the next tick leaves them alone
    assert requeue() == 0
    assert RankingRun.objects.get(pk=fresh.pk).status == JobStatus.PENDING


def test_a_hung_broker_answers_503_within_the_socket_timeout(broker, team_a, analyst_a, api_as):
    """Redis accepts the connection but never replies (SIGSTOP): the request must not hang."""
    from django.conf import settings

    from portal.celery import app

    from .conftest import _reset_producers

    assert 0 < settings.CELERY_BROKER_TRANSPORT_OPTIONS["socket_timeout"] <= 10
    seed_quotes(team_a, analyst_a)
    workload = make_workload(team_a)
    saved = app.conf.broker_transport_options
    app.conf.broker_transport_options = {**saved, "socket_timeout": 1.0}  # keep the test short
    _reset_producers(app)
    broker.freeze()
    try:
        t0 = time.monotonic()
        r = api_as(analyst_a).post("/api/v1/rankings/", {"workload": workload.pk}, format="json")
        elapsed = time.monotonic() - t0
    finally:
        broker.thaw()
        app.conf.broker_transport_options = saved
        _reset_producers(app)
    assert r.status_code == 503 and r.json()["code"] == "queue.unavailable"
    assert elapsed < 8, elapsed
    assert RankingRun.objects.get(pk=r.json()["id"]).status == JobStatus.PENDING
