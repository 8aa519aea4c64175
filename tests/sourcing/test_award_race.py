"""Four-eyes award decisions under concurrency: exactly one decision per award, the loser is told
409 / a message, never "rejected" while the award stays approved.

Real threads, each on its own PostgreSQL connection, released together by a barrier; the tests
commit (transaction=True) so the row locks are the database's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection

from accounts.choices import Role
from sourcing.choices import AuditVerb, AwardState, RfqState
from sourcing.models import Award, Rfq
from sourcing.services import Conflict, answer_submit, award_decide, award_propose, rfq_close
from sourcing.testing import answer_terms, pass_deadline

# The races run deciders in threads at once; SQLite locks the whole database file, so a second
# writer fails at once instead of waiting on a row lock as PostgreSQL's do.
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="racing writers need PostgreSQL's row locks (SQLite locks the whole file)",
    ),
]


@pytest.fixture
def second_approver(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("carl", team_a, Role.ANALYST)


@pytest.fixture
def closed_rfq(rfq, suppliers):  # type: ignore[no-untyped-def]
    """`rfq` closed with two answers (no ranking needed for awards)."""
    answers = [answer_submit(rfq=rfq, account=a, terms=answer_terms()) for a in suppliers]
    pass_deadline(rfq)
    rfq_close(rfq_id=rfq.pk)
    rfq.refresh_from_db()
    return rfq, answers


def _race(*calls: Callable[[], Any]) -> list[Any]:
    """Run the calls at once in threads; each result or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            results[i] = call(barrier)  # type: ignore[call-arg]
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a decision hung"
    return results


def _decider(award_pk: int, user, approve: bool):  # type: ignore[no-untyped-def]
    def call(barrier: threading.Barrier) -> Award:
        seen = Award.objects.get(pk=award_pk)  # both read the proposed award first...
        barrier.wait(timeout=20)  # ...then decide at the same moment
        return award_decide(award=seen, user=user, approve=approve, comment=f"by {user}")

    return call


def test_simultaneous_decisions_record_exactly_one(closed_rfq, analyst_a, approver_a,
                                                   second_approver):  # fmt: skip
    rfq, answers = closed_rfq
    for round_ in range(3):  # two rejecters at once, three proposals in a row
        award = award_propose(rfq=rfq, user=analyst_a, answer=answers[round_ % 2])
        results = _race(_decider(award.pk, approver_a, False),
                        _decider(award.pk, second_approver, False))  # fmt: skip
        winners = [r for r in results if isinstance(r, Award)]
        losers = [r for r in results if isinstance(r, Exception)]
        assert len(winners) == 1 and len(losers) == 1, results
        assert isinstance(losers[0], Conflict) and "already decided" in losers[0].messages[0]
        stored = Award.objects.get(pk=award.pk)
        assert stored.state == AwardState.REJECTED and stored.decided_by == winners[0].decided_by
    rejections = rfq.audit_events.filter(verb=AuditVerb.AWARD_REJECTED).count()
    assert rejections == 3 == Award.objects.filter(rfq=rfq).count()


def test_approve_and_reject_at_once_tell_the_loser_the_truth(closed_rfq, analyst_a, approver_a,
                                                             second_approver):  # fmt: skip
    rfq, answers = closed_rfq
    award = award_propose(rfq=rfq, user=analyst_a, answer=answers[0])
    approve, reject = _race(_decider(award.pk, approver_a, True),
                            _decider(award.pk, second_approver, False))  # fmt: skip
    stored = Award.objects.get(pk=award.pk)
    decisions = rfq.audit_events.filter(verb__in=[AuditVerb.AWARD_APPROVED,
                                                  AuditVerb.AWARD_REJECTED])  # fmt: skip
    assert decisions.count() == 1
    if isinstance(approve, Award):  # the approver won: the rejecter hears so
        assert isinstance(reject, Conflict) and "Approved" in reject.messages[0]
        assert stored.state == AwardState.APPROVED
        assert Rfq.objects.get(pk=rfq.pk).state == RfqState.AWARDED
    else:
        assert isinstance(approve, Conflict) and isinstance(reject, Award)
        assert stored.state == AwardState.REJECTED
        assert Rfq.objects.get(pk=rfq.pk).state == RfqState.CLOSED
    assert decisions.get().actor == stored.decided_by


def test_the_api_answers_409_to_the_second_decision(closed_rfq, analyst_a, approver_a,
                                                    second_approver, api_as):  # fmt: skip
    rfq, answers = closed_rfq
    award = award_propose(rfq=rfq, user=analyst_a, answer=answers[1])

    def post(user, verb: str):  # type: ignore[no-untyped-def]
        def call(barrier: threading.Barrier):  # type: ignore[no-untyped-def]
            client = api_as(user)
            barrier.wait(timeout=20)
            return client.post(f"/api/v1/awards/{award.pk}/{verb}/", {"comment": "now"},
                               format="json")  # fmt: skip

        return call

    responses = _race(post(approver_a, "approve"), post(second_approver, "reject"))
    assert sorted(r.status_code for r in responses) == [200, 409], [r.content for r in responses]
    loser = next(r for r in responses if r.status_code == 409).json()
    assert loser["code"] == "already_decided" and "not recorded" in loser["detail"]
    winner = next(r for r in responses if r.status_code == 200).json()
    assert Award.objects.get(pk=award.pk).state == winner["state"]
    assert rfq.audit_events.filter(verb__in=[AuditVerb.AWARD_APPROVED,
                                             AuditVerb.AWARD_REJECTED]).count() == 1  # fmt: skip


