"""Benchmark pages. Views bind input, call services and render selectors' output."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views import View

from accounts.mixins import TeamRequiredMixin, TeamWriteMixin
from core.queue import unavailable_text, was_unqueued
from core.templatetags.portal import bilingual

from . import evidence, figures, selectors
from .forms import StartedTogetherForm, ThresholdsForm, UploadForm
from .models import BenchmarkLog, TestRun
from .services import (
    benchmark_ingest,
    test_run_create,
    test_run_delete,
    test_run_update,
    thresholds_update,
)
from .summary import page_summary
from .trust import origin_for, run_trust_label


def _run(team, pk: int) -> TestRun:  # type: ignore[no-untyped-def]
    return get_object_or_404(
        TestRun.objects.for_team(team).select_related("vendor", "data_centre__network", "quote"),
        pk=pk,
    )


def _log(team, pk: int) -> BenchmarkLog:  # type: ignore[no-untyped-def]
    return get_object_or_404(
        BenchmarkLog.objects.for_team(team)
        .select_related("test_run__vendor", "uploaded_by")
        .defer("result"),
        pk=pk,
    )


def _log_data(log: BenchmarkLog) -> dict | None:  # type: ignore[type-arg]
    """What the log page shows: the page summary, or (older logs) one built from the result."""
    if log.summary is not None:
        return log.summary
    return page_summary(log.result)


class TestRunListView(TeamRequiredMixin, View):
    def get(self, request):  # type: ignore[no-untyped-def]
        page = Paginator(selectors.test_run_list(team=self.team), 25).get_page(
            request.GET.get("page")
        )
        return render(
            request,
            "benchmarks/run_list.html",
            {"page": page, "can_write": self.membership.can_write},
        )


class UploadView(TeamWriteMixin, View):
    template = "benchmarks/upload.html"

    def get(self, request):  # type: ignore[no-untyped-def]
        initial = {
            "test_run": request.GET.get("run"),
            "vendor": request.GET.get("vendor"),
            "quote": request.GET.get("quote"),
        }
        form = UploadForm(team=self.team, initial=initial)
        return render(request, self.template, {"form": form})

    def post(self, request):  # type: ignore[no-untyped-def]
        form = UploadForm(request.POST, request.FILES, team=self.team)
        if not form.is_valid():
            return render(request, self.template, {"form": form}, status=400)
        data = form.cleaned_data
        try:
            run = data["test_run"] or test_run_create(
                team=self.team,
                user=request.user,
                vendor=data["vendor"],
                data_centre=data["data_centre"],
                name=data["name"],
                line_rate_gbps=data["line_rate_gbps"],
                fabric=data["fabric"],
                quote=data["quote"],
                started_together=data["started_together"],
            )
            if data["quote"] is not None and run.quote_id is None:
                run = test_run_update(run=run, team=self.team, quote=data["quote"])
            stated = data["started_together"]
            if data["test_run"] is not None and stated and run.started_together != stated:
                run = test_run_update(run=run, team=self.team, started_together=stated)
        except ValidationError as exc:
            for msg in exc.messages:
                form.add_error(None, msg)
            return render(request, self.template, {"form": form}, status=400)
        duplicates = self._ingest(request, run, data["files"], data["witnessed"])
        if data["test_run"] is None and not run.logs.exists():
            # Nothing was stored (every file known or refused): leave no empty run behind. Go to
            # the run holding the files only when it is this vendor's; otherwise stay here (the
            # messages say where each file is): never into another vendor's run.
            test_run_delete(run=run)
            held = {dup.test_run_id for dup in duplicates}
            same_vendor = all(dup.test_run.vendor_id == run.vendor_id for dup in duplicates)
            if duplicates and same_vendor and len(held) == 1:
                return redirect("benchmarks:run", pk=duplicates[0].test_run_id)
            messages.error(request, _("No file was stored, so no test run was created."))
            return render(request, self.template, {"form": form}, status=400)
        return redirect("benchmarks:run", pk=run.pk)

    def _ingest(self, request, run: TestRun, files, witnessed: bool) -> list:  # type: ignore[no-untyped-def]
        """Store each file; tell the user about every duplicate and refusal; return duplicates."""
        known = []
        origin = origin_for(request.user, via="upload")
        for upload in files:
            try:
                outcome = benchmark_ingest(
                    team=self.team,
                    user=request.user,
                    test_run=run,
                    upload=upload,
                    origin=origin,
                    witnessed=witnessed,
                )
            except ValidationError as exc:
                messages.error(request, f"{upload.name}: {' '.join(exc.messages)}")
                continue
            if was_unqueued(*outcome.created):  # stored and pending; sent again later
                messages.warning(request, unavailable_text(get_language()))
            known += outcome.duplicates
            for dup in outcome.duplicates:
                messages.warning(request, _duplicate_text(upload.name, dup, run))
            for refusal in outcome.refusals:
                lang = get_language() or "zh-hans"
                messages.error(request, refusal["zh"] if lang.startswith("zh") else refusal["en"])
        return known


def _duplicate_text(name: str, dup: BenchmarkLog, run: TestRun) -> str:
    """Where a byte-identical file already is; it is not added to ``run`` (nor moved)."""
    held = dup.test_run
    values = {
        "name": name,
        "old": dup.original_name,
        "run": held.name,
        "vendor": bilingual(held.vendor, "name"),
        "url": reverse("benchmarks:run", args=[held.pk]),
    }
    if held.vendor_id == run.vendor_id:
        return _("%(name)s was already uploaded (same SHA-256) as %(old)s in “%(run)s”.") % values
    return (
        _(
            "%(name)s was not added: the same file (same SHA-256) is already held as %(old)s in "
            "the run “%(run)s” of %(vendor)s (%(url)s). One test cannot be evidence twice."
        )
        % values
    )


class TestRunDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = _run(self.team, pk)
        logs = selectors.run_logs(run)
        line = selectors.run_line_rate_gbps(run)
        data = selectors.page_data(logs)
        done = [log for log in logs if data.get(log.pk)]
        items = [(log.original_name, data[log.pk]) for log in done]
        charts = figures.run_figures(items, line_rate_gbps=line) if run.is_finished else []
        # Run-level notes of the domain (logs left out, not concurrent, mixed kinds, …).
        notes = selectors.run_notes(run, logs, data) if run.is_finished and items else []
        grades, envelope = selectors.run_envelope(run, logs)
        for log in logs:
            log.envelope = grades.get(log.pk)  # type: ignore[attr-defined]
        return render(
            request,
            "benchmarks/run_detail.html",
            {
                "run": run,
                "logs": logs,
                "archives": selectors.run_archives(run),
                "line_rate": line,
                "charts": charts,
                "evidence": evidence.run_evidence(
                    [(log.pk, log.original_name, data[log.pk]) for log in done], line_rate_gbps=line
                ),
                "notes": notes,
                "run_trust": run_trust_label([log.trust_level for log in done]),
                "envelope": envelope,
                "can_write": self.membership.can_write,
                "together_form": StartedTogetherForm(
                    initial={"started_together": run.started_together}
                ),
            },
        )


class TestRunTogetherView(TeamWriteMixin, View):
    """The uploader's declaration that the run's tests were started at the same time."""

    def post(self, request, pk: int):  # type: ignore[no-untyped-def]
        run = _run(self.team, pk)
        form = StartedTogetherForm(request.POST)
        if not form.is_valid():
            messages.error(request, _("Choose whether the tests were started at the same time."))
        elif form.cleaned_data["started_together"] != run.started_together:
            test_run_update(
                run=run, team=self.team, started_together=form.cleaned_data["started_together"]
            )
        return redirect("benchmarks:run", pk=run.pk)


class TestRunStatusView(TeamRequiredMixin, View):
    """Small JSON the run page polls until parsing is done."""

    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        return JsonResponse(selectors.run_status_payload(_run(self.team, pk)))


class LogDetailView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        log = _log(self.team, pk)
        run = log.test_run
        line = selectors.run_line_rate_gbps(run)
        charts = []
        data = None if log.is_archive else _log_data(log)
        if data:
            charts = figures.run_figures([(log.original_name, data)], line_rate_gbps=line)
        return render(
            request,
            "benchmarks/log_detail.html",
            {
                "log": log,
                "run": run,
                "line_rate": line,
                "charts": charts,
                "data": data,
                "evidence": evidence.log_evidence(
                    data, name=log.original_name, line_rate_gbps=line, log_id=log.pk
                )
                if data
                else None,
                "intervals": selectors.log_interval_page(log, request.GET.get("page"))
                if data
                else None,
                # A bidirectional test's interval column is one direction, not a total.
                "used_direction": evidence.used_direction_name(data),
                "error": log.error_text(get_language()),
            },
        )


class LogDownloadView(TeamRequiredMixin, View):
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        log = _log(self.team, pk)
        return FileResponse(
            log.file.open("rb"),
            as_attachment=True,
            filename=log.original_name,
            content_type="application/octet-stream",
        )


class ThresholdsView(TeamRequiredMixin, View):
    template = "benchmarks/thresholds.html"

    def get(self, request):  # type: ignore[no-untyped-def]
        form = ThresholdsForm(instance=selectors.thresholds_for_team(self.team))
        return render(
            request, self.template, {"form": form, "can_write": self.membership.can_write}
        )

    def post(self, request):  # type: ignore[no-untyped-def]
        if not self.membership.can_write:
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied(_("Your role (viewer) can read but not change data."))
        form = ThresholdsForm(request.POST, instance=selectors.thresholds_for_team(self.team))
        if form.is_valid():
            thresholds_update(team=self.team, **form.cleaned_data)
            messages.success(request, _("Thresholds saved."))
            return redirect("benchmarks:thresholds")
        return render(request, self.template, {"form": form, "can_write": True}, status=400)
