"""Shared abstract models: team scoping and background jobs."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class TeamScopedQuerySet(models.QuerySet):
    def for_team(self, team) -> TeamScopedQuerySet:  # type: ignore[no-untyped-def]
        if team is None:
            return self.none()
        return self.filter(team=team)


class TeamScoped(models.Model):
    """A private record: it belongs to exactly one team and is only ever shown to that team."""

    team = models.ForeignKey(
        "accounts.Team", on_delete=models.CASCADE, related_name="+", verbose_name=_("team")
    )

    objects = TeamScopedQuerySet.as_manager()

    class Meta:
        abstract = True


class JobStatus(models.TextChoices):
    PENDING = "pending", _("Pending")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class Job(models.Model):
    """Status and progress of a background task, stored on the row the task works on.

    The UI and API read progress from here, never from Celery internals.
    """

    status = models.CharField(
        _("status"), max_length=16, choices=JobStatus.choices, default=JobStatus.PENDING
    )
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    error = models.TextField(_("error"), blank=True)
    queued_at = models.DateTimeField(_("queued at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    # Stamped by the worker while the job runs (core.jobs.Heartbeat and every progress report);
    # a running job whose heartbeat stopped has lost its worker and is sent again.
    heartbeat_at = models.DateTimeField(_("last heartbeat"), null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_finished(self) -> bool:
        return self.status in (JobStatus.DONE, JobStatus.FAILED)

    def job_mark(self, *, status: str, progress: int | None = None, error: str = "") -> None:
        """Persist a status change immediately (outside any caller transaction's rollback)."""
        now = timezone.now()
        fields: dict[str, object] = {"status": status, "error": error}
        if progress is not None:
            fields["progress"] = max(0, min(100, progress))
        if status == JobStatus.RUNNING:
            fields["started_at"] = now
            fields["heartbeat_at"] = now
        if status in (JobStatus.DONE, JobStatus.FAILED):
            fields["finished_at"] = now
        type(self).objects.filter(pk=self.pk).update(**fields)
        for key, value in fields.items():
            setattr(self, key, value)

    def job_progress(self, progress: int) -> None:
        progress = max(0, min(100, progress))
        now = timezone.now()
        type(self).objects.filter(pk=self.pk).update(progress=progress, heartbeat_at=now)
        self.progress = progress
        self.heartbeat_at = now