def test_a_late_decision_on_the_page_gets_a_message(closed_rfq, analyst_a, approver_a,
                                                    second_approver, client):  # fmt: skip
    rfq, answers = closed_rfq
    award = award_propose(rfq=rfq, user=analyst_a, answer=answers[0])
    award_decide(award=award, user=approver_a, approve=True, comment="first")
    client.force_login(second_approver)
    r = client.post(f"/sourcing/awards/{award.pk}/decide/",
                    {"decision": "reject", "comment": "too late"}, follow=True)  # fmt: skip
    page = r.content.decode()
    assert "already decided" in page and "not recorded" in page
    assert Award.objects.get(pk=award.pk).state == AwardState.APPROVED
    with pytest.raises(ValidationError):
        award_decide(award=award, user=second_approver, approve=False, comment="again")


def test_two_simultaneous_proposals_make_one_award(closed_rfq, analyst_a, second_approver):
    rfq, answers = closed_rfq

    def propose(user, answer):  # type: ignore[no-untyped-def]
        def call(barrier: threading.Barrier) -> Award:
            seen = Rfq.objects.get(pk=rfq.pk)
            barrier.wait(timeout=20)
            return award_propose(rfq=seen, user=user, answer=answer)

        return call

    results = _race(propose(analyst_a, answers[0]), propose(second_approver, answers[1]))
    assert sum(isinstance(r, Award) for r in results) == 1, results
    refused = next(r for r in results if not isinstance(r, Award))
    assert isinstance(refused, ValidationError) and "already waiting" in refused.messages[0]
    assert Award.objects.filter(rfq=rfq).count() == 1
    assert rfq.audit_events.filter(verb=AuditVerb.AWARD_PROPOSED).count() == 1


def test_two_admins_deciding_one_extension_at_once_record_one_decision(
    rfq, analyst_a, approver_a, make_user, team_a
):
    from sourcing.choices import ExtensionState
    from sourcing.deadlines import deadline_extension_decide, deadline_extension_propose
    from sourcing.models import DeadlineExtension

    second_admin = make_user("dora", team_a, Role.ADMIN)
    old = rfq.deadline
    ext = deadline_extension_propose(rfq=rfq, user=analyst_a, reason="Network maintenance",
                                     deadline=old + timedelta(days=1))  # fmt: skip

    def decide(user, approve: bool):  # type: ignore[no-untyped-def]
        def call(barrier: threading.Barrier) -> DeadlineExtension:
            seen = DeadlineExtension.objects.get(pk=ext.pk)
            barrier.wait(timeout=20)
            return deadline_extension_decide(extension=seen, user=user, approve=approve)

        return call

    results = _race(decide(approver_a, True), decide(second_admin, False))
    winners = [r for r in results if isinstance(r, DeadlineExtension)]
    assert len(winners) == 1 and isinstance(next(r for r in results if r not in winners),
                                            Conflict), results  # fmt: skip
    stored = DeadlineExtension.objects.get(pk=ext.pk)
    assert stored.state == winners[0].state
    expected = old + timedelta(days=1) if stored.state == ExtensionState.APPROVED else old
    assert Rfq.objects.get(pk=rfq.pk).deadline == expected
    verbs = [AuditVerb.EXTENSION_APPROVED, AuditVerb.EXTENSION_REJECTED]
    assert rfq.audit_events.filter(verb__in=verbs).count() == 1


def test_sixteen_simultaneous_award_proposals_make_one_award_and_fifteen_409s(
    closed_rfq, make_user, team_a, api_as
):  # type: ignore[no-untyped-def]
    """The API documents 409 for a proposal made while another one waits: 15 of 16 proposals
    sent at once got 400 before."""
    rfq, answers = closed_rfq
    proposers = [make_user(f"prop{i}", team_a, Role.ANALYST) for i in range(16)]

    def post(user, answer):  # type: ignore[no-untyped-def]
        def call(barrier: threading.Barrier):  # type: ignore[no-untyped-def]
            client = api_as(user)
            barrier.wait(timeout=20)
            body = {"answer": answer.pk, "rationale": "cheapest",
                    "override_reason": "race test: the rules are not under test"}  # fmt: skip
            return client.post(f"/api/v1/rfqs/{rfq.pk}/awards/", body, format="json")

        return call

    responses = _race(*(post(u, answers[i % 2]) for i, u in enumerate(proposers)))
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] + [409] * 15, [r.content[:120] for r in responses]
    for r in responses:
        if r.status_code == 409:
            assert r.json()["code"] == "already_proposed"
    assert Award.objects.filter(rfq=rfq).count() == 1
    assert rfq.audit_events.filter(verb=AuditVerb.AWARD_PROPOSED).count() == 1
