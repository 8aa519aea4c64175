"""Pages of the quotes app: list, create, edit, import, compare; workloads."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from core.paging import page_by_ids
from domain import money as money_rule
from vendors.models import Vendor

from .export import import_template
from .filters import QuoteListFilter, sorts_by_rent, with_monthly_rent
from .forms import ImportForm, QuoteForm, WorkloadForm
from .importing import COLUMNS, quotes_import
from .models import Quote, WorkloadProfile
from .presets import is_preset, preset_data, preset_links
from .selectors import quote_get, quote_list, quote_list_rows, workload_list
from .services import (
    VERSION_FIELDS,
    QuoteConflict,
    quote_create,
    quote_update,
    workload_create,
    workload_update,
)

COMPARE_ROWS = (
    "gpu", "gpus_per_node", "nodes", "price_per_node_month", "currency", "monthly_fees",
    "nic_gbps", "nics_per_node", "fabric", "rack_uplink_gbps", "servers_per_rack", "availability",
    "whole_offer_only", "term_months", "trial_days", "valid_until", "setup_fee", "storage_tb",
    "storage_price_tb_month", "public_bandwidth_mbps", "bandwidth_billing", "bandwidth_price",
    "bandwidth_elastic", "prices_include_vat", "vat_rate", "invoice_type",
)  # fmt: skip


def _quote_or_404(team, pk: int) -> Quote:  # type: ignore[no-untyped-def]
    try:
        return quote_get(team=team, pk=pk)
    except Quote.DoesNotExist as exc:
        raise Http404 from exc


def _apply_errors(form, exc: ValidationError) -> None:  # type: ignore[no-untyped-def]
    for field, msgs in exc.message_dict.items():
        for m in msgs:
            form.add_error(field if field in form.fields else None, m)


def _list_filter(request, team, *, rent: bool = True) -> QuoteListFilter:  # type: ignore[no-untyped-def]
    """The list's FilterSet over the team's quotes, with their monthly rent unless `rent` is
    False (the page, whose rows bring their own, needs it only to sort by it)."""
    qs = quote_list(team=team)
    if rent:
        qs = with_monthly_rent(qs, team.tax_basis)
    return QuoteListFilter(request.GET or None, queryset=qs, team=team)


class QuoteListView(TeamRequiredMixin, View):
    """Filter, sort and page the team's quotes; tick several to compare them side by side."""

    per_page = 25

    def get(self, request):  # type: ignore[no-untyped-def]
        basis = self.team.tax_basis
        filterset = _list_filter(request, self.team, rent=sorts_by_rent(request.GET))
        per_page = filterset.rows_per_page(self.per_page)
        page = page_by_ids(
            filterset.qs, per_page, request.GET.get("page"), rows=quote_list_rows(team=self.team)
        )
        return render(request, "quotes/quote_list.html", {
            "page": page, "tax_basis": basis, "filter": filterset,
            "can_write": self.membership.can_write,
            "filtered": bool(request.GET.dict().keys() - {"page", "per_page"}),
        })  # fmt: skip


class QuoteImportTemplateView(TeamRequiredMixin, View):
    """The import's columns, a header and an example row (CSV or XLSX with a help sheet)."""

    def get(self, request, fmt: str):  # type: ignore[no-untyped-def]
        first = Vendor.objects.for_team(self.team).order_by("name_zh", "pk").first()
        return import_template(fmt, first.name_zh or first.name_en if first else "")


