"""Read side of sourcing: what a team member or a supplier may see, and the weighted evaluation."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, Prefetch, QuerySet, Subquery
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _

from benchmarks.models import BenchmarkLog

from . import evaluation
from .choices import ExtensionState, RfqState
from .models import Answer, AuditEvent, Award, DeadlineExtension, Invitation, Rfq, SupplierAccount
from .terms import PRICE_FIELDS

# --- team side ---------------------------------------------------------------------------------


def rfq_list(*, team) -> QuerySet[Rfq]:  # type: ignore[no-untyped-def]
    return (
        Rfq.objects.for_team(team)
        .select_related("workload")
        .annotate(answer_count=Count("answers", distinct=True))
        .order_by("-deadline", "-pk")
    )


def rfq_detail(*, team, pk: int) -> Rfq:  # type: ignore[no-untyped-def]
    return (
        Rfq.objects.for_team(team)
        .select_related("workload", "ranking_run", "created_by", "team")
        .prefetch_related("gpu_models")
        .get(pk=pk)
    )


def rfq_answers(rfq: Rfq) -> list[Answer]:
    return list(rfq.answers.select_related("vendor", "evidence_run", "quote").order_by("pk"))


def answer_terms_for_team(rfq: Rfq, answer: Answer, now=None) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The answer's terms as the team may see them: prices removed while sealed."""
    if rfq.prices_visible(now):
        return dict(answer.terms)
    return {k: v for k, v in answer.terms.items() if k not in PRICE_FIELDS}


def rfq_invitations(rfq: Rfq) -> list[Invitation]:
    return list(rfq.invitations.select_related("vendor").order_by("pk"))


def rfq_awards(rfq: Rfq) -> list[Award]:
    return list(
        rfq.awards.select_related("answer__vendor", "proposed_by", "decided_by").order_by("-pk")
    )


def rfq_extensions(rfq: Rfq) -> list[DeadlineExtension]:
    return list(rfq.extensions.select_related("proposed_by", "decided_by").order_by("-pk"))


def pending_extension(extensions: list[DeadlineExtension]) -> DeadlineExtension | None:
    return next((e for e in extensions if e.state == ExtensionState.PROPOSED), None)


def rfq_audit(rfq: Rfq) -> list[AuditEvent]:
    return list(rfq.audit_events.select_related("actor").order_by("at", "pk"))


AUDIT_DETAIL_LABELS = {
    "title": _("title"), "deadline": _("deadline"), "vendor": _("vendor"), "email": _("e-mail"),
    "file": _("file"), "revision": _("revision"), "answers": _("answers"),
    "ranking_run": _("ranking"), "award": _("award"), "rationale": _("rationale"),
    "comment": _("comment"), "reasons": _("reasons"), "reason": _("reason"),
    "deadline_before": _("deadline before"), "sealed_before": _("sealed before"),
    "sealed_after": _("sealed after"), "extension": _("extension"), "sent": _("sent to"),
    "failed": _("failed for"), "error": _("error"),
    "override_reason": _("reason for overriding the rules"), "overridden": _("rules overridden"),
}  # fmt: skip


def audit_detail(event: AuditEvent) -> list[tuple[str, str]]:
    """An audit event's detail as (translated label, readable value) pairs, for the page."""
    rows = []
    for key, value in (event.detail or {}).items():
        if (
            key in ("deadline", "deadline_before")
            and isinstance(value, str)
            and parse_datetime(value)
        ):
            value = timezone.localtime(parse_datetime(value)).strftime("%Y-%m-%d %H:%M")
        elif isinstance(value, bool):
            value = _("yes") if value else _("no")
        elif key in ("ranking_run", "award", "extension") and value:
            value = f"#{value}"
        elif isinstance(value, list):
            if not value:
                continue
            value = "; ".join(str(v) for v in value)
        rows.append((str(AUDIT_DETAIL_LABELS.get(key, key)), str(value)))
    return rows


def awards_for_team(*, team) -> QuerySet[Award]:  # type: ignore[no-untyped-def]
    return Award.objects.filter(rfq__team=team).select_related("rfq", "answer__vendor")


# --- supplier side ---------------------------------------------------------------------------


def supplier_account(user) -> SupplierAccount | None:  # type: ignore[no-untyped-def]
    if not getattr(user, "is_authenticated", False):
        return None
    return SupplierAccount.objects.select_related("vendor").filter(user=user).first()


def supplier_rfqs(account: SupplierAccount) -> QuerySet[Rfq]:
    """RFQs the supplier's vendor accepted an invitation to, once published; each carries
    ``supplier_invitation_id`` (its kit's challenge tokens are derived from it)."""
    own = Invitation.objects.filter(
        rfq=OuterRef("pk"), vendor_id=account.vendor_id, accepted_at__isnull=False
    ).order_by("pk")
    return (
        Rfq.objects.filter(
            invitations__vendor_id=account.vendor_id,
            invitations__accepted_at__isnull=False,
            state__in=[RfqState.PUBLISHED, RfqState.CLOSED, RfqState.AWARDED],
        )
        .annotate(supplier_invitation_id=Subquery(own.values("pk")[:1]))
        .prefetch_related("gpu_models")
        .distinct()
        .order_by("-deadline", "-pk")
    )


def _visible_logs() -> QuerySet:  # type: ignore[type-arg]
    return BenchmarkLog.objects.filter(is_archive=False).order_by("uploaded_at", "pk")


def _with_logs(answers: QuerySet[Answer]) -> QuerySet[Answer]:
    return answers.select_related("evidence_run").prefetch_related(
        Prefetch("evidence_run__logs", queryset=_visible_logs(), to_attr="visible_logs")
    )


def supplier_answers(account: SupplierAccount) -> QuerySet[Answer]:
    """The supplier's answers with their RFQ's GPU models and evidence logs prefetched, so a
    list costs the same number of queries for 2 answers as for 200."""
    return _with_logs(
        Answer.objects.filter(vendor_id=account.vendor_id, rfq__in=supplier_rfqs(account))
        .select_related("rfq")
        .prefetch_related("rfq__gpu_models")
    )


def supplier_answer(account: SupplierAccount, rfq: Rfq) -> Answer | None:
    """The supplier's answer to ``rfq`` (one the supplier may see), sharing that RFQ instance."""
    answer = _with_logs(
        Answer.objects.filter(vendor_id=account.vendor_id, rfq=rfq, rfq__in=supplier_rfqs(account))
    ).first()
    if answer is not None:
        answer.rfq = rfq
    return answer


def evidence_logs(answer: Answer | None) -> list:  # type: ignore[type-arg]
    """The answer's evidence logs (not zip archives), oldest first; read from the prefetch of
    ``supplier_answers`` when the answer came from there."""
    if answer is None or answer.evidence_run_id is None:
        return []
    prefetched = getattr(answer.evidence_run, "visible_logs", None)
    if prefetched is not None:
        return list(prefetched)
    return list(_visible_logs().filter(test_run_id=answer.evidence_run_id))


# --- evaluation ----------------------------------------------------------------------------
# On the team's rules (mandatory requirements, risk policy, tax basis): sourcing/evaluation.py.

rfq_evaluation = evaluation.rfq_evaluation
