"""Vendor pages. Views only bind input, call services and render selectors' output."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from domain.messages import Message

from .concurrency import VendorConflict
from .forms import CHILD_FORMS, NetworkProfileForm, VendorForm
from .models import DataCentre, NetworkProfile, SlaTerms, Vendor
from .selectors import vendor_audit_trail, vendor_filterset, vendor_findings, vendor_prefetch
from .services import vendor_child_delete, vendor_child_save, vendor_save

CHILD_RELATIONS = {
    "licence": "licences",
    "icp": "icp_filings",
    "certification": "certifications",
    "datacentre": "data_centres",
}


def _with_list_data_centres(vendors: list[Vendor]) -> list[Vendor]:
    """Give each vendor of the page `list_data_centres`: its data centres' (name, city,
    ownership, fabric or None) in creation order, from one values query over the page's
    vendors (no DataCentre and NetworkProfile instances: the rows print these four columns)."""
    by_vendor: dict[int, list[tuple]] = {v.pk: [] for v in vendors}  # type: ignore[type-arg]
    if by_vendor:
        dcs = DataCentre.objects.filter(vendor_id__in=list(by_vendor)).order_by("pk")
        for vendor_id, *row in dcs.values_list(
            "vendor_id", "name", "city", "ownership", "network__fabric"
        ):
            by_vendor[vendor_id].append(tuple(row))
    for v in vendors:
        v.list_data_centres = by_vendor[v.pk]  # type: ignore[attr-defined]
    return vendors


# The vendor columns the list's rows print (vendors/templatetags/vendor_rows.py).
LIST_COLUMNS = (
    "pk", "name_zh", "name_en", "is_demo", "findings_critical", "findings_warning",
    "findings_total",
)  # fmt: skip


class VendorListView(TeamRequiredMixin, View):
    """Filter (vendors.filters.VendorFilter, shared with the API and the export), sort by a
    column header and page the team's vendors."""

    per_page = 25

    def get(self, request):  # type: ignore[no-untyped-def]
        filterset = vendor_filterset(team=self.team, data=request.GET)
        rows = filterset.qs.only(*LIST_COLUMNS)
        page = Paginator(rows, self.per_page).get_page(request.GET.get("page"))
        page.object_list = _with_list_data_centres(list(page.object_list))
        return render(
            request,
            "vendors/vendor_list.html",
            {
                "page": page,
                "filter": filterset,
                "can_write": self.membership.can_write,
                "filtered": bool(request.GET.dict().keys() - {"page", "sort"}),
            },
        )


def _team_vendor(team, pk):  # type: ignore[no-untyped-def]
    return get_object_or_404(vendor_prefetch(Vendor.objects.for_team(team)), pk=pk)


class VendorDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        vendor = _team_vendor(self.team, pk)
        findings = vendor_findings(vendor)
        try:
            sla = vendor.sla
        except SlaTerms.DoesNotExist:
            sla = None
        by_subject: dict[str, list] = {}
        for finding in findings:
            by_subject.setdefault(finding.subject, []).append(finding)
        _attach_findings(vendor, by_subject, sla)
        where = _subject_names(vendor)
        shown = [ShownFinding(f.code, str(f.severity), f.message, where.get(f.subject, ""))
                 for f in findings]  # fmt: skip
        return render(
            request,
            "vendors/vendor_detail.html",
            {
                "vendor": vendor,
                "findings": shown,
                "findings_by_subject": by_subject,
                "sla": sla,
                "audit": vendor_audit_trail(vendor),
            },
        )


@dataclass(frozen=True)
class ShownFinding:
    """A finding as the vendor page lists it: with the record it is about named ("GZ-1 data
    centre", a licence number), so the same rule on two data centres reads as two facts."""

    code: str
    severity: str
    message: Message
    where: str


