"""`manage.py backfill_page_summaries`: write the page summary of logs parsed before it existed.

The pages build a missing summary on the fly (reading the whole result each time), so this is
optional; run it once after the migration that added ``BenchmarkLog.summary`` and
``TestRun.run_notes`` so day-long logs stop costing their full read on every page view.
Idempotent: logs and runs that already have theirs are left alone.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from benchmarks import parsing, selectors
from benchmarks.models import BenchmarkLog, TestRun
from benchmarks.summary import page_summary
from core.models import JobStatus


class Command(BaseCommand):
    help = "Write missing page summaries of parsed logs and the notes of summarised runs."

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        logs = BenchmarkLog.objects.filter(summary__isnull=True, result__isnull=False)
        written = 0
        for pk in logs.values_list("pk", flat=True).iterator():
            result = BenchmarkLog.objects.filter(pk=pk).values_list("result", flat=True).get()
            BenchmarkLog.objects.filter(pk=pk).update(summary=page_summary(result))
            written += 1
        runs = TestRun.objects.filter(run_notes__isnull=True, summarised_at__isnull=False)
        noted = 0
        for run in runs.select_related("data_centre__network").iterator():
            results = run.logs.filter(is_archive=False, status=JobStatus.DONE).values_list(
                "result", flat=True
            )
            summary = parsing.run_summary(
                [r for r in results if r],
                line_rate_gbps=selectors.run_line_rate_gbps(run),
                declared_together=run.started_together == "yes",
            )
            TestRun.objects.filter(pk=run.pk).update(run_notes=summary.run_notes)
            noted += 1
        self.stdout.write(f"{written} log summaries and {noted} run notes written.")
