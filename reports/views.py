"""Pages of the reports app: a run's exports (request, progress, download) and the dashboard.

Roles: every team member may list and download reports; requesting a new one creates data and
needs a write role (analyst or admin), as starting a ranking does.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.views import View

from accounts.mixins import TeamRequiredMixin
from rankings.models import RankingRun

from .choices import CONTENT_TYPES, ReportKind
from .dashboard import decision_board
from .models import Report
from .selectors import report_list
from .services import report_request


def report_status(report: Report) -> dict:  # type: ignore[type-arg]
    done = report.status == "done" and bool(report.sha256)
    return {
        "id": report.pk, "kind": report.kind, "language": report.language,
        "status": report.status, "progress": report.progress, "error": report.error,
        "finished": report.is_finished, "sha256": report.sha256, "size_bytes": report.size_bytes,
        "download_url": reverse("reports:download", args=[report.pk]) if done else None,
    }  # fmt: skip


def exports_context(*, team, run: RankingRun, can_write: bool) -> dict:  # type: ignore[no-untyped-def,type-arg]
    """What `reports/_exports.html` needs; the rankings page can call this to include it."""
    return {
        "export_run": run,
        "exports": list(report_list(team=team, run=run)[:30]),
        "export_kinds": ReportKind.choices,
        "export_can_write": can_write,
    }


class RankingExportsView(TeamRequiredMixin, View):
    def _run(self, pk: int) -> RankingRun:
        run = RankingRun.objects.for_team(self.team).filter(pk=pk).first()
        if run is None:
            raise Http404
        return run

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = self._run(pk)
        ctx = exports_context(team=self.team, run=run, can_write=self.membership.can_write)
        return render(request, "reports/ranking_exports.html", ctx)

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = self._run(pk)
        if not self.membership.can_write:
            raise PermissionDenied
        try:
            report_request(team=self.team, user=request.user, run=run,
                           kind=request.POST.get("kind", ""), language=get_language())  # fmt: skip
        except ValidationError as exc:
            ctx = exports_context(team=self.team, run=run, can_write=True)
            ctx["export_errors"] = exc.messages
            return render(request, "reports/ranking_exports.html", ctx, status=400)
        return redirect("reports:ranking", pk=run.pk)


class ReportListView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        reports = report_list(team=self.team)[:200]
        return render(request, "reports/report_list.html", {"reports": reports})


class ReportStatusView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        report = Report.objects.for_team(self.team).filter(pk=pk).first()
        if report is None:
            raise Http404
        return JsonResponse(report_status(report))


def report_file_response(report: Report) -> FileResponse:
    """The stored file as an attachment (callers have checked the team)."""
    if not report.sha256 or not report.file or not report.file.storage.exists(report.file.name):
        raise Http404
    response = FileResponse(
        report.file.open("rb"), as_attachment=True, filename=report.filename,
        content_type=CONTENT_TYPES[ReportKind(report.kind)],
    )  # fmt: skip
    response["X-Content-SHA256"] = report.sha256
    response["Cache-Control"] = "private, no-store"
    return response


class ReportDownloadView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        report = Report.objects.for_team(self.team).filter(pk=pk).first()
        if report is None:
            raise Http404
        return report_file_response(report)


class DecisionDashboardView(TeamRequiredMixin, View):
    """The team's decision dashboard: the portal's home page (URL names `dashboard` and
    `reports:dashboard`)."""

    def dispatch(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        # Supplier users have no team: their home is the supplier portal.
        user = request.user
        if user.is_authenticated and hasattr(user, "supplier_account"):
            return redirect("sourcing:supplier-home")
        return super().dispatch(request, *args, **kwargs)

    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "core/dashboard.html", {"board": decision_board(team=self.team)})
