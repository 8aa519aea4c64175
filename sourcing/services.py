"""Write side of sourcing events. Views, serializers and tasks only call these.

Every function that changes an event also writes an ``AuditEvent`` in the same transaction.
Functions take ``now`` so tests control time without patching the clock.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.models import Membership
from accounts.services import user_create
from benchmarks.models import TestRun
from benchmarks.services import benchmark_ingest, quote_measured_update, test_run_create
from benchmarks.trust import origin_for
from core.models import JobStatus
from domain import labels
from domain import rfq_rules as rules
from domain.evidence import hosts as bid_hosts
from domain.rfq_rules import (
    CONTROL_CHARACTERS,
    RfqTiming,
    bandwidth_refusal,
    deadline_refusal,
    has_control_characters,
    published_change_refusals,
    requirement_problems,
)
from quotes.services import quote_create
from rankings.services import ranking_start

# Awards live in sourcing/awards.py (proposal, override of the rules, decision, acceptance);
# callers keep importing them from here.
from .awards import (  # noqa: F401
    award_acceptance_check,
    award_acceptance_upload,
    award_decide,
    award_propose,
)
from .choices import AuditVerb, MailStatus, RfqState
from .common import Conflict, _can_write, _line_rate, audit  # noqa: F401 (re-exported)
from .models import Answer, Invitation, Rfq, SupplierAccount
from .terms import terms_clean, terms_from_json, terms_standing

RFQ_FIELDS = (
    "title", "workload", "nodes", "min_internode_gbps", "fabric", "require_pfc", "require_ecn",
    "region", "term_months", "min_availability", "min_trial_days", "deadline", "sealed",
    "required_evidence", "kit_pairs", "kit_duration_s", "weights", "notes", "mandatory",
    "nonconforming", "acceptance_envelope",
)  # fmt: skip
WEIGHT_KEYS = ("cost", "network", "diligence", "sla")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# ---------------------------------------------------------------------------------------------
# RFQ


MAX_WEIGHT = 1000  # weights are relative; a bound keeps their sum and the scores finite
MAX_KIT_PAIRS = 256  # 32,767 pairs made a 14 MB kit script in every RFQ response
MAX_KIT_DURATION_S = 24 * 3600


def _bad_weight(value: Any) -> bool:
    """Not a finite number of 0 or more (a JSON boolean is not a weight either)."""
    return (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
    )


def timing(rfq: Rfq) -> RfqTiming:
    return RfqTiming(state=rfq.state, sealed=rfq.sealed, deadline=rfq.deadline)


def _rfq_clean(rfq: Rfq) -> None:
    if has_control_characters(rfq.title or ""):  # the title goes into mail subjects
        raise ValidationError({"title": CONTROL_CHARACTERS.text(get_language())})
    if rfq.workload_id and rfq.workload.team_id != rfq.team_id:
        raise ValidationError({"workload": _("Choose one of your team's workloads.")})
    weights = rfq.weights or {}
    if (
        not isinstance(weights, dict)
        or set(weights) != set(WEIGHT_KEYS)
        or any(_bad_weight(v) for v in weights.values())
    ):
        raise ValidationError(
            {"weights": _("Give the weights cost, network, diligence and sla, each 0 or more.")}
        )
    if any(v > MAX_WEIGHT for v in weights.values()):
        raise ValidationError(
            {"weights": _("Each weight must be at most %(max)s.") % {"max": MAX_WEIGHT}}
        )
    if sum(weights.values()) <= 0:
        raise ValidationError({"weights": _("At least one weight must be above 0.")})
    if (rfq.kit_pairs or 0) > MAX_KIT_PAIRS:  # the kit prints commands per pair, for every view
        raise ValidationError(
            {"kit_pairs": _("At most %(max)s concurrent pairs.") % {"max": MAX_KIT_PAIRS}}
        )
    if (rfq.kit_duration_s or 0) > MAX_KIT_DURATION_S:
        raise ValidationError(
            {"kit_duration_s": _("At most %(max)s seconds per test.") % {"max": MAX_KIT_DURATION_S}}
        )
    evidence = rfq.required_evidence
    if not isinstance(evidence, list) or any(not isinstance(e, str) for e in evidence):
        evidence = ["?"]  # a JSON object, number or nested value: refused below like a typo
    unknown = set(evidence) - {"iperf3", "ib_write_bw", "ib_write_lat", "nccl"}
    if unknown or not evidence:
        raise ValidationError(
            {"required_evidence": _("Choose among iperf3, ib_write_bw, ib_write_lat and nccl.")}
        )
    mandatory = rfq.mandatory if isinstance(rfq.mandatory, list) else ["?"]
    problems = requirement_problems([str(m) for m in mandatory], rfq.nonconforming)
    if problems:
        lang = get_language()
        raise ValidationError({"mandatory": " ".join(m.text(lang) for m in problems)})
    too_high = bandwidth_refusal(rfq.min_internode_gbps)
    if too_high:
        raise ValidationError({"min_internode_gbps": too_high.text(get_language())})
    rfq.full_clean(exclude=["team", "gpu_models"])


def _deadline_check(rfq: Rfq, now) -> None:  # type: ignore[no-untyped-def]
    if rfq.deadline <= now:
        raise ValidationError({"deadline": _("The deadline must be in the future.")})
    too_far = deadline_refusal(rfq.deadline, now)
    if too_far:
        raise ValidationError({"deadline": too_far.text(get_language())})


def rfq_create(*, team, user, data: dict[str, Any], now=None) -> Rfq:  # type: ignore[no-untyped-def]
    """A draft RFQ; ``data`` holds model fields plus ``gpu_models`` (GpuModel rows)."""
    now = now or timezone.now()
    rfq = Rfq(team=team, created_by=user, **{k: data[k] for k in RFQ_FIELDS if k in data})
    _rfq_clean(rfq)
    _deadline_check(rfq, now)
    with transaction.atomic():
        rfq.save()
        rfq.gpu_models.set(data.get("gpu_models") or [])
        audit(rfq, AuditVerb.CREATED, user, title=rfq.title)
    return rfq


def rfq_update(*, rfq: Rfq, user, data: dict[str, Any], now=None, draft_only: bool = False) -> Rfq:  # type: ignore[no-untyped-def]
    """Change a draft, or a published RFQ before its deadline (suppliers see the new terms).

    Checked on the locked row: once published, sealing may only be switched on and the deadline
    only moves by an approved extension (`domain.rfq_rules.published_change_refusals`). Every
    edit is audited, a change of sealing or deadline with its before and after.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = Rfq.objects.select_for_update().get(pk=rfq.pk)
        if draft_only:
            refusal = rfq_draft_edit_refusal(locked, now)
            if refusal:
                raise ValidationError(refusal, "not_draft")
        if locked.state not in (RfqState.DRAFT, RfqState.PUBLISHED) or now >= locked.deadline:
            raise ValidationError(_("This RFQ can no longer be changed."), "closed")
        before = timing(locked)
        for key in RFQ_FIELDS:
            if key in data:
                setattr(locked, key, data[key])
        refusals = published_change_refusals(before, timing(locked))
        if refusals:
            lang = get_language()
            raise ValidationError({k: m.text(lang) for k, m in refusals.items()}, "published")
        _rfq_clean(locked)
        if locked.deadline != before.deadline or locked.deadline <= now:
            _deadline_check(locked, now)
        locked.save()
        if "gpu_models" in data:
            locked.gpu_models.set(data["gpu_models"])
        _audit_edit(locked, user, before)
    return locked


