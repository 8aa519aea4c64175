"""Generated exports of a ranking run (PDF, XLSX, CSV), stored privately with their hash."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _

from core.models import Job, TeamScoped

from .choices import ReportKind


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

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=[k.value for k in ReportKind]), name="report_kind_valid"
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
