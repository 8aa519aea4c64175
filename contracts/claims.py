"""Claim packs (a job) and claim-deadline warnings (beat).

A claim pack holds what the vendor needs to accept a claim: a PDF in the requester's language
with the contract's clause, the episodes, the delivered-vs-committed figure and the credit, and
a ZIP of the raw evidence (every kept upload, the incidents, the stored report) with a SHA-256
manifest, so the vendor can check that nothing was changed after the fact.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import tempfile
import zipfile
from datetime import timedelta

from django.conf import settings
from django.core.files import File
from django.core.files.base import ContentFile
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.choices import Role
from accounts.models import Membership
from core.jobs import Progress
from core.models import JobStatus
from domain.delivery.report import report_from_dict

from . import figures
from .models import ClaimPack, ClaimReminder, Contract
from .selectors import latest_evaluation

log = logging.getLogger(__name__)
WARN_DAYS_DEFAULT = 7


def _manifest_line(name: str, digest: str) -> str:
    return f"{digest}  {name}\n"  # the sha256sum format: `sha256sum -c SHA256SUMS` checks it


def _incidents_csv(contract: Contract) -> bytes:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["kind", "started_at", "ended_at", "hosts", "vendor_ticket", "opened_at",
                "responded_at", "repaired_at", "description"])  # fmt: skip
    for i in contract.incidents.order_by("started_at"):
        w.writerow([i.kind, i.started_at.isoformat(), i.ended_at and i.ended_at.isoformat(),
                    " ".join(i.hosts or []), i.vendor_ticket,
                    i.opened_at and i.opened_at.isoformat(),
                    i.responded_at and i.responded_at.isoformat(),
                    i.repaired_at and i.repaired_at.isoformat(), i.description])  # fmt: skip
    return out.getvalue().encode()


def evidence_zip(contract: Contract, report_data: dict, target) -> str:  # type: ignore[no-untyped-def, type-arg]
    """Write the evidence ZIP into ``target`` (a binary file); return its SHA-256."""
    manifest: list[str] = []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for up in contract.uploads.order_by("uploaded_at", "pk"):
            name = f"evidence/{up.uploaded_at:%Y%m%dT%H%M%S}-{up.pk}-{up.original_name}"
            digest = hashlib.sha256()
            with up.file.open("rb") as src, z.open(name, "w") as dst:
                for chunk in iter(lambda: src.read(1 << 20), b""):  # noqa: B023
                    digest.update(chunk)
                    dst.write(chunk)
            manifest.append(_manifest_line(name, digest.hexdigest()))
        for name, data in (("incidents.csv", _incidents_csv(contract)),
                           ("report.json", json.dumps(report_data, ensure_ascii=False,
                                                      indent=1).encode())):  # fmt: skip
            z.writestr(name, data)
            manifest.append(_manifest_line(name, hashlib.sha256(data).hexdigest()))
        z.writestr("SHA256SUMS", "".join(manifest))
    target.seek(0)
    digest = hashlib.sha256()
    for chunk in iter(lambda: target.read(1 << 20), b""):
        digest.update(chunk)
    return digest.hexdigest()


def claim_pdf(contract: Contract, report, language: str) -> bytes:  # type: ignore[no-untyped-def]
    from reports.chart_png import jpeg
    from reports.pdf import write_pdf

    with translation.override(language):
        drawing = figures.delivery_drawing(report, threshold_fraction=figures.threshold(contract))
        images = {"delivery": jpeg(drawing)} if drawing else {}
        credited = [e for e in report.episodes if e.credited]
        html = render_to_string("contracts/claim_pdf.html", {
            "contract": contract, "report": report, "episodes": credited,
            "credits": report.credits, "months": report.months, "has_chart": bool(images),
            "schedule": contract.schedule, "language": language, "now": timezone.now(),
        })  # fmt: skip
    return write_pdf(html, images)


def claim_pack_build(*, pack_id: int, progress: Progress) -> str:
    pack = ClaimPack.objects.select_related("contract__vendor", "evaluation").get(pk=pack_id)
    contract = pack.contract
    report = report_from_dict(pack.evaluation.report)
    pdf = claim_pdf(contract, report, pack.language)
    progress(50)
    with tempfile.TemporaryFile() as tmp:
        sha = evidence_zip(contract, pack.evaluation.report, tmp)
        tmp.seek(0)
        with transaction.atomic():
            pack.pdf.save(f"claim-{pack.pk}.pdf", ContentFile(pdf), save=False)
            pack.evidence_zip.save(f"claim-{pack.pk}-evidence.zip", File(tmp), save=False)
            pack.zip_sha256 = sha
            pack.save(update_fields=["pdf", "evidence_zip", "zip_sha256"])
    return "done"


def _recipients(team) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    rows = Membership.objects.filter(team=team, role__in=[Role.ANALYST, Role.ADMIN]).exclude(
        user__email="").values_list("user__email", flat=True)  # fmt: skip
    return [(e, settings.LANGUAGE_CODE) for e in rows]


def claim_deadline_warnings_send(*, now=None) -> int:  # type: ignore[no-untyped-def]
    """Mail the team's analysts and admins once per credited episode whose claim window closes
    within ``CONTRACT_CLAIM_WARNING_DAYS`` days; returns the number of mails sent."""
    now = now or timezone.now()
    days = int(getattr(settings, "CONTRACT_CLAIM_WARNING_DAYS", WARN_DAYS_DEFAULT))
    sent = 0
    for contract in Contract.objects.filter(status="signed").select_related("team", "vendor"):
        evaluation = latest_evaluation(contract)
        if evaluation is None:
            continue
        try:
            report = report_from_dict(evaluation.report)
        except ValueError:
            continue
        for e in report.episodes:
            if not e.credited or not (now < e.claim_deadline <= now + timedelta(days=days)):
                continue
            key = f"{e.kind}:{e.host}:{e.start.isoformat()}"[:80]
            try:
                with transaction.atomic():
                    ClaimReminder.objects.create(contract=contract, episode_key=key,
                                                 deadline=e.claim_deadline)  # fmt: skip
            except IntegrityError:
                continue  # already warned
            sent += _warn(contract, e, now)
    return sent


def _warn(contract: Contract, episode, now) -> int:  # type: ignore[no-untyped-def]
    count = 0
    for address, language in _recipients(contract.team):
        with translation.override(language):
            left = max(0, (episode.claim_deadline - now).days)
            subject = _("Claim window closes in %(days)s days: %(contract)s") % {
                "days": left, "contract": contract.title}  # fmt: skip
            body = render_to_string("contracts/email_claim_warning.txt", {
                "contract": contract, "episode": episode, "days": left,
                "sentence": episode.sentence.text(language),
            })  # fmt: skip
        try:
            EmailMessage(subject.replace("\n", " "), body, settings.DEFAULT_FROM_EMAIL,
                         [address]).send()  # fmt: skip
            count += 1
        except Exception as exc:  # noqa: BLE001 - a mail failure is logged, the beat goes on
            log.warning("claim warning to %s failed: %s", address, exc)
    return count


def claim_pack_ready(pack: ClaimPack) -> bool:
    return pack.status == JobStatus.DONE and bool(pack.pdf) and bool(pack.evidence_zip)
