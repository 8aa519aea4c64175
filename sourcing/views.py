"""Team pages of sourcing events: list, create, detail with invitations, answers, evaluation,
award, acceptance and audit trail. Supplier pages are in ``supplier_views``."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views import View

from accounts.choices import Role
from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from domain.rfq_rules import FABRIC_NAMES
from quotes.choices import InvoiceType

from . import deadlines, selectors, services
from . import evaluation as evaluation_module
from .choices import MailStatus
from .demo_mail import latest_invitation_mail, mail_folder
from .forms import (
    DecisionForm,
    ExtensionDecisionForm,
    ExtensionForm,
    InviteForm,
    ProposeForm,
    ResendForm,
    RfqForm,
    UploadForm,
)
from .kit import rfq_kit
from .models import Invitation, Rfq
from .terms import terms_compliance, terms_standing


def error_text(exc: ValidationError) -> str:
    return " ".join(exc.messages)


def add_errors(form, exc: ValidationError) -> None:  # type: ignore[no-untyped-def]
    if hasattr(exc, "error_dict"):
        for field, msgs in exc.message_dict.items():
            for m in msgs:
                form.add_error(field if field in form.fields else None, m)
    else:
        form.add_error(None, error_text(exc))


class TeamRfqMixin:
    def rfq(self, pk: int) -> Rfq:
        try:
            return selectors.rfq_detail(team=self.team, pk=pk)  # type: ignore[attr-defined]
        except Rfq.DoesNotExist as exc:
            raise Http404 from exc


class RfqListView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "sourcing/rfq_list.html", {
            "rfqs": selectors.rfq_list(team=self.team)[:200],
            "can_write": self.membership.can_write,
        })  # fmt: skip


class RfqCreateView(TeamWriteMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        form = RfqForm(team=self.team, initial={"kit_pairs": 4, "kit_duration_s": 60})
        return render(request, "sourcing/rfq_form.html", {"form": form})

    def post(self, request):  # type: ignore[no-untyped-def]
        form = RfqForm(request.POST, team=self.team)
        if form.is_valid():
            try:
                rfq = services.rfq_create(team=self.team, user=request.user,
                                          data=form.service_data())  # fmt: skip
                return redirect("sourcing:detail", pk=rfq.pk)
            except ValidationError as exc:
                add_errors(form, exc)
        return render(request, "sourcing/rfq_form.html", {"form": form}, status=400)


class RfqEditView(TeamWriteMixin, TeamRfqMixin, View):
    """Edit a draft RFQ; a published or past-deadline one is refused with a message."""

    def _editable(self, request, rfq: Rfq):  # type: ignore[no-untyped-def]
        refusal = services.rfq_draft_edit_refusal(rfq)
        if refusal:
            messages.error(request, refusal)
            return False
        return True

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        rfq = self.rfq(pk)
        if not self._editable(request, rfq):
            return redirect("sourcing:detail", pk=rfq.pk)
        form = RfqForm(instance=rfq, team=self.team)
        return render(request, "sourcing/rfq_form.html", {"form": form, "rfq": rfq})

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        rfq = self.rfq(pk)
        if not self._editable(request, rfq):
            return redirect("sourcing:detail", pk=rfq.pk)
        form = RfqForm(request.POST, instance=rfq, team=self.team)
        if form.is_valid():
            try:
                services.rfq_update_draft(rfq=rfq, user=request.user, data=form.service_data())
                messages.success(request, _("The draft is saved."))
                return redirect("sourcing:detail", pk=rfq.pk)
            except ValidationError as exc:
                add_errors(form, exc)
        return render(request, "sourcing/rfq_form.html", {"form": form, "rfq": rfq}, status=400)


class RfqDetailView(TeamRequiredMixin, TeamRfqMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        rfq = self.rfq(pk)
        return render(request, "sourcing/rfq_detail.html", self.context(rfq))

    def context(self, rfq: Rfq, **forms):  # type: ignore[no-untyped-def]
        answers = selectors.rfq_answers(rfq)
        evaluation = selectors.rfq_evaluation(rfq)
        rows = _answer_rows(rfq, answers, evaluation)
        awards = selectors.rfq_awards(rfq)
        extensions = selectors.rfq_extensions(rfq)
        pending = selectors.pending_extension(extensions)
        return {
            "rfq": rfq, "kit": rfq_kit(rfq), "answers": rows,
            "prices_visible": rfq.prices_visible(), "invitations": selectors.rfq_invitations(rfq),
            "demo_mail": latest_invitation_mail(rfq), "mail_folder": mail_folder(),
            "evaluation": evaluation, "awards": awards,
            "blocked": [r for r in rows if r["blocked"]],
            "audit": [(e, selectors.audit_detail(e)) for e in selectors.rfq_audit(rfq)],
            "can_write": self.membership.can_write,
            "invite_form": forms.get("invite_form") or InviteForm(team=self.team),
            "propose_form": forms.get("propose_form")
            or ProposeForm(rfq=rfq, answers=answers),
            "decision_form": DecisionForm(), "upload_form": UploadForm(),
            "extensions": extensions, "pending_extension": pending,
            "extension_form": ExtensionForm(),
            "extension_decision_form": ExtensionDecisionForm(
                initial={"extension": pending.pk if pending else None}
            ),
            "is_admin": self.membership.role == Role.ADMIN,
        }  # fmt: skip


def vat_text(terms: dict) -> str:  # type: ignore[type-arg]
    """A bid's VAT terms in the page's language: "excl. VAT · 13% · Special VAT invoice (专票)"."""
    included = terms.get("prices_include_vat")
    parts = [
        pgettext("VAT terms", "VAT not stated") if included is None
        else pgettext("VAT terms", "incl. VAT") if included
        else pgettext("VAT terms", "excl. VAT")
    ]  # fmt: skip
    if terms.get("vat_rate") is not None:
        parts.append(f"{terms['vat_rate']}%")
    if terms.get("invoice_type"):
        parts.append(str(dict(InvoiceType.choices).get(terms["invoice_type"], "")))
    return " · ".join(p for p in parts if p)


def _answer_rows(rfq: Rfq, answers, evaluation) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    """Each answer with its visible terms, VAT terms, month on the team's basis (once prices
    are visible), gaps, and where it stands (the evaluation's status once ranked)."""
    by_answer = {row["answer_id"]: row for row in evaluation["rows"]}
    visible = rfq.prices_visible()
    rows = []
    for a in answers:
        standing = terms_standing(rfq, a.terms)
        ranked = by_answer.get(a.pk)
        status = ranked["status"] if ranked else standing.status
        rows.append({
            "answer": a, "terms": selectors.answer_terms_for_team(rfq, a),
            "compliance": terms_compliance(rfq, a.terms), "vat": vat_text(a.terms),
            "money": evaluation_module.comparable_month(rfq, a) if visible else None,
            "status": status, "reasons": ranked["reasons"] if ranked else [],
            "blocked": status != "conforming",
            "fabric": FABRIC_NAMES.get(a.terms.get("fabric") or "", a.terms.get("fabric") or ""),
        })  # fmt: skip
    return rows


class RfqActionView(TeamWriteMixin, TeamRfqMixin, View):
    """POST /sourcing/<pk>/<action>/: publish, invite, propose; errors come back as messages."""

    def post(self, request, pk: int, op: str):  # type: ignore[no-untyped-def]
        rfq = self.rfq(pk)
        try:
            if op == "publish":
                services.rfq_publish(rfq=rfq, user=request.user)
                messages.success(request, _("The RFQ is published."))
            elif op == "invite":
                form = InviteForm(request.POST, team=self.team)
                if not form.is_valid():
                    raise ValidationError(form.errors.as_text())
                invitation, _token = services.invitation_create(
                    rfq=rfq, user=request.user, base_url=request.build_absolute_uri("/"),
                    **form.cleaned_data,
                )  # fmt: skip
                _report_mail(request, invitation, _("Invitation sent."))
                warning = services.invitation_standing_warning(self.team, invitation.vendor)
                if warning:
                    messages.warning(request, warning)
            elif op == "propose":
                answers = selectors.rfq_answers(rfq)
                form = ProposeForm(request.POST, rfq=rfq, answers=answers)
                if not form.is_valid():
                    raise ValidationError(form.errors.as_text())
                d = dict(form.cleaned_data)
                chosen = d.pop("answer")  # once: not inside the search (a 500 on the 2nd one)
                answer = next(a for a in answers if str(a.pk) == chosen)
                services.award_propose(rfq=rfq, user=request.user, answer=answer, **d)
                messages.success(request, _("Award proposed; waiting for an approver."))
            elif op in EXTRA_OPS:
                done = EXTRA_OPS[op](request, rfq)
                if done:
                    messages.success(request, done)
            else:
                raise Http404
        except ValidationError as exc:
            messages.error(request, error_text(exc))
            return redirect("sourcing:detail", pk=rfq.pk)
        return redirect("sourcing:detail", pk=rfq.pk)


def _resend(request, rfq: Rfq) -> str:  # type: ignore[no-untyped-def]
    form = ResendForm(request.POST)
    if not form.is_valid():
        raise ValidationError(_("Choose an invitation of this RFQ."))
    invitation = Invitation.objects.filter(rfq=rfq, pk=form.cleaned_data["invitation"]).first()
    if invitation is None:
        raise ValidationError(_("Choose an invitation of this RFQ."))
    invitation, _token = services.invitation_resend(
        invitation=invitation, user=request.user, base_url=request.build_absolute_uri("/")
    )
    return _report_mail(request, invitation, _("Invitation sent again with a new link."))


def _report_mail(request, invitation: Invitation, sent: str) -> str:  # type: ignore[no-untyped-def]
    """The mail went out after commit (already, outside a test's captured transaction): say
    so, or warn that it failed and can be sent again."""
    invitation.refresh_from_db(fields=["mail_status", "mail_error"])
    if invitation.mail_status == MailStatus.FAILED:
        text = _("The invitation is saved but its e-mail failed (%(error)s); use “Send again”.")
        messages.warning(request, text % {"error": invitation.mail_error})
        return ""
    messages.success(request, sent)
    return ""


def _extend(request, rfq: Rfq) -> str:  # type: ignore[no-untyped-def]
    form = ExtensionForm(request.POST)
    if not form.is_valid():
        raise ValidationError(form.errors.as_text())
    deadlines.deadline_extension_propose(rfq=rfq, user=request.user, **form.cleaned_data)
    return _("Extension proposed; another admin must approve it.")


def _decide_extension(request, rfq: Rfq) -> str:  # type: ignore[no-untyped-def]
    form = ExtensionDecisionForm(request.POST)
    if not form.is_valid():
        raise ValidationError(form.errors.as_text())
    extension = rfq.extensions.filter(pk=form.cleaned_data["extension"]).first()
    if extension is None:
        raise ValidationError(_("Choose an extension of this RFQ."))
    approve = form.cleaned_data["decision"] == "approve"
    deadlines.deadline_extension_decide(extension=extension, user=request.user, approve=approve,
                                        comment=form.cleaned_data["comment"])  # fmt: skip
    if approve:
        return _("Deadline extended; the invited suppliers are being told.")
    return _("Extension rejected.")


EXTRA_OPS = {"resend": _resend, "extend": _extend, "extension-decide": _decide_extension}


class AwardActionView(TeamWriteMixin, View):
    """POST /sourcing/awards/<pk>/<decide|acceptance|check>/."""

    def post(self, request, pk: int, op: str):  # type: ignore[no-untyped-def]
        award = selectors.awards_for_team(team=self.team).filter(pk=pk).first()
        if award is None:
            raise Http404
        try:
            if op == "decide":
                form = DecisionForm(request.POST)
                form.is_valid()
                services.award_decide(award=award, user=request.user,
                                      approve=form.cleaned_data.get("decision") == "approve",
                                      comment=form.cleaned_data.get("comment", ""),
                                      confirm_override=bool(
                                          form.cleaned_data.get("confirm_override")
                                      ))  # fmt: skip
            elif op == "acceptance":
                form = UploadForm(request.POST, request.FILES)
                if not form.is_valid():
                    raise ValidationError(form.errors.as_text())
                services.award_acceptance_upload(award=award, user=request.user,
                                                 upload=form.cleaned_data["file"])  # fmt: skip
            elif op == "check":  # asked by a person: never "pending" without a word
                services.award_acceptance_check(award_id=award.pk, give_up=True)
            else:
                raise Http404
        except ValidationError as exc:  # a Conflict too: someone decided first
            messages.error(request, error_text(exc))
        return redirect("sourcing:detail", pk=award.rfq_id)
