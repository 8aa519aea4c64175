"""The benchmarks app's job kind: parsing one uploaded log (core.jobs runs it)."""

from __future__ import annotations

from core.jobs import JobKind, Progress, register

from .models import BenchmarkLog


def _parse(log_id: int, _progress: Progress) -> str:
    from .services import benchmark_parse

    # The service writes the log's final status itself (done, or failed with the parser's
    # message): a log that cannot be read is a finished job, not a crash.
    return benchmark_parse(log_id=log_id)


def _task():  # type: ignore[no-untyped-def]
    from .tasks import parse_benchmark_log

    return parse_benchmark_log


PARSE = register(
    JobKind(
        name="parse",
        model=BenchmarkLog,
        work=_parse,
        task=_task,
        requeueable=lambda: BenchmarkLog.objects.filter(is_archive=False),
        finished=lambda row: row.is_archive or row.is_finished,
        keep_status=frozenset({"done", "failed", "skipped"}),
    )
)