def _subject_names(vendor: Vendor) -> dict[str, str]:
    """Finding subject ref -> the record's name as the reader knows it (prefetched rows)."""
    names: dict[str, str] = {}
    for lic in vendor.licences.all():
        names[f"licence:{lic.pk}"] = _("licence %(number)s") % {"number": lic.number}
    for icp in vendor.icp_filings.all():
        names[f"icp:{icp.pk}"] = _("ICP filing %(number)s") % {"number": icp.number}
    for cert in vendor.certifications.all():
        names[f"certification:{cert.pk}"] = cert.get_kind_display()
    for dc in vendor.data_centres.all():
        names[f"datacentre:{dc.pk}"] = _("data centre %(name)s") % {"name": dc.name or dc.pk}
    return names


def _attach_findings(vendor: Vendor, by_subject: dict[str, list], sla) -> None:  # type: ignore[no-untyped-def]
    """Give each prefetched record its own findings, for the per-row badges."""
    for prefix, relation in (
        ("licence", "licences"),
        ("icp", "icp_filings"),
        ("certification", "certifications"),
        ("datacentre", "data_centres"),
    ):
        for obj in getattr(vendor, relation).all():
            obj.findings = by_subject.get(f"{prefix}:{obj.pk}", [])
    vendor.findings_here = by_subject.get("vendor", [])


def _shown(value) -> str:  # type: ignore[no-untyped-def]
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) or "—"
    return "—" if value is None or value == "" else str(value)


def _apply_errors(form, exc: ValidationError) -> None:  # type: ignore[no-untyped-def]
    errors = exc.message_dict if hasattr(exc, "error_dict") else {None: exc.messages}
    for field, msgs in errors.items():
        for m in msgs:
            form.add_error(field if field in form.fields else None, m)


