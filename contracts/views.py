"""Pages of contracts: the list, a contract's page (stored evaluation, evidence, incidents),
forms, and the actions that start jobs. No page runs the engine or builds a file."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache as shared_cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import FileResponse, Http404, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from core import cache
from quotes.models import Quote
from sourcing.models import Award

from . import figures, selectors, services
from .evaluation import inputs_stamp
from .forms import (
    CONTRACT_FORM_FIELDS,
    ContractForm,
    IncidentForm,
    MaintenanceWindowForm,
    PrometheusSourceForm,
    UploadForm,
)
from .kit import kit_cron_line, kit_script
from .models import ClaimPack


def _contract_or_404(team, pk: int):  # type: ignore[no-untyped-def]
    contract = selectors.contract_get(team=team, pk=pk)
    if contract is None:
        raise Http404
    return contract


def _apply_errors(form, exc: ValidationError, rename=None) -> None:  # type: ignore[no-untyped-def]
    items = exc.message_dict.items() if hasattr(exc, "error_dict") else [(None, exc.messages)]
    for field, msgs in items:
        name = (rename or {}).get(field, field)
        for m in msgs:
            form.add_error(name if name in form.fields else None, m)


PAGE_CACHE_VERSION = 2


class _Kept:
    """The page's rendered fragments, each kept (Django's cache, ``core.cache`` keys) under the
    digest of everything it shows plus the language and the time zone, so a change is a new key
    and nothing is invalidated; all are read in one round trip and the missing ones rendered and
    stored in one more."""

    def __init__(self) -> None:
        self.lang, self.tz = get_language(), timezone.get_current_timezone_name()
        self.items: dict[str, tuple[str, Any]] = {}

    def add(self, slot: str, parts: tuple[Any, ...], make) -> None:  # type: ignore[no-untyped-def]
        key = cache.key(f"contracts.page.{slot}", PAGE_CACHE_VERSION, *parts, self.lang, self.tz)
        self.items[slot] = (key, make)

    def resolve(self) -> dict[str, Any]:
        found = shared_cache.get_many([k for k, _make in self.items.values()])
        fresh: dict[str, Any] = {}
        out: dict[str, Any] = {}
        for slot, (key, make) in self.items.items():
            if key not in found:
                fresh[key] = found[key] = make()
            value = found[key]
            out[slot] = mark_safe(value) if isinstance(value, str) else value  # noqa: S308
        if fresh:
            shared_cache.set_many(fresh)
        return out


def _row(contract) -> tuple[Any, ...]:  # type: ignore[no-untyped-def]
    """The contract's stored columns as key parts."""
    fields = contract._meta.concrete_fields
    return tuple(cache.stable(f.value_from_object(contract)) for f in fields)


def _fragments(kept: _Kept, contract, evaluation) -> None:  # type: ignore[no-untyped-def]
    """The terms card and the stored report's summary, chart and tables. Keys: the contract's
    columns, the evaluation's identity (a finished evaluation never changes) and the day
    (days left to each deadline count from today). A hit reads no report, builds no figure and
    runs no template loop."""
    names = (
        contract.vendor.name_zh,
        contract.vendor.name_en,
        contract.quote_label,
        contract.rfq_id,
        contract.rfq_title,
    )  # what the card names (read with the contract)
    row = _row(contract)  # every column: a bulk update leaves ``updated_at`` as it was
    kept.add("terms", (row, names),
             lambda: render_to_string("contracts/_terms.html", {"contract": contract}))  # fmt: skip
    if evaluation is None:
        return

    def make() -> tuple[str, str, bool]:
        view = selectors.evaluation_view(evaluation, now=timezone.now())
        chart = figures.delivery_chart(view.report, contract) if view else ""
        ctx = {"contract": contract, "evaluation": evaluation, "view": view, "chart": chart}
        return (render_to_string("contracts/_report_head.html", ctx),
                render_to_string("contracts/_report_tables.html", ctx), bool(chart))  # fmt: skip

    kept.add("report", (evaluation.pk, evaluation.computed_at, evaluation.status, row,
                        timezone.localdate()), make)  # fmt: skip


