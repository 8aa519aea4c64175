"""The decision dashboard lists the team's open sourcing events, in a fixed number of queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reports.dashboard import decision_board
from sourcing.choices import RfqState
from sourcing.models import Rfq
from sourcing.services import rfq_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def sourcing_demo(demo_run, team_a, analyst_a, settings):  # type: ignore[no-untyped-def]
    import sourcing.demo

    settings.DEBUG = True  # the sourcing demo creates supplier logins only in demo mode
    sourcing.demo.load(team=team_a, user=analyst_a)
    rfq = Rfq.objects.for_team(team_a).get(state=RfqState.PUBLISHED)
    assert rfq.state == RfqState.PUBLISHED and rfq.answers.exists()
    return rfq


def _more_rfqs(team, user, rfq: Rfq, n: int) -> None:  # type: ignore[no-untyped-def]
    for i in range(n):
        rfq_create(team=team, user=user, data={
            "title": f"草稿 RFQ {i}", "workload": rfq.workload, "nodes": 4,
            "min_internode_gbps": 100, "term_months": 6,
            "deadline": timezone.now() + timedelta(days=5 + i),
            "gpu_models": list(rfq.gpu_models.all()),
        })  # fmt: skip


def test_the_dashboard_lists_open_rfqs_with_invitations_and_answers(
    sourcing_demo, analyst_a, client_as
):
    rfq = sourcing_demo
    page = client_as(analyst_a).get("/").content.decode()
    assert 'id="open-rfqs"' in page and rfq.title in page
    invited, answered = rfq.invitations.count(), rfq.answers.count()
    assert f"{invited} / {answered}" in page
    assert f'href="/sourcing/{rfq.pk}/"' in page


def test_cancelled_and_confirmed_events_are_not_open(sourcing_demo, team_a):
    # The demo also holds a closed event that still waits for its award: open until decided.
    closed = Rfq.objects.for_team(team_a).exclude(pk=sourcing_demo.pk)
    assert {r.pk for r in decision_board(team=team_a)["open_rfqs"]} == {
        sourcing_demo.pk,
        *closed.values_list("pk", flat=True),
    }
    Rfq.objects.for_team(team_a).update(state=RfqState.CANCELLED)
    assert decision_board(team=team_a)["open_rfqs"] == []


def test_another_team_does_not_see_the_events(sourcing_demo, team_b):
    assert decision_board(team=team_b)["open_rfqs"] == []


def test_the_dashboard_costs_the_same_queries_with_more_events(
    sourcing_demo, team_a, analyst_a, django_assert_max_num_queries
):
    with CaptureQueriesContext(connection) as few:
        board = decision_board(team=team_a)
        [(r.invited, r.answered, r.active_awards) for r in board["open_rfqs"]]
    _more_rfqs(team_a, analyst_a, sourcing_demo, 6)
    with django_assert_max_num_queries(len(few.captured_queries)):
        board = decision_board(team=team_a)
        rows = [(r.title, r.invited, r.answered, r.active_awards) for r in board["open_rfqs"]]
    open_before = Rfq.objects.for_team(team_a).exclude(state=RfqState.DRAFT).count()
    assert len(rows) == open_before + 6 and sourcing_demo.title in [row[0] for row in rows]
