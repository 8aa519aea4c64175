"""Awards of a sourcing event: the proposal (refused for a knocked-out or excluded bidder unless
overridden with a written reason), the four-eyes decision (an override only by a second admin),
and the acceptance test on the rented cluster. Every change writes an ``AuditEvent`` in the same
transaction; re-exported by ``sourcing.services``."""

from __future__ import annotations

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.choices import Role
from accounts.models import Membership
from benchmarks.services import benchmark_ingest, test_run_create
from benchmarks.trust import origin_for
from domain import labels, rfq_rules
from domain.messages import Message

from .choices import ACTIVE_AWARD_STATES, AuditVerb, AwardState, RfqState
from .common import Conflict, _can_write, _line_rate, audit
from .models import Answer, Award, Rfq


def award_propose(  # type: ignore[no-untyped-def]
    *,
    rfq: Rfq,
    user,
    answer: Answer,
    rationale: str = "",
    min_line_fraction: float = 0.9,
    min_pairs: int | None = None,
    trial_days: int | None = None,
    override_reason: str = "",
    now=None,
) -> Award:
    """Propose an award; to a knocked-out or excluded bidder only with a written override
    reason, and then only a second admin can approve it (`award_decide`)."""
    from .evaluation import answer_blockers

    now = now or timezone.now()
    if not _can_write(user):
        raise ValidationError(_("Only analysts and admins can propose an award."))
    if rfq.state != RfqState.CLOSED:
        raise ValidationError(_("An award can be proposed once the RFQ is closed."))
    if answer.rfq_id != rfq.pk:
        raise ValidationError({"answer": _("This answer belongs to another RFQ.")})
    blockers = answer_blockers(rfq, answer)
    override_reason = (override_reason or "").strip()
    lang = get_language()
    if blockers and not override_reason:
        raise ValidationError(rfq_rules.award_refusal(blockers).text(lang), "blocked")
    award = Award(
        rfq=rfq, answer=answer, rationale=rationale, proposed_by=user, proposed_at=now,
        blockers=[m.as_dict() for m in blockers],
        override_reason=override_reason if blockers else "",
        min_line_fraction=min_line_fraction, min_pairs=min_pairs or rfq.kit_pairs,
        trial_days=rfq.min_trial_days if trial_days is None else trial_days,
    )  # fmt: skip
    award.full_clean(exclude=["rfq", "answer"])
    with transaction.atomic():
        # Checked on the locked RFQ, so two simultaneous proposals make one and one clear refusal.
        locked = Rfq.objects.select_for_update().get(pk=rfq.pk)
        if locked.state != RfqState.CLOSED:
            raise Conflict(_("An award can be proposed once the RFQ is closed."), "not_closed")
        if Award.objects.filter(rfq=rfq, state__in=ACTIVE_AWARD_STATES).exists():
            raise Conflict(
                _("An award proposal is already waiting for approval."), "already_proposed"
            )
        award.save()
        audit(rfq, AuditVerb.AWARD_PROPOSED, user, award=award.pk, vendor=str(answer.vendor),
              rationale=rationale)  # fmt: skip
        if blockers:
            audit(rfq, AuditVerb.AWARD_OVERRIDE_PROPOSED, user, award=award.pk,
                  vendor=str(answer.vendor), override_reason=award.override_reason,
                  overridden=[m.text(lang) for m in blockers])  # fmt: skip
    return award


def _override_refusal(award: Award, user, confirm_override: bool) -> None:  # type: ignore[no-untyped-def]
    membership = Membership.objects.filter(user=user).first()
    refusal = rfq_rules.override_approval_refusal(
        proposer_id=award.proposed_by_id, approver_id=user.pk,
        approver_is_admin=membership is not None and membership.role == Role.ADMIN,
        confirmed=confirm_override,
    )  # fmt: skip
    if refusal is not None:
        raise ValidationError(refusal.text(get_language()), refusal.code)


def award_decide(  # type: ignore[no-untyped-def]
    *, award: Award, user, approve: bool, comment: str, confirm_override: bool = False, now=None
) -> Award:
    """The approver (a different analyst or admin) approves or rejects, always with a comment.
    An award that overrides the rules (``award.blockers``) is approved only by an admin other
    than the proposer who confirms the override; the approval is audited as such.

    Exactly one decision per award: the award row is locked and its state read inside the
    transaction, so of two simultaneous decisions the second sees the first and gets `Conflict`.
    """
    now = now or timezone.now()
    if not _can_write(user):
        raise ValidationError(_("Only analysts and admins can approve or reject an award."))
    if award.proposed_by_id == user.pk:
        raise ValidationError(_("You proposed this award: another analyst or admin must decide."))
    if not (comment or "").strip():
        raise ValidationError({"comment": _("Give a comment with your decision.")})
    with transaction.atomic():
        locked = (
            Award.objects.select_for_update(of=("self",)).select_related("rfq").get(pk=award.pk)
        )
        if locked.state != AwardState.PROPOSED:
            raise Conflict(
                _("This award was already decided (%(state)s); your decision was not recorded.")
                % {"state": locked.get_state_display()},
                "already_decided",
            )
        if approve and locked.blockers:
            _override_refusal(locked, user, confirm_override)
        locked.state = AwardState.APPROVED if approve else AwardState.REJECTED
        locked.decided_by, locked.decided_at = user, now
        locked.decision_comment = comment.strip()
        if approve:
            locked.trial_ends_at = now + timedelta(days=locked.trial_days)
        locked.save()
        if approve:
            Rfq.objects.filter(pk=locked.rfq_id).update(state=RfqState.AWARDED)
            locked.rfq.state = RfqState.AWARDED
        verb = AuditVerb.AWARD_APPROVED if approve else AuditVerb.AWARD_REJECTED
        audit(locked.rfq, verb, user, award=locked.pk, comment=locked.decision_comment)
        if approve and locked.blockers:
            lang = get_language()
            audit(locked.rfq, AuditVerb.AWARD_OVERRIDE_APPROVED, user, award=locked.pk,
                  override_reason=locked.override_reason, comment=locked.decision_comment,
                  overridden=[Message(**m).text(lang) for m in locked.blockers])  # fmt: skip
    return locked