class ContractListView(TeamRequiredMixin, View):
    """The team's contracts. The table is kept rendered under the values it shows
    (``selectors.list_state``: one query, no ORM), the reader's role, language and zone."""

    def get(self, request):  # type: ignore[no-untyped-def]
        can_write = self.membership.can_write
        state = selectors.list_state(team=self.team)
        key = cache.key("contracts.list", PAGE_CACHE_VERSION, self.team.pk, state, can_write,
                        get_language(), timezone.get_current_timezone_name())  # fmt: skip
        body = shared_cache.get(key)
        if body is None:
            body = render_to_string("contracts/_list_body.html", {
                "contracts": selectors.contract_list(team=self.team)[:200],
                "can_write": can_write,
            })  # fmt: skip
            if selectors.list_state(team=self.team) == state:  # not changed while rendered
                shared_cache.set(key, body)
        return render(request, "contracts/list.html", {"body": mark_safe(body)})  # noqa: S308


def _fields(kept: _Kept, slot: str, form, parts: tuple[Any, ...] = ()) -> str | None:  # type: ignore[no-untyped-def]
    """A form's fields: an empty form is the same for every reader of a language (kept); a
    submitted one carries the reader's values and errors (rendered now)."""

    def make() -> str:
        return render_to_string("contracts/_fields.html", {"form": form})

    if form.is_bound:
        return mark_safe(make())  # noqa: S308 (our own rendering)
    kept.add(slot, parts, make)
    return None


UPLOAD_SHOWN = selectors.UPLOAD_SHOWN
INCIDENT_SHOWN = selectors.INCIDENT_SHOWN
SOURCE_SHOWN = ("pk", "url", "queries", "step_s", "enabled", "pulled_until", "status", "error")


def _csrf_mark() -> str:
    """What stands for the CSRF token in a kept page body: derived from the secret key, so no
    text a user can enter is it (the token itself is per reader and put in per request)."""
    return "csrf-" + cache.digest("contracts.page.csrf", settings.SECRET_KEY)


