"""Pages of serving: workloads and plans, the serving ranking and the month-by-month plan."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from domain.messages import Message

from . import figures
from .choices import TrafficStatus
from .forms import WORKLOAD_FIELDS, MixedPlanForm, ServingWorkloadForm, TrafficUploadForm
from .models import MixedPlan, ServingWorkload
from .selectors import (
    mixed_plan_evaluate,
    plan_list,
    serving_ranking,
    traffic_uploads,
    workload_list,
)
from .services import (
    mixed_plan_create,
    mixed_plan_update,
    serving_workload_create,
    serving_workload_update,
    traffic_samples_stop_using,
    traffic_upload_create,
)


def _get_or_404(model, team, pk: int):  # type: ignore[no-untyped-def]
    obj = model.objects.for_team(team).filter(pk=pk).first()
    if obj is None:
        raise Http404
    return obj


def _apply_errors(form, exc: ValidationError) -> None:  # type: ignore[no-untyped-def]
    for field, msgs in exc.message_dict.items():
        for m in msgs:
            form.add_error(field if field in form.fields else None, m)


class ServingHomeView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "serving/home.html", {
            "workloads": workload_list(team=self.team), "plans": plan_list(team=self.team),
            "can_write": self.membership.can_write,
        })  # fmt: skip


def _ranking_labels() -> dict[str, dict[str, str]]:
    return {
        "cost": {"title": _("Cost per million served tokens"), "compute": _("GPU rent and fees"),
                 "bandwidth": _("public bandwidth"), "axis": _("CNY per million tokens")},
        "bills": {"title": _("Public-bandwidth bill per month by billing model"),
                  "fixed": _("fixed"), "per_gb": _("per GB"), "p95": _("95th percentile"),
                  "axis": _("CNY per month")},
    }  # fmt: skip


def _traffic_context(team, form, **target) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return {"upload_form": form or TrafficUploadForm(),
            "uploads": list(traffic_uploads(team=team, **target)[:5])}  # fmt: skip


class WorkloadDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        workload = _get_or_404(ServingWorkload, self.team, pk)
        return self.page(request, workload)

    def page(self, request, workload, form=None, status=200):  # type: ignore[no-untyped-def]
        view = serving_ranking(team=self.team, workload=workload)
        results = list(view.outcome.results)
        charts = {}
        if results:
            labels = _ranking_labels()
            charts["cost"] = figures.to_div(figures.cost_per_million_figure(
                results, name=view.label, labels=labels["cost"]))  # fmt: skip
            if any(r.bills for r in results):
                charts["bills"] = figures.to_div(figures.bandwidth_bill_figure(
                    results, name=view.label, labels=labels["bills"]))  # fmt: skip
        rows = [{"r": r, "label": view.label(r.offer_id)} for r in results]
        problems = [{"label": view.label(p.offer_id), "messages": p.messages}
                    for p in view.outcome.problems]  # fmt: skip
        return render(request, "serving/workload_detail.html", {
            "workload": workload, "view": view, "rows": rows, "problems": problems,
            "charts": charts, "can_write": self.membership.can_write,
            "traffic_action": "serving:workload_traffic", "target": workload,
            **_traffic_context(self.team, form, workload=workload),
        }, status=status)  # fmt: skip


class WorkloadFormView(TeamWriteMixin, View):
    def _page(self, request, form, workload, status=200):  # type: ignore[no-untyped-def]
        return render(request, "serving/form.html", {
            "form": form, "object": workload,
            "title": _("Edit serving workload") if workload else _("New serving workload"),
        }, status=status)  # fmt: skip

    def get(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        workload = _get_or_404(ServingWorkload, self.team, pk) if pk else None
        return self._page(request, ServingWorkloadForm(instance=workload), workload)

    def post(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        workload = _get_or_404(ServingWorkload, self.team, pk) if pk else None
        form = ServingWorkloadForm(request.POST, instance=workload)
        if form.is_valid():
            data = {f: form.cleaned_data[f] for f in WORKLOAD_FIELDS}
            try:
                if workload:
                    serving_workload_update(workload=workload, data=data)
                else:
                    workload = serving_workload_create(team=self.team, data=data)
                return redirect("serving:workload", pk=workload.pk)
            except ValidationError as exc:
                _apply_errors(form, exc)
        return self._page(request, form, workload, status=400)


def _plan_labels() -> dict[str, str]:
    return {
        "title": _("Month by month: elastic against fixed public bandwidth"),
        "fixed": _("total, fixed bandwidth (bought for the peak)"),
        "elastic": _("total, elastic bandwidth (each month's need)"),
        "need": _("bandwidth needed"), "month": _("month"), "axis": _("CNY per month"),
        "need_axis": _("Mbit/s"),
    }  # fmt: skip


def _plan_or_404(team, pk: int) -> MixedPlan:  # type: ignore[no-untyped-def]
    plan = plan_list(team=team).filter(pk=pk).first()  # quotes, versions and GPUs in one query
    if plan is None:
        raise Http404
    return plan


class PlanDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        return self.page(request, _plan_or_404(self.team, pk))

    def page(self, request, plan, form=None, status=200):  # type: ignore[no-untyped-def]
        view = mixed_plan_evaluate(plan)
        chart = ""
        if view.outcome is not None:
            chart = figures.to_div(figures.month_line_figure(view.outcome, labels=_plan_labels()))
        shares = []
        if view.outcome is not None:
            names = {"training": _("training"), "serving": _("serving"),
                     "bandwidth": _("public bandwidth (elastic)")}  # fmt: skip
            shares = [{"name": names.get(k, k), "cny": view.outcome.totals[k], "share": v}
                      for k, v in view.outcome.shares.items()]  # fmt: skip
        return render(request, "serving/plan_detail.html", {
            "plan": plan, "view": view, "chart": chart, "shares": shares,
            "can_write": self.membership.can_write,
            "traffic_action": "serving:plan_traffic", "target": plan,
            **_traffic_context(self.team, form, plan=plan),
        }, status=status)  # fmt: skip


class PlanFormView(TeamWriteMixin, View):
    def _page(self, request, form, plan, status=200):  # type: ignore[no-untyped-def]
        return render(request, "serving/form.html", {
            "form": form, "object": plan,
            "title": _("Edit mixed plan") if plan else _("New mixed plan"),
        }, status=status)  # fmt: skip

    def get(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        plan = _get_or_404(MixedPlan, self.team, pk) if pk else None
        return self._page(request, MixedPlanForm(instance=plan, team=self.team), plan)

    def post(self, request, pk: int | None = None):  # type: ignore[no-untyped-def]
        plan = _get_or_404(MixedPlan, self.team, pk) if pk else None
        form = MixedPlanForm(request.POST, instance=plan, team=self.team)
        if form.is_valid():
            data = dict(form.cleaned_data)
            try:
                if plan:
                    mixed_plan_update(plan=plan, data=data)
                else:
                    plan = mixed_plan_create(team=self.team, data=data)
                return redirect("serving:plan", pk=plan.pk)
            except ValidationError as exc:
                _apply_errors(form, exc)
        return self._page(request, form, plan, status=400)


class _TrafficUploadView(TeamRequiredMixin, View):
    """POST a CSV of measured samples (`file`), or `stop` to go back to the modelled profile.

    A viewer gets the page back (403) with the reason, not a bare error page."""

    model: type = ServingWorkload
    detail: type = WorkloadDetailView
    target_name = "workload"
    url_name = "serving:workload"

    def _page(self, request, target, form, status):  # type: ignore[no-untyped-def]
        page = self.detail()
        page.team, page.membership = self.team, self.membership
        return page.page(request, target, form=form, status=status)

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        target = self.get_target(pk)
        if not self.membership.can_write:
            messages.error(request, _("Your role (viewer) can read but not change data."))
            return self._page(request, target, None, 403)
        if "stop" in request.POST:
            traffic_samples_stop_using(**{self.target_name: target})
            messages.info(request, _("The modelled traffic profile is used again."))
            return redirect(self.url_name, pk=pk)
        form = TrafficUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                row = traffic_upload_create(team=self.team, user=request.user,
                                            upload=form.cleaned_data["file"],
                                            **{self.target_name: target})  # fmt: skip
            except ValidationError as exc:
                _apply_errors(form, exc)
            else:
                if row.status == TrafficStatus.OK:
                    messages.success(request, _("%(n)s samples read; the bills now use them.")
                                     % {"n": f"{row.sample_count:,}"})  # fmt: skip
                    return redirect(self.url_name, pk=pk)
                form.add_error("file", Message(**row.error).text(get_language()))
        return self._page(request, target, form, 400)

    def get_target(self, pk: int):  # type: ignore[no-untyped-def]
        return _get_or_404(self.model, self.team, pk)


class WorkloadTrafficView(_TrafficUploadView):
    pass


class PlanTrafficView(_TrafficUploadView):
    model = MixedPlan
    detail = PlanDetailView
    target_name = "plan"
    url_name = "serving:plan"

    def get_target(self, pk: int):  # type: ignore[no-untyped-def]
        return _plan_or_404(self.team, pk)