class VendorEditView(TeamWriteMixin, View):
    template = "vendors/vendor_form.html"

    def _vendor(self, pk):  # type: ignore[no-untyped-def]
        return get_object_or_404(Vendor.objects.for_team(self.team), pk=pk) if pk else None

    def get(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        vendor = self._vendor(pk)
        return render(
            request, self.template, {"form": VendorForm(instance=vendor), "vendor": vendor}
        )

    def post(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        vendor = self._vendor(pk)
        form = VendorForm(request.POST, instance=vendor or Vendor(team=self.team))
        if form.is_valid() and vendor is not None and not form.cleaned_data.get("based_on"):
            form.add_error(None, _(
                "This form does not say which version of the vendor it edits: open the edit "
                "page again and reapply your changes."
            ))  # fmt: skip
        if form.is_valid():
            based_on = form.cleaned_data.get("based_on") if vendor is not None else None
            try:
                saved = vendor_save(
                    vendor=form.save(commit=False), team=self.team, based_on=based_on
                )
            except VendorConflict as conflict:
                return self._conflict(request, form, conflict)
            except ValidationError as exc:  # a rule the form could not see (e.g. a twin saved
                _apply_errors(form, exc)  # meanwhile): said on the form, never a 500
            else:
                messages.success(request, _("Vendor saved."))
                return redirect("vendors:detail", pk=saved.pk)
        return render(request, self.template, {"form": form, "vendor": vendor}, status=400)

    def _conflict(self, request, mine: VendorForm, conflict: VendorConflict):  # type: ignore[no-untyped-def]
        """409: the form filled with the current values (and stamp), above it what changed since
        the version the user's form was based on: field, current value, the user's."""
        current = Vendor.objects.get(pk=conflict.vendor.pk)
        form = VendorForm(instance=current)
        rows = [
            {"label": form.fields[name].label, "current": _shown(getattr(current, name)),
             "yours": _shown(mine.cleaned_data.get(name))}
            for name in conflict.changed if name in form.fields
        ]  # fmt: skip
        ctx = {"form": form, "vendor": current, "conflict": {
            "rows": rows, "by": conflict.by, "at": conflict.at,
        }}  # fmt: skip
        return render(request, self.template, ctx, status=409)


class VendorChildView(TeamWriteMixin, View):
    """Create or edit a licence, ICP filing, certification, data centre or the SLA."""

    template = "vendors/child_form.html"

    def _load(self, vendor_pk: int, kind: str, pk: int | None):  # type: ignore[no-untyped-def]
        if kind not in CHILD_FORMS:
            raise Http404
        vendor = get_object_or_404(Vendor.objects.for_team(self.team), pk=vendor_pk)
        form_class = CHILD_FORMS[kind]
        model = form_class._meta.model
        if kind == "sla":
            instance = SlaTerms.objects.filter(vendor=vendor).first() or SlaTerms(vendor=vendor)
        elif pk:
            instance = get_object_or_404(getattr(vendor, CHILD_RELATIONS[kind]), pk=pk)
        else:
            instance = model(vendor=vendor)
        return vendor, form_class, instance

    def get(self, request, vendor_pk: int, kind: str, pk: int | None = None):  # type: ignore[no-untyped-def]
        vendor, form_class, instance = self._load(vendor_pk, kind, pk)
        form = form_class(instance=instance)
        return render(request, self.template, {"form": form, "vendor": vendor, "kind": kind})

    def post(self, request, vendor_pk: int, kind: str, pk: int | None = None):  # type: ignore[no-untyped-def]
        vendor, form_class, instance = self._load(vendor_pk, kind, pk)
        if request.POST.get("delete") and instance.pk and kind != "sla":
            vendor_child_delete(instance=instance, vendor=vendor)
            messages.success(request, _("Deleted."))
            return redirect("vendors:detail", pk=vendor.pk)
        form = form_class(request.POST, request.FILES, instance=instance)
        if form.is_valid():
            vendor_child_save(instance=form.save(commit=False), vendor=vendor, user=request.user)
            messages.success(request, _("Saved."))
            return redirect("vendors:detail", pk=vendor.pk)
        ctx = {"form": form, "vendor": vendor, "kind": kind}
        return render(request, self.template, ctx, status=400)


class NetworkProfileView(TeamWriteMixin, View):
    template = "vendors/child_form.html"

    def _load(self, dc_pk: int):  # type: ignore[no-untyped-def]
        dc = get_object_or_404(
            DataCentre.objects.select_related("vendor"), pk=dc_pk, vendor__team=self.team
        )
        instance = NetworkProfile.objects.filter(data_centre=dc).first()
        return dc, instance or NetworkProfile(data_centre=dc)

    def get(self, request, dc_pk: int):  # type: ignore[no-untyped-def]
        dc, instance = self._load(dc_pk)
        ctx = {
            "form": NetworkProfileForm(instance=instance),
            "vendor": dc.vendor,
            "kind": "network",
            "data_centre": dc,
        }
        return render(request, self.template, ctx)

    def post(self, request, dc_pk: int):  # type: ignore[no-untyped-def]
        dc, instance = self._load(dc_pk)
        form = NetworkProfileForm(request.POST, request.FILES, instance=instance)
        if form.is_valid():
            vendor_child_save(instance=form.save(commit=False), vendor=dc.vendor, user=request.user)
            messages.success(request, _("Saved."))
            return redirect("vendors:detail", pk=dc.vendor_id)
        ctx = {"form": form, "vendor": dc.vendor, "kind": "network", "data_centre": dc}
        return render(request, self.template, ctx, status=400)


class EvidenceDownloadView(TeamRequiredMixin, View):
    """Evidence files are private: served only to the owning team, never from a public URL."""

    def get(self, request, vendor_pk: int, kind: str, pk: int):  # type: ignore[no-untyped-def]
        vendor = get_object_or_404(Vendor.objects.for_team(self.team), pk=vendor_pk)
        if kind == "network":
            obj = get_object_or_404(NetworkProfile, pk=pk, data_centre__vendor=vendor)
        elif kind == "sla":
            obj = get_object_or_404(SlaTerms, pk=pk, vendor=vendor)
        elif kind in CHILD_RELATIONS:
            obj = get_object_or_404(getattr(vendor, CHILD_RELATIONS[kind]), pk=pk)
        else:
            raise Http404
        if not obj.evidence:
            raise Http404
        return FileResponse(obj.evidence.open("rb"), as_attachment=True)