def _audit_edit(rfq: Rfq, user, before: RfqTiming) -> None:  # type: ignore[no-untyped-def]
    audit(rfq, AuditVerb.EDITED, user, title=rfq.title)
    if rfq.sealed != before.sealed:
        audit(rfq, AuditVerb.SEALING_CHANGED, user, sealed_before=before.sealed,
              sealed_after=rfq.sealed)  # fmt: skip
    if rfq.deadline != before.deadline:
        audit(rfq, AuditVerb.DEADLINE_CHANGED, user, deadline_before=before.deadline.isoformat(),
              deadline=rfq.deadline.isoformat())  # fmt: skip


def rfq_draft_edit_refusal(rfq: Rfq, now=None) -> str:  # type: ignore[no-untyped-def]
    """Why the edit page refuses this RFQ ("" while it is an editable draft)."""
    now = now or timezone.now()
    if rfq.state != RfqState.DRAFT:
        return _(
            "This RFQ is %(state)s: only a draft can be edited here. Suppliers may already have "
            "seen it."
        ) % {"state": rfq.get_state_display().lower()}
    if now >= rfq.deadline:
        return _("The deadline (%(when)s) has passed: this RFQ can no longer be edited.") % {
            "when": timezone.localtime(rfq.deadline).strftime("%Y-%m-%d %H:%M")
        }
    return ""


