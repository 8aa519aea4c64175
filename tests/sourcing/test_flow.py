"""Services of a sourcing event: invitations, answers, sealing, closing, awards, acceptance."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.choices import Role
from core.models import JobStatus
from quotes.models import Quote
from sourcing.choices import AuditVerb, AwardState, RfqState
from sourcing.kit import rfq_kit
from sourcing.models import Answer, Award, Rfq
from sourcing.selectors import answer_terms_for_team, rfq_evaluation, supplier_rfqs
from sourcing.services import (
    answer_submit,
    answer_upload_evidence,
    award_acceptance_upload,
    award_decide,
    award_propose,
    invitation_accept,
    invitation_create,
    rfq_close,
)
from sourcing.tasks import close_due_rfqs
from sourcing.testing import (
    CONCURRENT_PAIRS,
    IPERF_PAIRS,
    NAMESPACE_REPEATS,
    answer_terms,
    demo_log,
    pass_deadline,
)

pytestmark = pytest.mark.django_db


def test_the_kit_prescribes_concurrent_pairs_with_json_and_gbits(rfq):
    text = rfq_kit(rfq).as_text()
    assert text.count("iperf3 -c") == 3 and " -J " in text
    assert "ib_write_bw" in text and "--report_gbits" in text and "-D 60" in text
    assert "/api/v1/supplier/answers/" in text


def test_an_invitation_is_mailed_with_a_single_use_link(
    rfq, vendors_a, analyst_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        invitation, token = invitation_create(
            rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="Sales@Example.com"
        )
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["sales@example.com"]
    assert f"/sourcing/invite/{token}/" in mail.outbox[0].body
    assert token not in invitation.token_sha256
    account = invitation_accept(token=token, username="sup1", password="Sup-pass-12345!")
    assert account.vendor == vendors_a[0]
    assert not hasattr(account.user, "membership") or account.user.membership is None
    with pytest.raises(ValidationError, match="already used"):
        invitation_accept(token=token, username="sup1b", password="Sup-pass-12345!")
    with pytest.raises(ValidationError, match="not valid"):
        invitation_accept(token="guessed", username="x", password="Sup-pass-12345!")


def test_a_duplicate_invitation_is_refused_with_a_clear_message(rfq, vendors_a, analyst_a):
    invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="a@example.com")
    with pytest.raises(ValidationError, match="already invited"):
        invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="b@example.com")
    with pytest.raises(ValidationError, match="already invited"):
        invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[1], email="A@example.com")


def test_another_teams_vendor_cannot_be_invited(rfq, vendor_b, analyst_a):
    with pytest.raises(ValidationError):
        invitation_create(rfq=rfq, user=analyst_a, vendor=vendor_b, email="b@example.com")


def test_a_team_member_cannot_accept_an_invitation(rfq, vendors_a, analyst_a, viewer_a):
    _inv, token = invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0], email="x@x.cn")
    with pytest.raises(ValidationError, match="Team members"):
        invitation_accept(token=token, user=viewer_a)


def test_suppliers_see_only_rfqs_they_are_invited_to(rfq, make_rfq, suppliers):
    other = make_rfq(title="Other RFQ")
    sup1, _sup2 = suppliers
    assert list(supplier_rfqs(sup1)) == [rfq]
    assert other not in supplier_rfqs(sup1)


def test_a_supplier_submits_and_revises_until_the_deadline(rfq, suppliers):
    sup1, _ = suppliers
    answer = answer_submit(rfq=rfq, account=sup1, terms=answer_terms())
    again = answer_submit(rfq=rfq, account=sup1, terms=answer_terms(price_per_node_month="39000"))
    assert again.pk == answer.pk and again.revision == 2
    assert again.terms["price_per_node_month"] == "39000"
    assert not Quote.objects.exists()  # nothing reaches the quotes tables while sealed
    pass_deadline(rfq)
    with pytest.raises(ValidationError, match="deadline"):
        answer_submit(rfq=rfq, account=sup1, terms=answer_terms(price_per_node_month="1"))
    assert Answer.objects.get(pk=answer.pk).revision == 2


def test_a_late_first_submission_is_refused(rfq, suppliers):
    pass_deadline(rfq)
    with pytest.raises(ValidationError, match="deadline"):
        answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())


def test_impossible_terms_are_refused_like_a_quote(rfq, suppliers):
    with pytest.raises(ValidationError) as info:
        answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms(nodes=0))
    assert "nodes" in info.value.message_dict


def test_an_uninvited_vendor_cannot_answer(rfq, make_rfq, suppliers):
    other = make_rfq(title="Not invited")
    with pytest.raises(ValidationError, match="not invited"):
        answer_submit(rfq=other, account=suppliers[0], terms=answer_terms())


def test_sealed_prices_are_hidden_from_the_team_until_the_deadline(rfq, suppliers):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    shown = answer_terms_for_team(rfq, answer)
    assert "price_per_node_month" not in shown and shown["nodes"] == 8
    pass_deadline(rfq)
    assert answer_terms_for_team(rfq, answer)["price_per_node_month"] == "40000"


def test_an_open_rfq_shows_prices_at_once(make_rfq, vendors_a, invite):
    open_rfq = make_rfq(sealed=False)
    account = invite(open_rfq, vendors_a[0], "sup1")
    answer = answer_submit(rfq=open_rfq, account=account, terms=answer_terms())
    assert "price_per_node_month" in answer_terms_for_team(open_rfq, answer)


def _answer_both(rfq, suppliers):  # type: ignore[no-untyped-def]
    a1 = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    a2 = answer_submit(
        rfq=rfq,
        account=suppliers[1],
        terms=answer_terms(price_per_node_month="38000", availability="0.98"),
    )
    return a1, a2


def test_the_beat_job_closes_a_due_rfq_once_and_ranks_the_answers(
    rfq, suppliers, django_capture_on_commit_callbacks
):
    a1, a2 = _answer_both(rfq, suppliers)
    with django_capture_on_commit_callbacks(execute=True):
        assert close_due_rfqs() == []  # not due yet
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        assert close_due_rfqs() == [rfq.pk]
    rfq.refresh_from_db()
    assert rfq.state == RfqState.CLOSED and rfq.status == JobStatus.DONE
    assert rfq.ranking_run is not None and rfq.ranking_run.status == JobStatus.DONE
    assert rfq.ranking_run.results.count() == 2
    assert Quote.objects.filter(team=rfq.team).count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        assert close_due_rfqs() == []
    assert rfq_close(rfq_id=rfq.pk) == "skipped"
    assert (
        Quote.objects.count() == 2 and rfq.audit_events.filter(verb=AuditVerb.CLOSED).count() == 1
    )
    evaluation = rfq_evaluation(rfq)
    assert evaluation["ready"] and evaluation["weights"]["cost"] == 0.6
    assert {row["answer_id"] for row in evaluation["rows"]} == {a1.pk, a2.pk}
    low_sla = next(r for r in evaluation["rows"] if r["answer_id"] == a2.pk)
    assert low_sla["scores"]["sla"] < 1


@pytest.fixture
def closed(rfq, suppliers, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    answers = _answer_both(rfq, suppliers)
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    rfq.refresh_from_db()
    return rfq, answers


def test_an_award_needs_a_different_approver(closed, analyst_a, approver_a, viewer_a):
    rfq, (a1, _a2) = closed
    award = award_propose(rfq=rfq, user=analyst_a, answer=a1, rationale="best total score")
    with pytest.raises(ValidationError, match="another analyst"):
        award_decide(award=award, user=analyst_a, approve=True, comment="self")
    with pytest.raises(ValidationError, match="analysts and admins"):
        award_decide(award=award, user=viewer_a, approve=True, comment="ok")
    with pytest.raises(ValidationError, match="comment"):
        award_decide(award=award, user=approver_a, approve=True, comment=" ")
    award_decide(award=award, user=approver_a, approve=True, comment="agreed")
    award.refresh_from_db()
    rfq.refresh_from_db()
    assert award.state == AwardState.APPROVED and award.trial_ends_at is not None
    assert rfq.state == RfqState.AWARDED
    with pytest.raises(ValidationError, match="already decided"):
        award_decide(award=award, user=approver_a, approve=False, comment="changed my mind")
    verbs = list(rfq.audit_events.values_list("verb", flat=True))
    assert verbs[-2:] == [AuditVerb.AWARD_PROPOSED, AuditVerb.AWARD_APPROVED]


def test_a_rejected_award_can_be_proposed_again(closed, analyst_a, approver_a):
    rfq, (a1, a2) = closed
    award = award_propose(rfq=rfq, user=analyst_a, answer=a1)
    with pytest.raises(ValidationError, match="already waiting"):
        award_propose(rfq=rfq, user=analyst_a, answer=a2)
    award_decide(award=award, user=approver_a, approve=False, comment="SLA too weak")
    second = award_propose(rfq=rfq, user=approver_a, answer=a2)
    assert second.state == AwardState.PROPOSED
    assert rfq.audit_events.filter(verb=AuditVerb.AWARD_REJECTED,
                                   detail__comment="SLA too weak").exists()  # fmt: skip


def test_an_award_cannot_be_proposed_before_closing(rfq, suppliers, analyst_a):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    with pytest.raises(ValidationError, match="closed"):
        award_propose(rfq=rfq, user=analyst_a, answer=answer)


def _approved(rfq, answer, analyst, approver, nic_gbps: float):  # type: ignore[no-untyped-def]
    Answer.objects.filter(pk=answer.pk).update(terms=dict(answer.terms, nic_gbps=nic_gbps))
    answer.refresh_from_db()
    award = award_propose(rfq=rfq, user=analyst, answer=answer, min_line_fraction=0.9,
                          min_pairs=3)  # fmt: skip
    return award_decide(award=award, user=approver, approve=True, comment="go")


def _upload_acceptance(award, user, capture, names=IPERF_PAIRS):  # type: ignore[no-untyped-def]
    for name in names:
        with capture(execute=True):
            award_acceptance_upload(award=award, user=user, upload=demo_log(name, b"\n"))
    award.refresh_from_db()
    return award


def test_acceptance_logs_at_line_rate_confirm_the_award(
    closed, analyst_a, approver_a, django_capture_on_commit_callbacks
):
    rfq, (a1, _a2) = closed
    award = _approved(rfq, a1, analyst_a, approver_a, nic_gbps=10)  # slowest pair 9.22 = 92 %
    award = _upload_acceptance(
        award, analyst_a, django_capture_on_commit_callbacks, CONCURRENT_PAIRS
    )
    assert award.state == AwardState.CONFIRMED, award.acceptance_evidence
    assert award.acceptance_evidence["pairs"] == 3
    assert award.acceptance_evidence["slowest_pair_share"] >= 0.9
    assert rfq.audit_events.filter(verb=AuditVerb.ACCEPTANCE_CONFIRMED).exists()


def test_acceptance_logs_below_line_rate_flag_the_award_with_evidence(
    closed, analyst_a, approver_a, django_capture_on_commit_callbacks
):
    rfq, (a1, _a2) = closed
    award = _approved(rfq, a1, analyst_a, approver_a, nic_gbps=25)  # 1.8 of 25 = 7 %
    award = _upload_acceptance(
        award, analyst_a, django_capture_on_commit_callbacks, NAMESPACE_REPEATS
    )
    assert award.state == AwardState.FLAGGED
    assert any("slowest pair" in r for r in award.acceptance_evidence["reasons"])
    assert len(award.acceptance_evidence["logs"]) == 3


def test_acceptance_logs_after_the_trial_period_flag_the_award(
    closed, analyst_a, approver_a, django_capture_on_commit_callbacks
):
    rfq, (a1, _a2) = closed
    award = _approved(rfq, a1, analyst_a, approver_a, nic_gbps=14)
    Award.objects.filter(pk=award.pk).update(trial_ends_at=timezone.now() - timedelta(days=1))
    award = _upload_acceptance(
        award, analyst_a, django_capture_on_commit_callbacks, NAMESPACE_REPEATS
    )
    assert award.state == AwardState.FLAGGED
    assert any("trial period" in r for r in award.acceptance_evidence["reasons"])


def test_supplier_evidence_is_parsed_and_feeds_the_ranking(
    rfq, suppliers, django_capture_on_commit_callbacks
):
    answer = answer_submit(
        rfq=rfq, account=suppliers[0], terms=answer_terms(nic_gbps=25, fabric="tcp")
    )
    for name in NAMESPACE_REPEATS:
        with django_capture_on_commit_callbacks(execute=True):
            answer_upload_evidence(answer=answer, account=suppliers[0], upload=demo_log(name))
    answer.refresh_from_db()
    # Three tests one after another on one pair are repeats of one pair, not three pairs.
    assert answer.evidence_run.pairs == 1 and answer.evidence_run.verdict
    assert answer.evidence_run.aggregate_gbps == pytest.approx(1.876, abs=0.01)
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    answer.refresh_from_db()
    assert answer.quote.measured_gbps is not None


def test_a_supplier_cannot_upload_to_another_vendors_answer_or_after_the_deadline(rfq, suppliers):
    answer = answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms())
    with pytest.raises(ValidationError, match="another vendor"):
        answer_upload_evidence(answer=answer, account=suppliers[1], upload=demo_log(IPERF_PAIRS[0]))
    pass_deadline(rfq)
    with pytest.raises(ValidationError, match="deadline"):
        answer_upload_evidence(answer=answer, account=suppliers[0], upload=demo_log(IPERF_PAIRS[0]))


def test_a_viewer_cannot_propose(closed, viewer_a):
    rfq, (a1, _a2) = closed
    with pytest.raises(ValidationError):
        award_propose(rfq=rfq, user=viewer_a, answer=a1)


def test_the_rfq_deadline_must_be_in_the_future(make_rfq):
    with pytest.raises(ValidationError, match="future"):
        make_rfq(deadline=timezone.now() - timedelta(hours=1))
    assert Rfq.objects.count() == 0
    assert Role.ANALYST  # roles fixture sanity