def page_body(view, request, contract, upload_form=None, incident_form=None,  # type: ignore[no-untyped-def]
              prometheus_form=None, maintenance_form=None) -> dict[str, Any]:  # fmt: skip
    """The contract page's title, whether it draws a chart, and its body (the CSRF token as
    ``_csrf_mark()``). Each table is read as the values it shows and rendered only when those
    values, the language or the zone changed (``_Kept``); the stored report's parts are kept
    under the evaluation's identity (``_fragments``)."""
    evaluation, pending = selectors.page_evaluations(contract)
    uploads = list(selectors.contract_uploads(contract).values_list(*UPLOAD_SHOWN)[:20])
    incidents = list(selectors.contract_incidents(contract).values_list(*INCIDENT_SHOWN)[:50])
    src = getattr(contract, "prometheus", None)  # read with the contract
    source = [tuple(getattr(src, f) for f in SOURCE_SHOWN)] if src else []
    hosts = list(contract.servers.values_list("hostname", flat=True))
    cron_line = kit_cron_line(contract, request)
    if prometheus_form is None:
        initial = PrometheusSourceForm.initial_for(src)
        prometheus_form = PrometheusSourceForm(prefix="prom", initial=initial)
    kept = _Kept()
    _fragments(kept, contract, evaluation)
    if evaluation is not None:  # the list's stamp is read with the evaluation
        packs = contract.claim_packs.order_by("-pk")
        kept.add("claim_packs", (contract.pk, evaluation.claim_packs_stamp),
                 lambda: render_to_string("contracts/_claim_packs.html", {
                     "contract": contract, "claim_packs": list(packs[:5])}))  # fmt: skip
    kept.add("evidence", (contract.pk, uploads), lambda: render_to_string(
        "contracts/_evidence.html",
        {"uploads": list(selectors.contract_uploads(contract)[:20])}))  # fmt: skip
    kept.add("incidents", (contract.pk, incidents), lambda: render_to_string(
        "contracts/_incidents.html",
        {"incidents": list(selectors.contract_incidents(contract)[:50])}))  # fmt: skip
    kept.add(
        "sources", (contract.pk, source, hosts, contract.kit_token_expires_at,
                    contract.kit_token_valid, cron_line),
        lambda: render_to_string("contracts/_sources.html", {
            "contract": contract, "hosts": hosts, "cron_line": cron_line,
            "prometheus": src}),
    )  # fmt: skip
    live = {
        "upload_fields": _fields(kept, "form.upload", upload_form or UploadForm()),
        "incident_fields": _fields(kept, "form.incident", incident_form or IncidentForm()),
        "prometheus_fields": _fields(kept, "form.prometheus", prometheus_form,
                                     (contract.pk, source)),
        "maintenance_fields": _fields(kept, "form.maintenance",
                                      maintenance_form or MaintenanceWindowForm(prefix="mw")),
    }  # fmt: skip
    html = kept.resolve()
    ctx = {
        "contract": contract, "evaluation": evaluation,
        "pending": pending,
        # evidence, incidents or terms changed after the shown evaluation: said beside it (read
        # only when the page is rendered afresh, which any such change causes)
        "outdated": bool(evaluation is not None and not pending
                         and evaluation.inputs_stamp != inputs_stamp(contract)),
        "fragments": html, "claimable": bool(evaluation and (evaluation.breach_count
                                                             or evaluation.credit_total)),
        "maintenance": list(contract.maintenance_windows.all()),
        **{k: v if v is not None else html[f"form.{k.split('_')[0]}"]
           for k, v in live.items()},
        "incident_open": bool(incident_form is not None and incident_form.errors),
        "prometheus_open": bool(prometheus_form.errors) or not source,
        "maintenance_open": bool(maintenance_form is not None and maintenance_form.errors),
        "can_write": view.membership.can_write,
        "hosts_named": bool(hosts),
        "csrf_token": _csrf_mark(),
    }  # fmt: skip
    chart = bool(evaluation is not None and html["report"][2])
    body = render_to_string("contracts/_detail_body.html", ctx)
    return {"title": contract.title, "chart": chart, "body": body}


def page_response(request, page: dict[str, Any], status: int = 200) -> HttpResponse:  # type: ignore[no-untyped-def]
    """The page around a body from ``page_body``, with this reader's CSRF token."""
    body, mark = page["body"], _csrf_mark()
    ctx: dict[str, Any] = {"title": page["title"], "chart": page["chart"]}
    if mark in body:  # one token for the whole page, the layout's forms too (as rendered live)
        ctx["csrf_token"] = token = get_token(request)
        body = body.replace(mark, token)
    ctx["body"] = mark_safe(body)  # noqa: S308 (our own rendering)
    return render(request, "contracts/detail.html", ctx, status=status)