def rfq_update_draft(*, rfq: Rfq, user, data: dict[str, Any], now=None) -> Rfq:  # type: ignore[no-untyped-def]
    """The edit page's save: `rfq_update` for a draft only (re-checked under the row lock)."""
    return rfq_update(rfq=rfq, user=user, data=data, now=now, draft_only=True)


def rfq_publish(*, rfq: Rfq, user, now=None) -> Rfq:  # type: ignore[no-untyped-def]
    now = now or timezone.now()
    with transaction.atomic():
        locked = Rfq.objects.select_for_update().get(pk=rfq.pk)
        if locked.state != RfqState.DRAFT:
            raise ValidationError(_("Only a draft RFQ can be published."))
        if locked.deadline <= now:
            raise ValidationError(
                {"deadline": _("The deadline has passed; move it before publishing.")}
            )
        rfq.deadline, rfq.sealed = locked.deadline, locked.sealed
        Rfq.objects.filter(pk=rfq.pk).update(state=RfqState.PUBLISHED, published_at=now)
        rfq.state, rfq.published_at = RfqState.PUBLISHED, now
        audit(rfq, AuditVerb.PUBLISHED, user, deadline=rfq.deadline.isoformat())
    return rfq


# ---------------------------------------------------------------------------------------------
# Invitations and supplier accounts


def invitation_standing_verdict(team, vendor) -> rules.StandingVerdict | None:  # type: ignore[no-untyped-def]
    """The team's rule on the vendor's delivery standing (``Team.min_delivered_ratio`` and
    ``standing_rule_mode`` against ``Vendor.delivered_ratio``): None, a warning, or a refusal."""
    return rules.invitation_standing(
        vendor=str(vendor), delivered_ratio=vendor.delivered_ratio,
        minimum=team.min_delivered_ratio, mode=team.standing_rule_mode,
        basis=[rules.StandingBasis(title=t, ratio=r) for t, r in vendor.standing_basis()],
    )  # fmt: skip


def invitation_standing_warning(team, vendor) -> str:  # type: ignore[no-untyped-def]
    """The warning to show with an invitation that was sent ("" when the rule says nothing)."""
    verdict = invitation_standing_verdict(team, vendor)
    return verdict.message.text(get_language()) if verdict and not verdict.blocked else ""