class QuoteEditView(TeamWriteMixin, View):
    """Create or edit a quote. The edit form carries the revision it was filled from; a save
    based on an older revision is refused with 409 and the form shows the current values."""

    def _initial(self, quote: Quote | None) -> dict:  # type: ignore[type-arg]
        if quote is None:
            return {"is_current": True}
        v = quote.current_version
        data = {n: getattr(v, n) for n in VERSION_FIELDS} if v else {}
        data.update(vendor=quote.vendor, data_centre=quote.data_centre, label=quote.label,
                    is_current=quote.is_current, revision=quote.revision)  # fmt: skip
        return data

    def get(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        quote = _quote_or_404(self.team, pk) if pk else None
        form = QuoteForm(initial=self._initial(quote), team=self.team)
        return render(request, "quotes/quote_form.html", {"form": form, "quote": quote})

    def post(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        quote = _quote_or_404(self.team, pk) if pk else None
        form = QuoteForm(data=request.POST, team=self.team)
        if form.is_valid() and quote is not None and form.cleaned_data["revision"] is None:
            form.add_error(
                "revision",
                _("This form does not say which revision of the quote it edits: open the edit "
                  "page again and reapply your changes."),
            )  # fmt: skip
        if form.is_valid():
            try:
                if quote is None:
                    quote = quote_create(team=self.team, user=request.user, data=form.cleaned_data)
                    messages.success(request, _("Quote created (version 1)."))
                else:
                    v = quote_update(
                        quote=quote, user=request.user, data=form.cleaned_data,
                        expected_revision=form.cleaned_data["revision"],
                    )  # fmt: skip
                    messages.success(request, _("Quote saved as version %(n)s.") % {"n": v.number})
                return redirect("quotes:list")
            except QuoteConflict as conflict:
                return self._conflict(request, form, conflict)
            except ValidationError as exc:
                _apply_errors(form, exc)
        return render(request, "quotes/quote_form.html", {"form": form, "quote": quote}, status=400)

    def _conflict(self, request, mine: QuoteForm, conflict: QuoteConflict):  # type: ignore[no-untyped-def]
        """409: the form filled with the current values (and revision), above it what changed
        since the revision the user's form was based on: field, current value, the user's."""
        quote = _quote_or_404(self.team, conflict.quote.pk)
        form = QuoteForm(initial=self._initial(quote), team=self.team)
        rows = []
        for name in conflict.changed_fields:
            if name in form.fields:
                label, current = form.fields[name].label, form.initial.get(name)
                yours = _show(mine.cleaned_data.get(name))
            else:  # measured bandwidth: not on the form
                label, current, yours = Quote._meta.get_field(name).verbose_name, None, "—"
                current = getattr(quote, name)
            rows.append({"label": label, "current": _show(current), "yours": yours})
        last = conflict.changes[-1] if conflict.changes else None
        ctx = {"form": form, "quote": quote, "conflict": {
            "rows": rows, "based_on": conflict.based_on, "current": quote.revision,
            "by": last.changed_by if last else None, "at": last.changed_at if last else None,
        }}  # fmt: skip
        return render(request, "quotes/quote_form.html", ctx, status=409)


def _show(value) -> str:  # type: ignore[no-untyped-def]
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    return "—" if value is None or value == "" else str(value)


class QuoteDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        quote = _quote_or_404(self.team, pk)
        versions = list(quote.versions.select_related("gpu", "created_by").order_by("-number"))
        current = next((v for v in versions if v.pk == quote.current_version_id), None)
        return render(request, "quotes/quote_detail.html", {
            "quote": quote, "versions": versions, "rows": COMPARE_ROWS,
            "can_write": self.membership.can_write, "money": _money_terms(current, self.team),
        })  # fmt: skip


def _money_terms(v, team) -> dict | None:  # type: ignore[no-untyped-def, type-arg]
    """The current version's VAT terms, its monthly bill on the team's tax basis (domain/money.py)
    and the unusual values the analyst confirmed, in the page's language."""
    if v is None:
        return None
    basis = team.tax_basis
    bill = v.bill(basis=basis)
    zh = (get_language() or "").startswith("zh")
    included = {True: _("yes, VAT included (含税)"), False: _("no, VAT excluded (不含税)")}
    return {
        "version": v,
        "included": included.get(v.prices_include_vat, _("not stated")),
        "basis": basis,
        "bill": bill,
        "outliers": [str(o.get("zh" if zh else "en", "")) for o in v.outliers_confirmed or []],
        "assumed": money_rule.TAX_ASSUMED.text(get_language()),
        # the model's label: `{% translate %}` would look up "VAT rate (%%)" and miss it
        "vat_rate_label": type(v)._meta.get_field("vat_rate").verbose_name,
    }


class QuoteImportView(TeamWriteMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        return render(
            request, "quotes/quote_import.html", {"form": ImportForm(), "columns": COLUMNS}
        )

    def post(self, request):  # type: ignore[no-untyped-def]
        form = ImportForm(request.POST, request.FILES)
        report = None
        if form.is_valid():
            upload = form.cleaned_data["file"]
            report = quotes_import(
                team=self.team, user=request.user, name=upload.name, raw=upload.read(),
                valid_rows=form.cleaned_data["import_valid_rows"],
            )  # fmt: skip
            if report.created:
                messages.success(request, _("%(n)s quotes imported.") % {"n": len(report.created)})
            if report.ok:
                return redirect("quotes:list")
        ctx = {"form": form, "report": report, "columns": COLUMNS}
        return render(
            request, "quotes/quote_import.html", ctx, status=400 if report is None else 200
        )


class WorkloadListView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "quotes/workload_list.html", {
            "workloads": workload_list(team=self.team), "can_write": self.membership.can_write,
        })  # fmt: skip


class WorkloadCreateView(TeamWriteMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        key = request.GET.get("preset")
        initial = (
            preset_data(key)
            if is_preset(key)
            else {"flops_per_token_factor": 6.0, "grad_bytes": 2.0, "overlap": 0.5}
        )
        return render(request, "quotes/workload_form.html", {
            "form": WorkloadForm(initial=initial), "presets": preset_links(),
        })  # fmt: skip

    def post(self, request):  # type: ignore[no-untyped-def]
        form = WorkloadForm(request.POST)
        if form.is_valid():
            try:
                workload_create(team=self.team, data=form.workload_data())
                messages.success(request, _("Workload saved."))
                return redirect("quotes:workloads")
            except ValidationError as exc:
                _apply_errors(form, exc)
        ctx = {"form": form, "presets": preset_links()}
        return render(request, "quotes/workload_form.html", ctx, status=400)


class WorkloadEditView(TeamWriteMixin, View):
    """Edit a workload (its architecture and layout too). Rankings already run keep the inputs
    they were computed with: each run holds its own snapshot."""

    def _workload(self, pk: int) -> WorkloadProfile:
        try:
            return WorkloadProfile.objects.get(team=self.team, pk=pk)
        except WorkloadProfile.DoesNotExist:
            raise Http404 from None

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        workload = self._workload(pk)
        key = request.GET.get("preset")
        initial = preset_data(key) if is_preset(key) else None
        return render(request, "quotes/workload_form.html", {
            "form": WorkloadForm(instance=workload, initial=initial), "presets": preset_links(),
            "workload": workload,
        })  # fmt: skip

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        workload = self._workload(pk)
        form = WorkloadForm(request.POST, instance=workload)
        if form.is_valid():
            try:
                workload_update(workload=workload, data=form.workload_data())
                messages.success(request, _("Workload saved."))
                return redirect("quotes:workloads")
            except ValidationError as exc:
                _apply_errors(form, exc)
        ctx = {"form": form, "presets": preset_links(), "workload": workload}
        return render(request, "quotes/workload_form.html", ctx, status=400)


__all__ = ["WorkloadProfile"]