class ContractDetailView(TeamRequiredMixin, View):
    """The contract's page from stored results only. Read first: everything the page shows,
    as values (``selectors.page_state``: one query, no ORM); the page's body is kept rendered
    under those values, the team, the reader's role, language and zone and the day (the days
    left to each deadline count from today). A hit runs no other query and renders only the
    layout around the body; a miss renders it (``page_body``) and keeps it when the state did
    not change meanwhile. Only the CSRF token is put in per request. No page runs the engine."""

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        state = selectors.page_state(team=self.team, pk=pk)
        if state is None:
            raise Http404
        key = cache.key("contracts.page", PAGE_CACHE_VERSION, self.team.pk, pk, state,
                        selectors.state_kit_token_valid(state),
                        self.membership.can_write, get_language(),
                        timezone.get_current_timezone_name(), timezone.localdate())  # fmt: skip
        page = shared_cache.get(key)
        if page is None:
            page = page_body(self, request, _contract_or_404(self.team, pk))
            if selectors.page_state(team=self.team, pk=pk) == state:
                shared_cache.set(key, page)
        return page_response(request, page)

    def page(self, request, contract, upload_form=None, incident_form=None,  # type: ignore[no-untyped-def]
             prometheus_form=None, maintenance_form=None, status=200):  # fmt: skip
        """A page with a form sent back (the reader's values and errors): rendered, not kept."""
        body = page_body(self, request, contract, upload_form=upload_form,
                         incident_form=incident_form, prometheus_form=prometheus_form,
                         maintenance_form=maintenance_form)  # fmt: skip
        return page_response(request, body, status=status)


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
        if contract.schedule:
            messages.success(request, _("Contract created from the quote, with the vendor's SLA "
                                        "compensation schedule as a start: check its figures and "
                                        "the schedule."))  # fmt: skip
        else:
            messages.success(request, _("Contract created from the quote: check its figures and "
                                        "enter the compensation schedule."))  # fmt: skip
        return redirect("contracts:edit", pk=contract.pk)


class ContractFromAwardView(TeamWriteMixin, View):
    def post(self, request, award_pk: int):  # type: ignore[no-untyped-def]
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
        if contract.schedule:
            messages.success(request, _("Contract created from the award, with the vendor's SLA "
                                        "compensation schedule as a start: check its figures and "
                                        "the schedule."))  # fmt: skip
        else:
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


class KitTokenRenewView(TeamWriteMixin, View):
    """A new kit token (the old one stops working at once); the scripts carry the new one."""

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        services.contract_kit_token_renew(contract=contract)
        messages.success(request, _("Kit token renewed until %(when)s: download the scripts "
                                    "again on every server.") % {
            "when": f"{timezone.localtime(contract.kit_token_expires_at):%Y-%m-%d}"})  # fmt: skip
        return redirect("contracts:detail", pk=contract.pk)


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


class PrometheusSourceView(TeamWriteMixin, View):
    """Set (or change) the contract's Prometheus source from its page."""

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        form = PrometheusSourceForm(request.POST, prefix="prom")
        if form.is_valid():
            d = form.cleaned_data
            try:
                services.prometheus_source_set(contract=contract, url=d["url"],
                                               queries=d["queries_text"], step_s=d["step_s"],
                                               enabled=d["enabled"])  # fmt: skip
                messages.success(request, _("Prometheus source saved; it is pulled every 15 "
                                            "minutes, whole hours only."))  # fmt: skip
                return redirect("contracts:detail", pk=contract.pk)
            except ValidationError as exc:
                _apply_errors(form, exc, {"queries": "queries_text"})
        return ContractDetailView.page(self, request, contract, prometheus_form=form, status=400)  # type: ignore[arg-type]


class MaintenanceCreateView(TeamWriteMixin, View):
    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        form = MaintenanceWindowForm(request.POST, prefix="mw")
        if form.is_valid():
            try:
                services.maintenance_window_create(contract=contract, data=form.cleaned_data)
                messages.success(request, _("Maintenance window added; evaluate again to "
                                            "count it."))  # fmt: skip
                return redirect("contracts:detail", pk=contract.pk)
            except ValidationError as exc:
                _apply_errors(form, exc)
        return ContractDetailView.page(self, request, contract, maintenance_form=form, status=400)  # type: ignore[arg-type]


class MaintenanceDeleteView(TeamWriteMixin, View):
    def post(self, request, pk: int, window_pk: int):  # type: ignore[no-untyped-def]
        contract = _contract_or_404(self.team, pk)
        if not services.maintenance_window_delete(contract=contract, pk=window_pk):
            raise Http404
        messages.success(request, _("Maintenance window removed; evaluate again to count it."))
        return redirect("contracts:detail", pk=contract.pk)
