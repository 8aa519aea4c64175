"""Supplier pages: invited RFQs, the own answer (submit, revise, upload logs), invitation links."""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views import View

from domain.evidence import hosts as bid_hosts

from . import selectors, services
from .forms import AcceptInvitationForm, AnswerForm, UploadForm
from .kit import ROLES, rfq_kit, rfq_kit_script
from .permissions import SupplierRequiredMixin
from .terms import terms_compliance, terms_from_json, terms_labelled
from .views import add_errors, error_text


class SupplierHomeView(SupplierRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        rfqs = list(selectors.supplier_rfqs(self.account))
        answered = set(selectors.supplier_answers(self.account).values_list("rfq_id", flat=True))
        return render(request, "sourcing/supplier_list.html", {
            "rfqs": rfqs, "answered": answered, "vendor": self.vendor,
        })  # fmt: skip


class SupplierRfqView(SupplierRequiredMixin, View):
    def _rfq(self, pk: int):  # type: ignore[no-untyped-def]
        rfq = selectors.supplier_rfqs(self.account).filter(pk=pk).first()
        if rfq is None:
            raise Http404
        return rfq

    def _render(self, request, rfq, form=None, status=200):  # type: ignore[no-untyped-def]
        answer = selectors.supplier_answer(self.account, rfq)
        if form is None:
            initial = terms_from_json(answer.terms) if answer else {}
            if answer:
                initial["supplier_notes"] = answer.supplier_notes
                initial["hosts"] = bid_hosts.as_text(bid_hosts.from_stored(answer.hosts))
            form = AnswerForm(initial=initial)
        return render(request, "sourcing/supplier_rfq.html", {
            "rfq": rfq, "kit": rfq_kit(rfq, getattr(rfq, "supplier_invitation_id", None)),
            "kit_roles": ROLES if getattr(rfq, "supplier_invitation_id", None) else (),
            "answer": answer, "form": form,
            "open": rfq.is_open_for_answers(), "upload_form": UploadForm(),
            "logs": selectors.evidence_logs(answer), "vendor": self.vendor,
            "compliance": terms_compliance(rfq, answer.terms) if answer else [],
            "terms_rows": terms_labelled(answer.terms) if answer else [],
        }, status=status)  # fmt: skip

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        return self._render(request, self._rfq(pk))

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        rfq = self._rfq(pk)
        form = AnswerForm(request.POST)
        if form.is_valid():
            try:
                services.answer_submit(
                    rfq=rfq,
                    account=self.account,
                    terms=form.terms(),
                    supplier_notes=form.cleaned_data["supplier_notes"],
                    hosts=form.cleaned_data["hosts"],
                )
                messages.success(request, _("Your answer is saved."))
                return redirect("sourcing:supplier-rfq", pk=rfq.pk)
            except ValidationError as exc:
                add_errors(form, exc)
        return self._render(request, rfq, form=form, status=400)


class SupplierKitScriptView(SupplierRequiredMixin, View):
    """The invited supplier's kit script for one host role (server, client, nccl)."""

    def get(self, request, pk: int, role: str):  # type: ignore[no-untyped-def]
        rfq = selectors.supplier_rfqs(self.account).filter(pk=pk).first()
        invitation = getattr(rfq, "supplier_invitation_id", None) if rfq else None
        if rfq is None or role not in ROLES or not invitation:
            raise Http404
        answer = selectors.supplier_answer(self.account, rfq)
        # The portal's own address for the upload; anything but a plain URL is left out.
        portal = request.build_absolute_uri("/").rstrip("/")
        if not re.fullmatch(r"https?://[A-Za-z0-9.:\[\]_-]{1,200}", portal):
            portal = ""
        script = rfq_kit_script(rfq, invitation, role=role, portal=portal,
                                answer_id=answer.pk if answer else None)  # fmt: skip
        response = HttpResponse(script, content_type="text/x-shellscript; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{role}.sh"'
        return response


class SupplierUploadView(SupplierRequiredMixin, View):
    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        answer = selectors.supplier_answers(self.account).filter(pk=pk).first()
        if answer is None:
            raise Http404
        form = UploadForm(request.POST, request.FILES)
        try:
            if not form.is_valid():
                raise ValidationError(form.errors.as_text())
            services.answer_upload_evidence(answer=answer, account=self.account,
                                            upload=form.cleaned_data["file"])  # fmt: skip
            messages.success(request, _("Log uploaded; it is being parsed."))
        except ValidationError as exc:
            messages.error(request, error_text(exc))
        return redirect("sourcing:supplier-rfq", pk=answer.rfq_id)


class InvitationAcceptView(View):
    """The e-mailed link: create a supplier login (or use the current one) and enter the RFQ."""

    def _invitation(self, token: str):  # type: ignore[no-untyped-def]
        invitation = services.invitation_for_token(token)
        if invitation is None:
            raise Http404
        return invitation

    def get(self, request, token: str):  # type: ignore[no-untyped-def]
        invitation = self._invitation(token)
        return render(request, "sourcing/invite_accept.html", {
            "invitation": invitation, "form": AcceptInvitationForm(),
            "used": invitation.accepted_at is not None,
        })  # fmt: skip

    def post(self, request, token: str):  # type: ignore[no-untyped-def]
        invitation = self._invitation(token)
        form = AcceptInvitationForm(request.POST if not request.user.is_authenticated else None)
        try:
            if request.user.is_authenticated:
                account = services.invitation_accept(token=token, user=request.user)
            elif form.is_valid():
                account = services.invitation_accept(token=token, **form.cleaned_data)
                login(request, account.user, backend="django.contrib.auth.backends.ModelBackend")
            else:
                raise ValidationError(_("Choose a user name and a password."))
        except ValidationError as exc:
            refusal = ""
            if form.is_bound:
                add_errors(form, exc)
            else:  # a logged-in user refused (a team member, another vendor's supplier)
                refusal = error_text(exc)
            return render(request, "sourcing/invite_accept.html", {
                "invitation": invitation, "form": form, "refusal": refusal,
                "used": invitation.accepted_at is not None,
            }, status=400)  # fmt: skip
        return redirect("sourcing:supplier-rfq", pk=invitation.rfq_id)
