"""The demo's outgoing mail, found again: `make run` writes every mail to a file under
var/mail/ (Django's file-based backend), and the RFQ page links the latest invitation of that
RFQ so a newcomer can open the supplier's side without a mail server.

Only when mail goes to files (never with a real mail server: the link is the supplier's secret),
and only the team's own invitations: a token read from a file counts only when its SHA-256 is
one of this RFQ's invitations.
"""

from __future__ import annotations

import email
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from .models import Invitation, Rfq
from .services import token_digest

FILE_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
NEWEST_FILES = 200  # the newest files are read; a demo's folder holds a few dozen
LINK = re.compile(r"https?://\S+?/sourcing/invite/([A-Za-z0-9_\-]{16,128})/")


@dataclass(frozen=True)
class DemoInvitationMail:
    invitation: Invitation
    link: str
    file_name: str


def mail_folder() -> Path | None:
    """Where mail goes when it is written to files, else None."""
    if settings.EMAIL_BACKEND != FILE_BACKEND:
        return None
    return Path(getattr(settings, "EMAIL_FILE_PATH", "") or "")


def latest_invitation_mail(rfq: Rfq) -> DemoInvitationMail | None:
    folder = mail_folder()
    if folder is None or not folder.is_dir():
        return None
    invitations = {
        i.token_sha256: i for i in Invitation.objects.filter(rfq=rfq).select_related("vendor")
    }
    if not invitations:
        return None
    files = sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in files[:NEWEST_FILES]:
        for link, token in _links(path):
            found = invitations.get(token_digest(token))
            if found is not None:
                return DemoInvitationMail(invitation=found, link=link, file_name=path.name)
    return None


def _links(path: Path) -> list[tuple[str, str]]:
    """Invitation links in one mail file (the backend separates messages by a line of dashes;
    bodies may be quoted-printable or base64, so each is decoded first)."""
    out: list[tuple[str, str]] = []
    raw = path.read_bytes()
    for chunk in raw.split(b"\n" + b"-" * 79 + b"\n"):
        message = email.message_from_bytes(chunk)
        for part in message.walk():
            payload = part.get_payload(decode=True)
            if not isinstance(payload, bytes):
                continue
            text = payload.decode(part.get_content_charset() or "utf-8", errors="replace")
            out.extend((m.group(0), m.group(1)) for m in LINK.finditer(text))
    return out