def invitation_create(*, rfq: Rfq, user, vendor, email: str, base_url: str = "", now=None):  # type: ignore[no-untyped-def]
    """Invite one of the team's vendors by e-mail; returns (invitation, token). Sent on commit."""
    now = now or timezone.now()
    email = (email or "").strip().lower()
    if vendor is None or vendor.team_id != rfq.team_id:
        raise ValidationError({"vendor": _("Choose one of your team's vendors.")})
    if rfq.state not in (RfqState.DRAFT, RfqState.PUBLISHED) or now >= rfq.deadline:
        raise ValidationError(_("Invitations are closed: the deadline has passed."))
    verdict = invitation_standing_verdict(rfq.team, vendor)
    if verdict is not None and verdict.blocked:
        raise ValidationError(verdict.message.text(get_language()), code="below_standing")
    existing = Invitation.objects.filter(rfq=rfq).filter(vendor=vendor).first() or (
        Invitation.objects.filter(rfq=rfq, email=email).first()
    )
    if existing is not None:
        raise ValidationError(
            _("%(vendor)s (%(email)s) is already invited to this RFQ (sent %(when)s).")
            % {"vendor": existing.vendor, "email": existing.email,
               "when": timezone.localtime(existing.sent_at).strftime("%Y-%m-%d %H:%M")},
            code="duplicate",
        )  # fmt: skip
    token = secrets.token_urlsafe(32)
    invitation = Invitation(
        rfq=rfq, vendor=vendor, email=email, token_sha256=token_digest(token), created_by=user,
        sent_at=now, mail_status=MailStatus.PENDING,
    )  # fmt: skip
    invitation.full_clean(exclude=["rfq", "vendor"])
    try:
        with transaction.atomic():
            invitation.save()
            audit(rfq, AuditVerb.INVITED, user, vendor=str(vendor), email=email)
            _deliver_on_commit(invitation, token, base_url)
    except IntegrityError as exc:  # a concurrent duplicate
        raise ValidationError(
            _("This vendor is already invited to this RFQ."), "duplicate"
        ) from exc
    return invitation, token


def _deliver_on_commit(invitation: Invitation, token: str, base_url: str) -> None:
    from .mail import invitation_deliver

    pk = invitation.pk
    transaction.on_commit(
        lambda: invitation_deliver(invitation_id=pk, token=token, base_url=base_url)
    )


STALE_PENDING_MAIL = timedelta(minutes=15)  # a send that never recorded its outcome


def invitation_resend_refusal(invitation: Invitation, now=None) -> str:  # type: ignore[no-untyped-def]
    """Why this invitation cannot be sent again ("" when it can: its mail failed)."""
    now = now or timezone.now()
    rfq = invitation.rfq
    if invitation.accepted_at is not None:
        return _("This invitation was already accepted.")
    if rfq.state not in (RfqState.DRAFT, RfqState.PUBLISHED) or now >= rfq.deadline:
        return _("Invitations are closed: the deadline has passed.")
    stale = invitation.mail_status == MailStatus.PENDING and (
        now - invitation.sent_at >= STALE_PENDING_MAIL
    )
    if invitation.mail_status != MailStatus.FAILED and not stale:
        return _("Only an invitation whose e-mail failed can be sent again.")
    return ""


def invitation_resend(*, invitation: Invitation, user, base_url: str = "", now=None):  # type: ignore[no-untyped-def]
    """Send a failed invitation again with a new token (the old link stops working)."""
    now = now or timezone.now()
    if not _can_write(user):
        raise ValidationError(_("Only analysts and admins can send invitations."))
    with transaction.atomic():
        Rfq.objects.select_for_update().get(pk=invitation.rfq_id)
        locked = (
            Invitation.objects.select_for_update(of=("self",))
            .select_related("rfq", "vendor")
            .get(pk=invitation.pk)
        )
        refusal = invitation_resend_refusal(locked, now)
        if refusal:
            raise ValidationError(refusal, "not_resendable")
        token = secrets.token_urlsafe(32)
        locked.token_sha256, locked.mail_status, locked.mail_error = (
            token_digest(token), MailStatus.PENDING, "",
        )  # fmt: skip
        locked.sent_at = now
        locked.save(update_fields=["token_sha256", "mail_status", "mail_error", "sent_at"])
        audit(locked.rfq, AuditVerb.INVITATION_RESENT, user, vendor=str(locked.vendor),
              email=locked.email)  # fmt: skip
        _deliver_on_commit(locked, token, base_url)
    return locked, token


