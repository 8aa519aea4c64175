"""A what-if saved as a run after one of its quotes was deleted fails in words, not with the
database's own error (constraint, table and key) as the user's message."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse

from core.models import JobStatus
from quotes.models import Quote
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingRun
from rankings.services import ranking_start

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="the test's transaction never commits: keys are checked at once only on PostgreSQL",
    ),
]

DATABASE_WORDS = ("violates", "constraint", "foreign key", "IntegrityError", "DETAIL", "_id")


def test_a_scenario_saved_after_a_quote_was_deleted_fails_with_a_message_in_words(
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    tcp, _roce = seed_quotes(team_a, analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        run = ranking_start(team=team_a, user=analyst_a, workload=make_workload(team_a))
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    Quote.objects.filter(pk=tcp.pk).delete()
    with connection.cursor() as cursor:  # check keys at once, as the job's commit would
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    client = client_as(analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(reverse("rankings:whatif_save", args=[run.pk]), {"overlap": "1"})
    assert r.status_code == 302
    new = RankingRun.objects.exclude(pk=run.pk).get()
    assert new.status == JobStatus.FAILED
    assert not any(word in new.error for word in DATABASE_WORDS), new.error
    assert "deleted or changed" in new.error and "删除" in new.error
    for lang in ("en", "zh-hans"):
        page = client.get(reverse("rankings:detail", args=[new.pk]), HTTP_ACCEPT_LANGUAGE=lang)
        assert page.status_code == 200
        assert not any(word in page.content.decode() for word in DATABASE_WORDS[:4])
