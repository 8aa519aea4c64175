"""Pages of the reports app: a run's exports (request, progress, download) and the dashboard.

Roles: every team member may list and download reports; requesting a new one creates data and
needs a write role (analyst or admin), as starting a ranking does.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.views import View

from accounts.mixins import TeamRequiredMixin
from core.export import XLSX_TYPE
from core.models import JobStatus
from rankings.models import RankingRun
from rankings.selectors import stale_quotes

from .choices import CONTENT_TYPES, ListFormat, ReportKind
from .dashboard import decision_board
from .lists import list_export_request
from .models import ListExport, Report
from .selectors import RUN_FIELDS_BULK, report_list
from .services import report_current, report_request

#: seconds a client waits before asking again for a file still being built
RETRY_AFTER_S = 2


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
        run = RankingRun.objects.for_team(self.team).defer(*RUN_FIELDS_BULK).filter(pk=pk).first()
        if run is None:
            raise Http404
        return run

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = self._run(pk)
        ctx = exports_context(team=self.team, run=run, can_write=self.membership.can_write)
        ctx["stale"] = stale_quotes(run=run) if run.status == JobStatus.DONE else []
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


def job_json(row: Any) -> dict[str, Any]:
    """A file job's state as the download URL answers it while there is no file yet."""
    return {
        "id": row.pk, "status": row.status, "progress": row.progress, "error": row.error,
        "finished": row.is_finished, "attempts": row.attempts,
        "code": "export_failed" if row.status == JobStatus.FAILED else "export_pending",
    }  # fmt: skip


def wants_json(request) -> bool:  # type: ignore[no-untyped-def]
    accept = request.headers.get("Accept", "")
    return "application/json" in accept and "text/html" not in accept


def waiting_answer(request, row: Any, *, title: str, as_json: bool) -> HttpResponse:  # type: ignore[no-untyped-def]
    """202 while the file is being built (JSON, or a page that shows the progress and reloads
    itself); 409 once the build failed, with its reason (a POST to the same URL starts it again;
    a GET never does, so a page reloading itself cannot restart a build that timed out)."""
    failed = row.status == JobStatus.FAILED
    status = 409 if failed else 202
    if as_json:
        response: HttpResponse = JsonResponse(job_json(row), status=status)
    else:
        ctx = {"job": row, "title": title, "failed": failed, "retry_after": RETRY_AFTER_S}
        response = render(request, "reports/export_wait.html", ctx, status=status)
    if not failed:
        response["Retry-After"] = str(RETRY_AFTER_S)
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


class RankingReportPageView(TeamRequiredMixin, View):
    """``/reports/ranking/<pk>/report.<kind>``: the file of the run's current results in the
    reader's language once built; until then a page with the progress (202) that reloads."""

    def get(self, request, pk: int, kind: str):  # type: ignore[no-untyped-def]
        return self._answer(request, pk, kind, start=False)

    def post(self, request, pk: int, kind: str):  # type: ignore[no-untyped-def]
        if not self.membership.can_write:
            raise PermissionDenied
        return self._answer(request, pk, kind, start=True)

    def _answer(self, request, pk: int, kind: str, *, start: bool):  # type: ignore[no-untyped-def]
        run = RankingRun.objects.for_team(self.team).defer(*RUN_FIELDS_BULK).filter(pk=pk).first()
        if run is None or not run.is_finished:
            raise Http404
        report = report_current(team=self.team, run=run, kind=kind, language=get_language())
        needs_start = report is None or (start and report.status == JobStatus.FAILED)
        if needs_start:
            if not self.membership.can_write:
                raise PermissionDenied if report is not None else Http404
            report = report_request(team=self.team, user=request.user, run=run, kind=kind,
                                    language=get_language())  # fmt: skip
            if start:
                return redirect(request.path)
        elif report.status == JobStatus.DONE and report.sha256:
            return report_file_response(report)
        title = f"{ReportKind(kind).label} · {run}"
        return waiting_answer(request, report, title=title, as_json=wants_json(request))


def list_export_response(export: ListExport) -> FileResponse:
    if not export.sha256 or not export.file or not export.file.storage.exists(export.file.name):
        raise Http404
    content_type = XLSX_TYPE if export.fmt == ListFormat.XLSX else "text/csv; charset=utf-8"
    response = FileResponse(export.file.open("rb"), as_attachment=True,
                            filename=export.filename, content_type=content_type)  # fmt: skip
    response["X-Content-SHA256"] = export.sha256
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, no-store"
    return response


class ListExportView(TeamRequiredMixin, View):
    """``/quotes/export.<fmt>``, ``/vendors/export.<fmt>``: the list as its page shows it (the
    same filters and order, every page), built by a job; 202 with the progress until the file
    exists, then the file. The same parameters on an unchanged list reuse the same file."""

    source = ""

    def get(self, request, fmt: str):  # type: ignore[no-untyped-def]
        return self._answer(request, fmt, restart=False)

    def post(self, request, fmt: str):  # type: ignore[no-untyped-def]
        self._answer(request, fmt, restart=True)
        return redirect(request.get_full_path())

    def _answer(self, request, fmt: str, *, restart: bool):  # type: ignore[no-untyped-def]
        export, _started = list_export_request(
            team=self.team, user=request.user, source=self.source, fmt=fmt, data=request.GET,
            restart=restart,
        )  # fmt: skip
        if export.status == JobStatus.DONE and export.sha256:
            return list_export_response(export)
        title = f"{export.get_source_display()} · {fmt.upper()}"
        return waiting_answer(request, export, title=title, as_json=wants_json(request))
