"""Generated exports of a ranking run (PDF, XLSX, CSV), stored privately with their hash."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from core.models import Job, TeamScoped

from .choices import ListFormat, ListSource, ReportKind


def list_export_path(instance: ListExport, filename: str) -> str:
    return f"reports/team-{instance.team_id}/lists/{filename}"


def report_upload_path(instance: Report, filename: str) -> str:
    # Under MEDIA_ROOT, which is never served by URL: downloads go through team-checked views.
    return f"reports/team-{instance.team_id}/{filename}"


class Report(TeamScoped, Job):
    """One export of one ranking run in one language; `sha256` and `size_bytes` describe `file`."""

    run = models.ForeignKey(
        "rankings.RankingRun",
        on_delete=models.CASCADE,
        related_name="reports",
        verbose_name=_("ranking run"),
    )
    kind = models.CharField(_("kind"), max_length=8, choices=ReportKind.choices)
    language = models.CharField(_("language"), max_length=10, default="zh-hans")
    file = models.FileField(_("file"), upload_to=report_upload_path, blank=True, max_length=300)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    # What the file was built from (reports.exports.run_stamp): the same run, kind, language and
    # stamp reuse one row and one file; a ranking computed again gets a new stamp, a new file.
    stamp = models.CharField(_("source stamp"), max_length=64, blank=True, default="")

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in ReportKind]), name="report_kind_valid"
            ),
            # one build per file: concurrent requests meet on this row (reports.exports)
            models.UniqueConstraint(
                fields=["team", "run", "kind", "language", "stamp"],
                condition=~Q(stamp=""),
                name="report_one_row_per_stamp",
            ),
        ]
        indexes = [models.Index(fields=["team", "run", "kind", "status"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.run_id} ({self.language})"

    @property
    def filename(self) -> str:
        """What the file is, in its name: ranking, workload, language and date, e.g.
        ``ranking-12-7b-pre-training-en-2026-12-04.pdf``."""
        run = self.run
        workload = run.workload.name if run.workload_id and run.workload else run.label
        slug = slugify(workload or "", allow_unicode=True)[:40].strip("-") or "workload"
        day = timezone.localdate(self.created_at) if self.created_at else timezone.localdate()
        lang = (self.language or "zh-hans").split("-")[0]
        return f"ranking-{self.run_id}-{slug}-{lang}-{day:%Y-%m-%d}.{self.kind}"


class ListExport(TeamScoped, Job):
    """One download of a list page (quotes, vendors) with its filters, order and language, as a
    file built by a job. ``key`` names what it holds (source, format, language, parameters and
    the rows' change stamp): the same request meets the same row and file, a changed list a new
    one."""

    source = models.CharField(_("list"), max_length=16, choices=ListSource.choices)
    fmt = models.CharField(_("format"), max_length=8, choices=ListFormat.choices)
    language = models.CharField(_("language"), max_length=10, default="zh-hans")
    params = models.CharField(_("filters"), max_length=2000, blank=True)
    key = models.CharField(_("key"), max_length=64)
    file = models.FileField(_("file"), upload_to=list_export_path, blank=True, max_length=300)
    filename = models.CharField(_("file name"), max_length=200, blank=True)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"), default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("requested by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("list export")
        verbose_name_plural = _("list exports")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["team", "key"], name="list_export_one_row_per_key"),
            models.CheckConstraint(
                condition=Q(source__in=[k.value for k in ListSource])
                & Q(fmt__in=[k.value for k in ListFormat]),
                name="list_export_kind_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_source_display()} ({self.fmt}, {self.language})"
