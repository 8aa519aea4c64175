"""Demo ranking: the seed workload over the demo quotes, computed at once so results show."""

from __future__ import annotations

from quotes.models import WorkloadProfile

from .models import RankingRun
from .tasks import run_job


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    workload = WorkloadProfile.objects.for_team(team).filter(preset="pretrain-7b").first()
    if workload is None:
        return
    # Created directly (not through ranking_start) so nothing is queued: the loader computes it.
    run = RankingRun.objects.create(
        team=team, created_by=user, workload=workload, all_current=True,
        label=f"{workload.name} (demo)",
    )  # fmt: skip
    run_job(run.pk)
