"""The rankings app's job kind: computing a ranking run (core.jobs runs it)."""

from __future__ import annotations

from core.jobs import JobKind, Progress, register
from core.queue import fault_delay

from .models import RankingRun


def _rank(run_id: int, progress: Progress) -> str:
    from .services import ranking_compute

    def report(value: int) -> None:
        progress(value)
        fault_delay(f"ranking:{value}")  # test hook, off unless PORTAL_FAULT_DELAY_* are set

    report(5)
    ranking_compute(run_id=run_id, progress=report)
    return "done"


def _task():  # type: ignore[no-untyped-def]
    from .tasks import compute_ranking

    return compute_ranking


RANK = register(JobKind(name="rank", model=RankingRun, work=_rank, task=_task))