def invitation_for_token(token: str) -> Invitation | None:
    return (
        Invitation.objects.select_related("rfq", "vendor")
        .filter(token_sha256=token_digest(token or ""))
        .first()
    )


def invitation_accept(  # type: ignore[no-untyped-def]
    *, token: str, user=None, username: str = "", password: str = "", now=None
) -> SupplierAccount:
    """Use an invitation link once: link it to the logged-in supplier or to a new account."""
    now = now or timezone.now()
    with transaction.atomic():
        invitation = invitation_for_token(token)
        if invitation is None:
            raise ValidationError(_("This invitation link is not valid."), "invalid")
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.accepted_at is not None:
            raise ValidationError(_("This invitation link was already used."), "used")
        account = _account_for(invitation, user, username, password)
        invitation.accepted_at, invitation.accepted_by = now, account.user
        invitation.save(update_fields=["accepted_at", "accepted_by"])
        audit(invitation.rfq, AuditVerb.INVITATION_ACCEPTED, account.user,
              vendor=str(invitation.vendor))  # fmt: skip
    return account


def _account_for(invitation: Invitation, user, username: str, password: str) -> SupplierAccount:  # type: ignore[no-untyped-def]
    if user is not None and getattr(user, "is_authenticated", False):
        if Membership.objects.filter(user=user).exists():
            raise ValidationError(_("Team members cannot accept supplier invitations."))
        account = SupplierAccount.objects.filter(user=user).first()
        if account is None or account.vendor_id != invitation.vendor_id:
            raise ValidationError(_("This invitation is for another vendor's account."))
        return account
    # One rule for new log-ins (accounts.services.user_create): the name is refused when taken
    # in any spelling (NFKC + case folding), so a full-width copy of a name is a 400, not a 500.
    new = user_create(username=(username or "").strip(), password=password, email=invitation.email)
    return SupplierAccount.objects.create(user=new, vendor=invitation.vendor)


# ---------------------------------------------------------------------------------------------
# Answers


def _refuse_closed(rfq: Rfq, now) -> None:  # type: ignore[no-untyped-def]
    if rfq.state == RfqState.DRAFT:
        raise ValidationError(_("This RFQ is not published yet."), "not_open")
    if not rfq.is_open_for_answers(now):
        raise ValidationError(
            _("The deadline (%(when)s) has passed: answers can no longer be submitted or changed.")
            % {"when": timezone.localtime(rfq.deadline).strftime("%Y-%m-%d %H:%M")},
            "late",
        )


def _check_invited(rfq: Rfq, account: SupplierAccount) -> None:
    invited = Invitation.objects.filter(
        rfq=rfq, vendor_id=account.vendor_id, accepted_at__isnull=False
    ).exists()
    if not invited:
        raise ValidationError(_("Your company is not invited to this RFQ."), "not_invited")


def answer_hosts_clean(hosts: Any) -> list[dict[str, Any]]:
    """A bid's host list from the form's text (one host per line: name, then its NIC GUIDs,
    MACs, GPU UUIDs) or the API's list of such lines; refused with every line's error."""
    if hosts is None:
        return []
    if isinstance(hosts, list) and all(isinstance(h, str) for h in hosts):
        hosts = "\n".join(hosts)
    if not isinstance(hosts, str):
        raise ValidationError(
            {"hosts": _("Give the host list as lines of text: a host name, then its NIC GUIDs, "
                        "MAC addresses and GPU UUIDs.")}
        )  # fmt: skip
    parsed, errors = bid_hosts.parse_lines(hosts)
    if errors:
        lang = get_language()
        raise ValidationError({"hosts": [m.text(lang) for m in errors[:10]]})
    return [h.as_dict() for h in parsed]


