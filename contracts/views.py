"""Pages of contracts: the list, a contract's page (stored evaluation, evidence, incidents),
forms, and the actions that start jobs. No page runs the engine or builds a file."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from core import cache

from . import figures, selectors, services
from .forms import CONTRACT_FORM_FIELDS, ContractForm, IncidentForm, UploadForm
from .kit import kit_cron_line, kit_script
from .models import ClaimPack, PrometheusSource


def _contract_or_404(team, pk: int):  # type: ignore[no-untyped-def]
    contract = selectors.contract_get(team=team, pk=pk)
    if contract is None:
        raise Http404
    return contract


def _apply_errors(form, exc: ValidationError) -> None:  # type: ignore[no-untyped-def]
    items = exc.message_dict.items() if hasattr(exc, "error_dict") else [(None, exc.messages)]
    for field, msgs in items:
        for m in msgs:
            form.add_error(field if field in form.fields else None, m)


def _stored_view(evaluation, contract):  # type: ignore[no-untyped-def]
    """The stored report as the page shows it and its chart, kept in the cache under the
    evaluation's own identity (a finished evaluation never changes), the schedule's threshold,
    the language and the day (days left to each claim deadline are counted from today)."""
    if evaluation is None:
        return None, ""
    now = timezone.now()
    parts = (evaluation.pk, evaluation.computed_at, evaluation.status, contract.schedule,
             get_language(), timezone.localdate(now))  # fmt: skip
    return cache.get_or_set("contracts.page", 1, parts, lambda: (
        selectors.evaluation_view(evaluation, now=now),
        figures.delivery_chart(evaluation, contract),
    ))  # fmt: skip


class ContractListView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "contracts/list.html", {
            "contracts": selectors.contract_list(team=self.team)[:200],
            "can_write": self.membership.can_write,
        })  # fmt: skip


class ContractDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        return self.page(request, _contract_or_404(self.team, pk))

    def page(self, request, contract, upload_form=None, incident_form=None, status=200):  # type: ignore[no-untyped-def]
        evaluation = selectors.latest_evaluation(contract, with_report=False)
        view, chart = _stored_view(evaluation, contract)
        ctx = {
            "contract": contract, "evaluation": evaluation,
            "pending": selectors.pending_evaluation(contract),
            "view": view,
            "servers": list(contract.servers.all()),
            "maintenance": list(contract.maintenance_windows.all()),
            "incidents": list(selectors.contract_incidents(contract)[:50]),
            "uploads": list(selectors.contract_uploads(contract)[:20]),
            "claim_packs": list(contract.claim_packs.order_by("-pk")[:5]),
            "prometheus": PrometheusSource.objects.filter(contract=contract).first(),
            "upload_form": upload_form or UploadForm(),
            "incident_form": incident_form or IncidentForm(),
            "can_write": self.membership.can_write,
            "cron_line": kit_cron_line(contract, request),
            "chart": chart, "today": timezone.localdate(),
        }  # fmt: skip
        return render(request, "contracts/detail.html", ctx, status=status)


class ContractFormView(TeamWriteMixin, View):
    def _page(self, request, form, contract, status=200):  # type: ignore[no-untyped-def]
        return render(request, "contracts/form.html", {
            "form": form, "object": contract,
            "title": _("Edit contract") if contract else _("New contract"),
        }, status=status)  # fmt: skip

    def get(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk) if pk else None
        return self._page(request, ContractForm(instance=contract, team=self.team), contract)

    def post(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk) if pk else None
        form = ContractForm(request.POST, instance=contract, team=self.team)
        if form.is_valid():
            data = {f: form.cleaned_data[f] for f in CONTRACT_FORM_FIELDS if f != "vendor"}
            data["schedule"] = form.schedule_data()
            try:
                with transaction.atomic():
                    if contract:
                        services.contract_update(contract=contract, data=data)
                    else:
                        contract = services.contract_create(
                            team=self.team, user=request.user,
                            vendor=form.cleaned_data["vendor"], data=data,
                        )  # fmt: skip
                    services.contract_servers_set(contract=contract, servers=form.server_rows())
                return redirect("contracts:detail", pk=contract.pk)
            except ValidationError as exc:
                _apply_errors(form, exc)
        return self._page(request, form, contract, status=400)


class ContractFromQuoteView(TeamWriteMixin, View):
    """ "Mark as signed": a contract pre-filled from the quote, then its edit form."""

    def post(self, request, quote_pk: int):  # type: ignore[no-untyped-def]
        from quotes.models import Quote

        quote = Quote.objects.for_team(self.team).select_related("vendor__sla").filter(
            pk=quote_pk).first()  # fmt: skip
        if quote is None:
            raise Http404
        try:
            contract = services.contract_create_from_quote(team=self.team, user=request.user,
                                                           quote=quote)  # fmt: skip
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect("quotes:detail", pk=quote.pk)
        messages.success(request, _("Contract created from the quote: check its figures and "
                                    "enter the compensation schedule."))  # fmt: skip
        return redirect("contracts:edit", pk=contract.pk)


class ContractFromAwardView(TeamWriteMixin, View):
    def post(self, request, award_pk: int):  # type: ignore[no-untyped-def]
        from sourcing.models import Award

        award = Award.objects.select_related("rfq", "answer__quote__vendor__sla").filter(
            pk=award_pk, rfq__team=self.team).first()  # fmt: skip
        if award is None:
            raise Http404
        try:
            contract = services.contract_create_from_award(team=self.team, user=request.user,
                                                           award=award)  # fmt: skip
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
            return redirect("sourcing:detail", pk=award.rfq_id)
        messages.success(request, _("Contract created from the award: check its figures and "
                                    "enter the compensation schedule."))  # fmt: skip
        return redirect("contracts:edit", pk=contract.pk)


class IncidentCreateView(TeamWriteMixin, View):
    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        form = IncidentForm(request.POST)
        if form.is_valid():
            data = {k: v for k, v in form.cleaned_data.items() if k != "hosts_text"}
            data["hosts"] = form.hosts()
            try:
                services.incident_create(contract=contract, data=data)
                messages.success(request, _("Incident recorded; evaluate again to count it."))
                return redirect("contracts:detail", pk=contract.pk)
            except ValidationError as exc:
                _apply_errors(form, exc)
        return ContractDetailView.page(self, request, contract, incident_form=form, status=400)  # type: ignore[arg-type]


class UploadCreateView(TeamWriteMixin, View):
    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        form = UploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                services.delivery_upload_create(
                    contract=contract, user=request.user, upload=form.cleaned_data["file"],
                    kind=form.cleaned_data["kind"],
                    source_timezone=form.cleaned_data["source_timezone"],
                )  # fmt: skip
                messages.success(request, _("File kept; it is being read (see its status below)."))
                return redirect("contracts:detail", pk=contract.pk)
            except ValidationError as exc:
                _apply_errors(form, exc)
        return ContractDetailView.page(self, request, contract, upload_form=form, status=400)  # type: ignore[arg-type]


class EvaluateView(TeamWriteMixin, View):
    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        if selectors.pending_evaluation(contract) is None:
            services.delivery_evaluate_start(contract=contract, user=request.user)
        messages.success(request, _("Evaluation started; the page shows it when it is done."))
        return redirect("contracts:detail", pk=contract.pk)


class KitView(TeamRequiredMixin, View):
    """The delivery kit of one host as a shell script (it carries the contract's kit token)."""

    def get(self, request, pk: int, host: str):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        servers = list(contract.servers.all())
        if host not in {s.hostname for s in servers}:
            raise Http404
        body = kit_script(contract, host=host, servers=servers, request=request)
        response = HttpResponse(body, content_type="text/x-shellscript; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="delivery-kit-{host}.sh"'
        return response


class ClaimPackCreateView(TeamWriteMixin, View):
    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        try:
            services.claim_pack_start(contract=contract, user=request.user,
                                      language=request.LANGUAGE_CODE)  # fmt: skip
            messages.success(request, _("The claim pack is being built."))
        except ValidationError as exc:
            messages.error(request, " ".join(exc.messages))
        return redirect("contracts:detail", pk=contract.pk)


class ClaimPackFileView(TeamRequiredMixin, View):
    """A claim pack's PDF or ZIP; 202 (with a note) until the job has written it."""

    def get(self, request, pk: int, pack_pk: int, part: str):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        pack = ClaimPack.objects.filter(pk=pack_pk, contract=contract).first()
        if pack is None or part not in ("pdf", "zip"):
            raise Http404
        field = pack.pdf if part == "pdf" else pack.evidence_zip
        if not field:
            text = pack.error if pack.status == "failed" else _("The claim pack is not ready yet.")
            return HttpResponse(text, status=202 if pack.status != "failed" else 409,
                                content_type="text/plain; charset=utf-8")  # fmt: skip
        name = f"claim-{contract.pk}-{pack.pk}.{part}"
        return FileResponse(field.open("rb"), as_attachment=True, filename=name)