def award_acceptance_upload(*, award: Award, user, upload, now=None):  # type: ignore[no-untyped-def]
    """Add a log of the acceptance test on the rented cluster; the check runs after parsing."""
    now = now or timezone.now()
    if not _can_write(user):
        raise ValidationError(_("Only analysts and admins can upload acceptance logs."))
    if award.state not in (AwardState.APPROVED, AwardState.CONFIRMED, AwardState.FLAGGED):
        raise ValidationError(_("Acceptance logs belong to an approved award."))
    rfq, vendor = award.rfq, award.answer.vendor
    with transaction.atomic():
        if award.acceptance_run_id is None:
            fabric = award.answer.terms.get("fabric") or ""
            run = test_run_create(
                team=rfq.team, user=user, vendor=vendor, data_centre=vendor.data_centres.first(),
                # stored in English, shown in the reader's language (domain/labels.py)
                name=labels.RFQ_ACCEPTANCE.compose(rfq=rfq.pk).en,
                line_rate_gbps=_line_rate(award.answer.terms),
                fabric=fabric if fabric in ("ib", "roce", "tcp") else "",
                quote=award.answer.quote,
            )  # fmt: skip
            award.acceptance_run = run
            award.save(update_fields=["acceptance_run"])
        outcome = benchmark_ingest(
            team=rfq.team, user=user, test_run=award.acceptance_run, upload=upload,
            origin=origin_for(user, via="acceptance", rfq=rfq.pk),
        )  # fmt: skip
        _refuse_known_elsewhere(outcome, award.acceptance_run)
        audit(rfq, AuditVerb.ACCEPTANCE_UPLOADED, user, award=award.pk,
              file=getattr(upload, "name", ""))  # fmt: skip
        # Registered after the ingest's own callbacks, so eager parsing finishes first.
        transaction.on_commit(lambda: _enqueue_check(award.pk))
    return outcome


def _refuse_known_elsewhere(outcome, run) -> None:  # type: ignore[no-untyped-def]
    """A file the team already holds in another run is not acceptance evidence: say where."""
    elsewhere = [dup for dup in outcome.duplicates if dup.test_run_id != run.pk]
    if elsewhere and not outcome.created:
        dup = elsewhere[0]
        raise ValidationError(
            _(
                "This exact file (same SHA-256) is already held as %(name)s in the run "
                "“%(run)s”; an acceptance log must come from the acceptance test on the rented "
                "cluster, so it was not added."
            )
            % {"name": dup.original_name, "run": dup.test_run.name}
        )


def _enqueue_check(award_id: int) -> None:
    from .tasks import check_acceptance

    check_acceptance.delay(award_id)


def award_acceptance_check(*, award_id: int, now=None, give_up: bool = False) -> str:
    """Judge the acceptance run against the award's criteria: confirm, flag, "pending" while its
    logs are parsed, or "stopped" with the reason stored on the award (no log at all; or still
    parsing when ``give_up``, the task's last attempt)."""
    from .acceptance import WAIT, acceptance_blocker, acceptance_evidence, stopped_evidence

    now = now or timezone.now()
    with transaction.atomic():
        award = Award.objects.select_for_update().select_related("rfq").get(pk=award_id)
        if award.state not in (AwardState.APPROVED, AwardState.CONFIRMED, AwardState.FLAGGED):
            return "skipped"
        blocked = acceptance_blocker(award)
        if blocked is not None:
            kind, reason = blocked
            if kind == WAIT and not give_up:
                return "pending"
            if kind == WAIT:
                reason = _("%(reason)s The check stopped waiting; check again once they are "
                           "parsed.") % {"reason": reason}  # fmt: skip
            award.acceptance_evidence, award.acceptance_checked_at = stopped_evidence(reason), now
            award.save(update_fields=["acceptance_evidence", "acceptance_checked_at"])
            return "stopped"
        evidence = acceptance_evidence(award)
        if evidence is None:
            return "pending"
        award.state = AwardState.CONFIRMED if evidence["passed"] else AwardState.FLAGGED
        award.acceptance_evidence, award.acceptance_checked_at = evidence, now
        award.save(update_fields=["state", "acceptance_evidence", "acceptance_checked_at"])
        verb = (
            AuditVerb.ACCEPTANCE_CONFIRMED if evidence["passed"] else AuditVerb.ACCEPTANCE_FLAGGED
        )
        audit(award.rfq, verb, None, award=award.pk, reasons=evidence["reasons"])
    return award.state