def answer_submit(  # type: ignore[no-untyped-def]
    *,
    rfq: Rfq,
    account: SupplierAccount,
    terms: dict[str, Any],
    supplier_notes: str = "",
    hosts: Any = None,
    now=None,
) -> Answer:
    """Submit or revise the vendor's answer (one per vendor) until the deadline. ``hosts`` is
    the bid's host list (``answer_hosts_clean``); None keeps the list an earlier revision gave."""
    now = now or timezone.now()
    _check_invited(rfq, account)
    clean = terms_clean(terms)
    host_list = None if hosts is None else answer_hosts_clean(hosts)
    with transaction.atomic():
        locked = Rfq.objects.select_for_update().get(pk=rfq.pk)
        _refuse_closed(locked, now)
        answer = Answer.objects.filter(rfq=rfq, vendor_id=account.vendor_id).first()
        if answer is None:
            answer = Answer.objects.create(
                rfq=rfq, vendor_id=account.vendor_id, terms=clean, supplier_notes=supplier_notes,
                submitted_by=account.user, submitted_at=now, revised_at=now,
                hosts=host_list or [],
            )  # fmt: skip
            audit(rfq, AuditVerb.ANSWER_SUBMITTED, account.user, vendor=str(account.vendor))
        else:
            answer.terms, answer.supplier_notes = clean, supplier_notes
            if host_list is not None:
                answer.hosts = host_list
            answer.revision += 1
            answer.revised_at, answer.submitted_by = now, account.user
            answer.save()
            audit(rfq, AuditVerb.ANSWER_REVISED, account.user, vendor=str(account.vendor),
                  revision=answer.revision)  # fmt: skip
    return answer


def _supplier_origin(answer: Answer, account: SupplierAccount) -> dict[str, Any]:
    """How a supplier's log came in, with what its challenge token is checked against."""
    rfq = answer.rfq
    invitation = (
        Invitation.objects.filter(rfq=rfq, vendor_id=account.vendor_id, accepted_at__isnull=False)
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
    )
    return origin_for(
        account.user,
        via="supplier",
        rfq=rfq.pk,
        invitation=invitation,
        published_at=rfq.published_at.timestamp() if rfq.published_at else None,
        deadline=rfq.deadline.timestamp(),
        bid_hosts=[h.as_dict() for h in bid_hosts.from_stored(answer.hosts)],
        kit_duration_s=rfq.kit_duration_s,
        kit_pairs=rfq.kit_pairs,
    )


def answer_upload_evidence(*, answer: Answer, account: SupplierAccount, upload, now=None):  # type: ignore[no-untyped-def]
    """Store a supplier's benchmark log in the answer's test run (parsed like the team's own)."""
    now = now or timezone.now()
    if answer.vendor_id != account.vendor_id:
        raise ValidationError(_("This answer belongs to another vendor."))
    _refuse_closed(answer.rfq, now)
    rfq = answer.rfq
    with transaction.atomic():
        # Checked again on the locked row, as answer_submit does: closing takes the same lock, so
        # an upload racing the deadline job (or holding a stale RFQ) cannot land after closing.
        _refuse_closed(Rfq.objects.select_for_update().get(pk=rfq.pk), now)
        if answer.evidence_run_id is None:
            fabric = answer.terms.get("fabric") or ""
            run = test_run_create(
                team=rfq.team, user=account.user, vendor=answer.vendor,
                data_centre=answer.vendor.data_centres.first(),
                # stored in English, shown in the reader's language (domain/labels.py)
                name=labels.RFQ_EVIDENCE.compose(rfq=rfq.pk, vendor=answer.vendor).en,
                line_rate_gbps=_line_rate(answer.terms),
                fabric=fabric if fabric in ("ib", "roce", "tcp") else "",
            )  # fmt: skip
            answer.evidence_run = run
            answer.save(update_fields=["evidence_run"])
        outcome = benchmark_ingest(
            team=rfq.team, user=account.user, test_run=answer.evidence_run, upload=upload,
            origin=_supplier_origin(answer, account),
        )  # fmt: skip
        if not outcome.created:
            # The team already holds this exact file (this answer's, or any other log of the
            # team's): nothing would be attached, so say so instead of reporting an upload. The
            # message does not say where the file is.
            raise ValidationError(
                {"file": _("This exact file was already uploaded; upload the kit's own output.")}
            )
        audit(rfq, AuditVerb.EVIDENCE_UPLOADED, account.user, vendor=str(answer.vendor),
              file=getattr(upload, "name", ""))  # fmt: skip
    return outcome


