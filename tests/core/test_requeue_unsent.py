"""A job whose publishing failed while the broker was down (noted "queue unavailable") is sent
again at the first requeue tick after the broker answers, not CELERY_REQUEUE_STALE_AFTER_S
later; a frequent beat entry sends only those."""

from __future__ import annotations

import pytest
from django.conf import settings

from core.models import JobStatus
from core.queue import QUEUE_UNAVAILABLE_NOTE, mark_unqueued
from core.tasks import requeue_stale_jobs
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingRun

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs(team_a, analyst_a):  # type: ignore[no-untyped-def]
    seed_quotes(team_a, analyst_a)
    workload = make_workload(team_a)
    unsent = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    mark_unqueued(unsent)  # what core.queue.enqueue does when the broker is down
    fresh = RankingRun.objects.create(team=team_a, created_by=analyst_a, workload=workload)
    return unsent, fresh


def test_a_job_that_was_never_sent_is_sent_at_the_next_tick_whatever_its_age(runs) -> None:  # type: ignore[no-untyped-def]
    unsent, fresh = runs
    assert settings.CELERY_REQUEUE_STALE_AFTER_S >= 60  # both were queued seconds ago
    sent = requeue_stale_jobs()
    assert sent["rankings.RankingRun"] == 1
    unsent.refresh_from_db()
    # the (eager) worker ran it; the note is gone
    assert unsent.status == JobStatus.DONE and unsent.error != QUEUE_UNAVAILABLE_NOTE
    # a job that was sent (its message is with the broker) still waits for the stale limit
    assert RankingRun.objects.get(pk=fresh.pk).status == JobStatus.PENDING
    assert requeue_stale_jobs()["rankings.RankingRun"] == 0


def test_the_frequent_beat_entry_sends_only_unsent_jobs(runs) -> None:  # type: ignore[no-untyped-def]
    unsent, fresh = runs
    entry = settings.CELERY_BEAT_SCHEDULE["requeue-unsent-jobs"]
    assert entry["schedule"] <= 10 and entry["kwargs"] == {"unsent_only": True}
    RankingRun.objects.filter(pk=fresh.pk).update(queued_at="2000-01-01T00:00:00Z")  # stale
    assert requeue_stale_jobs(**entry["kwargs"])["rankings.RankingRun"] == 1
    assert RankingRun.objects.get(pk=unsent.pk).status == JobStatus.DONE
    assert RankingRun.objects.get(pk=fresh.pk).status == JobStatus.PENDING  # the minute tick's
