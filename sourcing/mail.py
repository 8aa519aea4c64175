"""E-mail of sourcing events: safe headers, sending after commit with retries, recorded outcome.

A mail is sent only once the transaction that decided it has committed (``on_commit``), so a
rolled-back invitation sends nothing and a mail failure cannot undo the invitation. Every
failure of the backend (a bad header, a refused or dropped SMTP connection) is caught, retried
a few times and recorded; it never turns the request into a 500.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from domain.rfq_rules import single_line

from .choices import AuditVerb, ExtensionState, MailStatus
from .models import DeadlineExtension, Invitation

log = logging.getLogger(__name__)

# Pauses before the 2nd, 3rd, ... attempt; tests set SOURCING_MAIL_RETRY_DELAYS_S = (0, 0).
DEFAULT_RETRY_DELAYS_S = (1.0, 3.0)
MAX_ERROR_CHARS = 500


@dataclass(frozen=True)
class Outcome:
    sent: bool
    attempts: int
    error: str = ""


def send_with_retries(*, subject: str, body: str, to: str) -> Outcome:
    """Send one mail; retry on any backend error; the subject is made one safe line first."""
    delays = tuple(getattr(settings, "SOURCING_MAIL_RETRY_DELAYS_S", DEFAULT_RETRY_DELAYS_S))
    message = EmailMessage(single_line(subject), body, settings.DEFAULT_FROM_EMAIL, [to])
    error = ""
    for attempt, delay in enumerate((0.0, *delays), start=1):
        if delay:
            time.sleep(delay)
        try:
            message.send()
            return Outcome(sent=True, attempts=attempt)
        except Exception as exc:  # noqa: BLE001 - every backend failure is recorded, not raised
            error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
            log.warning("mail to %s failed (attempt %s): %s", to, attempt, error)
    return Outcome(sent=False, attempts=len(delays) + 1, error=error)


# Suppliers' languages are not known (they have no account yet): every sourcing mail carries the
# Chinese text first, then the English one, whichever language the sender's page or the worker had.
MAIL_LANGUAGES = ("zh-hans", "en")


def bilingual(subject: str, template: str, context: dict[str, object]) -> tuple[str, str]:
    """(subject, body) in every mail language: `subject` is a msgid with %(title)s-style
    placeholders filled from `context`; identical translations are not repeated."""
    subjects: list[str] = []
    bodies: list[str] = []
    for lang in MAIL_LANGUAGES:
        with translation.override(lang):
            line = _(subject) % context
            text = render_to_string(template, context).strip()
        if line not in subjects:
            subjects.append(line)
        if text not in bodies:
            bodies.append(text)
    return " / ".join(subjects), "\n\n----------\n\n".join(bodies) + "\n"


def invitation_link(base_url: str, token: str) -> str:
    return f"{(base_url or '').rstrip('/')}/sourcing/invite/{token}/"


def invitation_deliver(*, invitation_id: int, token: str, base_url: str) -> Outcome | None:
    """Mail the invitation (after commit) and record sent / failed on the row.

    None when the invitation is gone or its token was replaced meanwhile (a newer send owns it).
    """
    from .services import audit, token_digest

    invitation = Invitation.objects.select_related("rfq", "vendor").filter(pk=invitation_id).first()
    if invitation is None or invitation.token_sha256 != token_digest(token):
        return None
    rfq = invitation.rfq
    context = {"invitation": invitation, "rfq": rfq, "title": rfq.title,
               "link": invitation_link(base_url, token)}  # fmt: skip
    subject, body = bilingual(
        gettext_noop("Request for quotation: %(title)s"), "sourcing/email_invitation.txt", context
    )
    outcome = send_with_retries(subject=subject, body=body, to=invitation.email)
    now = timezone.now()
    Invitation.objects.filter(pk=invitation.pk, token_sha256=invitation.token_sha256).update(
        mail_status=MailStatus.SENT if outcome.sent else MailStatus.FAILED,
        mail_error=outcome.error,
        mail_attempts=outcome.attempts,
        mailed_at=now if outcome.sent else None,
    )
    if not outcome.sent:
        audit(rfq, AuditVerb.INVITATION_MAIL_FAILED, None, vendor=str(invitation.vendor),
              email=invitation.email, error=outcome.error)  # fmt: skip
    return outcome


def extension_recipients(extension: DeadlineExtension) -> list[str]:
    """Invited suppliers who received their invitation (or already accepted it)."""
    rows = extension.rfq.invitations.order_by("pk").values_list("email", "mail_status",
                                                                 "accepted_at")  # fmt: skip
    return [e for e, status, accepted in rows if status == MailStatus.SENT or accepted]


def extension_notify(*, extension_id: int) -> dict[str, list[str]]:
    """Tell the invited suppliers of an approved extension (new deadline and reason), once;
    audited with who was mailed and who could not be."""
    from .services import audit

    claimed = DeadlineExtension.objects.filter(
        pk=extension_id, state=ExtensionState.APPROVED, notified_at__isnull=True
    ).update(notified_at=timezone.now())
    if not claimed:  # not approved, or told already (a redelivered task): nobody mailed twice
        return {"sent": [], "failed": []}
    extension = DeadlineExtension.objects.select_related("rfq").get(pk=extension_id)
    rfq = extension.rfq
    subject, body = bilingual(
        gettext_noop("Deadline extended: %(title)s"),
        "sourcing/email_extension.txt",
        {"rfq": rfq, "extension": extension, "title": rfq.title},
    )
    sent, failed = _send_all(extension_recipients(extension), subject, body)
    audit(rfq, AuditVerb.EXTENSION_MAILED, None, sent=sent, failed=failed)
    return {"sent": sent, "failed": failed}


def _send_all(recipients: Iterable[str], subject: str, body: str) -> tuple[list[str], list[str]]:
    sent: list[str] = []
    failed: list[str] = []
    for email in recipients:
        outcome = send_with_retries(subject=subject, body=body, to=email)
        (sent if outcome.sent else failed).append(email)
    return sent, failed
