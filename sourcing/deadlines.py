"""Write side of deadline extensions: the only way to move a published RFQ's deadline.

An analyst or admin proposes a later deadline with a reason; another member of the team with
the admin role approves or rejects it. On approval the deadline moves in the same transaction as
the decision and its audit event; after commit every invited supplier is mailed the new deadline
and the reason. Sealed prices stay hidden until the (new) deadline passes, as ever.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.choices import Role
from accounts.models import Membership
from core.queue import enqueue
from domain.rfq_rules import (
    ADMIN_ONLY,
    CONTROL_CHARACTERS,
    REASON_MISSING,
    SAME_PERSON,
    extension_refusal,
)

from .choices import AuditVerb, ExtensionState
from .models import DeadlineExtension, Rfq
from .services import Conflict, audit, timing

MAX_REASON_CHARS = 2000


def _reason_clean(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": REASON_MISSING.text(get_language())})
    if len(reason) > MAX_REASON_CHARS:
        raise ValidationError(
            {"reason": _("At most %(max)s characters.") % {"max": MAX_REASON_CHARS}}
        )
    if "\x00" in reason:
        raise ValidationError({"reason": CONTROL_CHARACTERS.text(get_language())})
    return reason


def deadline_extension_propose(*, rfq: Rfq, user, deadline, reason: str, now=None):  # type: ignore[no-untyped-def]
    """Propose moving a published RFQ's deadline later; waits for another admin."""
    now = now or timezone.now()
    if not _is_writer(user, rfq):
        raise ValidationError(_("Only analysts and admins can propose a deadline extension."))
    reason = _reason_clean(reason)
    with transaction.atomic():
        locked = Rfq.objects.select_for_update().get(pk=rfq.pk)
        refusal = extension_refusal(timing(locked), deadline, now)
        if refusal is not None:
            raise ValidationError({"deadline": refusal.text(get_language())}, refusal.code)
        if locked.extensions.filter(state=ExtensionState.PROPOSED).exists():
            raise ValidationError(
                _("An extension of this deadline is already waiting for approval."), "pending"
            )
        try:
            with transaction.atomic():
                extension = DeadlineExtension.objects.create(
                    rfq=locked, old_deadline=locked.deadline, new_deadline=deadline,
                    reason=reason, proposed_by=user, proposed_at=now,
                )  # fmt: skip
        except IntegrityError as exc:  # the constraints restate the checks above
            raise ValidationError(
                _("An extension of this deadline is already waiting for approval."), "pending"
            ) from exc
        audit(locked, AuditVerb.EXTENSION_PROPOSED, user, extension=extension.pk,
              deadline_before=locked.deadline.isoformat(), deadline=deadline.isoformat(),
              reason=reason)  # fmt: skip
    return extension


def _is_admin(user, rfq: Rfq) -> bool:  # type: ignore[no-untyped-def]
    return Membership.objects.filter(user=user, team_id=rfq.team_id, role=Role.ADMIN).exists()


def _is_writer(user, rfq: Rfq) -> bool:  # type: ignore[no-untyped-def]
    return Membership.objects.filter(
        user=user, team_id=rfq.team_id, role__in=[Role.ANALYST, Role.ADMIN]
    ).exists()


def deadline_extension_decide(  # type: ignore[no-untyped-def]
    *, extension: DeadlineExtension, user, approve: bool, comment: str = "", now=None
) -> DeadlineExtension:
    """An admin other than the proposer approves (the deadline moves, suppliers are mailed) or
    rejects; exactly one decision, checked on the locked rows."""
    now = now or timezone.now()
    lang = get_language()
    if extension.proposed_by_id == user.pk:
        raise ValidationError(SAME_PERSON.text(lang), SAME_PERSON.code)
    if not _is_admin(user, extension.rfq):
        raise ValidationError(ADMIN_ONLY.text(lang), ADMIN_ONLY.code)
    with transaction.atomic():
        rfq = Rfq.objects.select_for_update().get(pk=extension.rfq_id)
        locked = DeadlineExtension.objects.select_for_update().get(pk=extension.pk)
        if locked.state != ExtensionState.PROPOSED:
            raise Conflict(
                _("This extension was already decided (%(state)s).")
                % {"state": locked.get_state_display()},
                "already_decided",
            )
        if approve:
            refusal = extension_refusal(timing(rfq), locked.new_deadline, now)
            if refusal is not None:
                raise ValidationError(refusal.text(lang), refusal.code)
        locked.state = ExtensionState.APPROVED if approve else ExtensionState.REJECTED
        locked.decided_by, locked.decided_at = user, now
        locked.decision_comment = (comment or "").strip()
        locked.save()
        if approve:
            before = rfq.deadline
            rfq.deadline = locked.new_deadline
            rfq.save(update_fields=["deadline"])
            audit(rfq, AuditVerb.EXTENSION_APPROVED, user, extension=locked.pk,
                  deadline_before=before.isoformat(), deadline=rfq.deadline.isoformat(),
                  reason=locked.reason, comment=locked.decision_comment)  # fmt: skip
            transaction.on_commit(lambda: _notify(locked.pk))
        else:
            audit(rfq, AuditVerb.EXTENSION_REJECTED, user, extension=locked.pk,
                  comment=locked.decision_comment)  # fmt: skip
    locked.rfq = rfq
    return locked


def _notify(extension_id: int) -> None:
    """Mail the suppliers from a worker; in this process when the queue is unreachable."""
    from .mail import extension_notify
    from .tasks import notify_deadline_extension

    if not enqueue(notify_deadline_extension, extension_id):
        extension_notify(extension_id=extension_id)
