"""Stale means said: a finished run whose quote got a new version names it on the run page and
the dashboard, offers to rank again, and ranking again prices the current terms."""

from decimal import Decimal

import pytest
from django.urls import reverse

from core.models import JobStatus
from quotes.services import quote_update
from quotes.testing import make_workload, seed_quotes
from rankings.models import RankingRun
from rankings.selectors import stale_quotes, stale_run_ids
from rankings.services import ranking_start

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(team_a, analyst_a, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    tcp, roce = seed_quotes(team_a, analyst_a)
    with django_capture_on_commit_callbacks(execute=True):
        run = ranking_start(team=team_a, user=analyst_a, workload=make_workload(team_a))
    run.refresh_from_db()
    assert run.status == JobStatus.DONE
    return run, tcp, roce


def test_a_run_is_current_until_one_of_its_quotes_gets_a_new_version(finished, analyst_a):
    run, tcp, _roce = finished
    assert stale_quotes(run=run) == [] and stale_run_ids([run]) == set()
    quote_update(quote=tcp, user=analyst_a, data={"price_per_node_month": Decimal("1000")})
    assert stale_quotes(run=run) == [tcp]
    assert stale_run_ids([run]) == {run.pk}


def test_the_run_page_and_dashboard_say_which_offer_changed_and_rank_again_uses_it(
    finished, analyst_a, client_as, django_capture_on_commit_callbacks
):
    run, tcp, _roce = finished
    client = client_as(analyst_a)
    page = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert 'id="stale"' not in page
    quote_update(quote=tcp, user=analyst_a, data={"price_per_node_month": Decimal("1000")})
    page = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    notice = page.split('id="stale"')[1].split("</div>")[0]
    assert tcp.label in notice and "rank again" in notice.lower()
    board = client.get(reverse("dashboard")).content.decode()
    assert "out of date" in board.split('id="leaders"')[1].split("</section>")[0]
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(reverse("rankings:rerank", args=[run.pk]))
    fresh = RankingRun.objects.exclude(pk=run.pk).get()
    assert answer.status_code == 302 and answer["Location"].endswith(f"/{fresh.pk}/")
    fresh.refresh_from_db()
    assert fresh.status == JobStatus.DONE and stale_quotes(run=fresh) == []
    tcp.refresh_from_db()
    assert fresh.results.filter(quote_version_id=tcp.current_version_id).exists()