# ---------------------------------------------------------------------------------------------
# Closing and ranking


def rfq_close(*, rfq_id: int, now=None) -> str:
    """Close a published RFQ whose deadline passed: answers become quotes, the ranking starts.

    Idempotent: an RFQ already closed (or not due) is left alone and "skipped" returned.
    """
    now = now or timezone.now()
    with transaction.atomic():
        rfq = Rfq.objects.select_for_update().select_related("team", "workload").get(pk=rfq_id)
        if rfq.state != RfqState.PUBLISHED or now < rfq.deadline:
            return "skipped"
        answers = list(rfq.answers.select_related("vendor", "evidence_run"))
        quotes = [_answer_quote(rfq, a) for a in answers]
        rfq.state, rfq.closed_at = RfqState.CLOSED, now
        rfq.save(update_fields=["state", "closed_at"])
        audit(rfq, AuditVerb.CLOSED, None, answers=len(answers))
        if quotes:
            _start_ranking(rfq, quotes, answers)
    return "closed"


def _answer_quote(rfq: Rfq, answer: Answer):  # type: ignore[no-untyped-def]
    data = terms_from_json(answer.terms)
    data.update(vendor=answer.vendor, data_centre=answer.vendor.data_centres.first(),
                label=labels.RFQ_BID.compose(rfq=rfq.pk).en,  # the vendor is shown beside it
                is_current=True)  # fmt: skip
    quote = quote_create(team=rfq.team, user=answer.submitted_by, data=data)
    run = answer.evidence_run
    if run is not None:
        TestRun.objects.filter(pk=run.pk).update(quote=quote)
        run.quote = quote
        # The quote's figure from its evidence by the one domain rule (per-server, with range).
        if run.status == JobStatus.DONE:
            quote_measured_update(quote=quote, run=run)
    answer.quote = quote
    answer.save(update_fields=["quote"])
    return quote


def _start_ranking(rfq: Rfq, quotes: list, answers: list[Answer]) -> None:  # type: ignore[type-arg]
    # The RFQ's mandatory requirements enter the run's one decision: a knocked-out bid is
    # never its recommendation, a bid the RFQ ranks last comes after every conforming one.
    standings = {}
    for answer, quote in zip(answers, quotes, strict=True):
        standing = terms_standing(rfq, answer.terms)
        if standing.mandatory_gaps:
            standings[quote.pk] = (standing.status, rules.knocked_out_reason(standing))
    run = ranking_start(
        team=rfq.team,
        user=rfq.created_by,
        workload=rfq.workload,
        quotes=quotes,
        label=labels.RFQ_NAMED.compose(rfq=rfq.pk, name=rfq.title).en,  # shown translated
        standings=standings,
    )
    Rfq.objects.filter(pk=rfq.pk).update(ranking_run=run)
    rfq.ranking_run = run
    audit(rfq, AuditVerb.RANKING_STARTED, None, ranking_run=run.pk)


def rfqs_due_ids(*, now=None) -> list[int]:
    now = now or timezone.now()
    return list(
        Rfq.objects.filter(state=RfqState.PUBLISHED, deadline__lte=now).values_list("pk", flat=True)
    )
