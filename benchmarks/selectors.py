"""Read-side queries of the benchmarks app: views, API and reports read through these."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import Count, Q, QuerySet

from core.models import JobStatus
from domain.evidence import envelopes

from . import admission
from .evidence import series_name
from .models import AcceptanceThresholds, BenchmarkLog, TestRun
from .parsing import Limits
from .summary import page_summary, table_streams


def test_run_list(*, team) -> QuerySet[TestRun]:  # type: ignore[no-untyped-def]
    return (
        TestRun.objects.for_team(team)
        .select_related("vendor", "data_centre")
        .annotate(
            log_count=Count("logs", filter=Q(logs__is_archive=False)),
            failed_count=Count(
                "logs", filter=Q(logs__is_archive=False, logs__status=JobStatus.FAILED)
            ),
        )
        .order_by("-created_at", "-pk")
    )


def benchmark_log_list(*, team) -> QuerySet[BenchmarkLog]:  # type: ignore[no-untyped-def]
    return BenchmarkLog.objects.for_team(team).select_related(
        "test_run", "test_run__vendor", "uploaded_by"
    )


def run_logs(run: TestRun) -> list[BenchmarkLog]:
    """The run's logs without their stored results (pages read ``page_data``)."""
    return list(
        run.logs.filter(is_archive=False).defer("result", "checks").order_by("original_name", "pk")
    )


def run_envelope(run: TestRun, logs: list[BenchmarkLog]) -> tuple[dict[int, Any], Any]:
    """The run's logs graded against the published envelope of its quote's card: (log id ->
    grade dict, the run's summary or None). Only bandwidth and collective logs can be graded;
    their results are read in one query."""
    if run.quote_id is None:
        return {}, None
    ids = [log.pk for log in logs if log.status == JobStatus.DONE and log.test_kind in GRADED]
    if not ids:
        return {}, None
    graded_logs = list(
        BenchmarkLog.objects.filter(pk__in=ids)
        .only(*admission.RECORD_FIELDS, "status")
        .order_by("pk")
    )
    grades, env = admission.envelope_grades(graded_logs, run.quote)
    by_log = {g.log_id: g.as_dict() for g in grades if g.grade.status != "not_covered"}
    return by_log, envelopes.summary(grades, env)


GRADED = ("rdma_bw", "nccl")


def page_data(logs: list[BenchmarkLog]) -> dict[int, dict[str, Any]]:
    """log id -> its page summary, for the parsed logs (status done) among ``logs``.

    Logs parsed before summaries existed get one built from their result, read in one query."""
    done = [log for log in logs if log.status == JobStatus.DONE]
    found = {log.pk: log.summary for log in done if log.summary is not None}
    older = [log.pk for log in done if log.summary is None]
    if older:
        for pk, result in BenchmarkLog.objects.filter(pk__in=older).values_list("pk", "result"):
            summary = page_summary(result)
            if summary is not None:
                found[pk] = summary
    return found


def run_notes(run: TestRun, logs: list[BenchmarkLog], data: dict[int, dict[str, Any]]) -> list:  # type: ignore[type-arg]
    """The domain's notes on a finished run: stored by the summary, else computed from results."""
    if run.run_notes is not None:
        return list(run.run_notes)
    from .parsing import run_warnings

    done = [log.pk for log in logs if log.pk in data]
    results = BenchmarkLog.objects.filter(pk__in=done).values_list("result", flat=True)
    return run_warnings(
        [r for r in results if r],
        line_rate_gbps=run_line_rate_gbps(run),
        declared_together=run.started_together == "yes",
    )


def run_archives(run: TestRun) -> list[BenchmarkLog]:
    return list(run.logs.filter(is_archive=True).defer("result", "summary").order_by("pk"))


def thresholds_for_team(team) -> AcceptanceThresholds:  # type: ignore[no-untyped-def]
    """The team's thresholds, or unsaved defaults when the team never edited them."""
    return AcceptanceThresholds.objects.filter(team=team).first() or AcceptanceThresholds(team=team)


def limits_for_team(team) -> Limits:  # type: ignore[no-untyped-def]
    t = thresholds_for_team(team)
    return Limits(**{name: getattr(t, name) for name in Limits.__dataclass_fields__})


def _quote_terms(run: TestRun):  # type: ignore[no-untyped-def]
    """The current terms of the quote the run is evidence for, or None."""
    quote = run.quote if run.quote_id else None
    return getattr(quote, "current_version", None) if quote is not None else None


def run_line_rate_gbps(run: TestRun) -> float | None:
    """Per-pair line rate: the run's override, else one NIC port of the quote the run is
    evidence for (the port speed its admission judges the logs against), else one NIC port of
    the data centre, else None.

    One pair of hosts exercises one port, so ``nic_gbps`` (not × ``nics_per_node``) is the limit.
    """
    if run.line_rate_gbps:
        return float(run.line_rate_gbps)
    terms = _quote_terms(run)
    if terms is not None and terms.nic_gbps:
        return float(terms.nic_gbps)
    network = getattr(run.data_centre, "network", None) if run.data_centre_id else None
    if network is not None and network.nic_gbps:
        return float(network.nic_gbps)
    return None


def run_fabric(run: TestRun) -> str | None:
    if run.fabric:
        return run.fabric
    terms = _quote_terms(run)
    if terms is not None and terms.fabric:
        return str(terms.fabric)
    network = getattr(run.data_centre, "network", None) if run.data_centre_id else None
    return network.fabric if network is not None else None


def run_status_payload(run: TestRun) -> dict:  # type: ignore[type-arg]
    logs = list(run.logs.filter(is_archive=False).values("id", "status", "progress"))
    return {
        "id": run.pk,
        "status": run.status,
        "progress": run.progress,
        "finished": run.is_finished,
        "logs": logs,
    }


INTERVALS_PER_PAGE = 200


@dataclass(frozen=True)
class IntervalTable:
    """One page of a parsed log's intervals: stream labels and rows of (number, start s, end s,
    total Gbit/s, per-stream Gbit/s)."""

    page: Page  # type: ignore[type-arg]
    streams: list[str]
    rows: list[tuple[int, float | None, float | None, float | None, list[float | None]]]


def log_interval_page(log: BenchmarkLog, page_number: object) -> IntervalTable | None:
    """One page of a log's interval table, reading only that page from the database.

    With a page summary on PostgreSQL, the slice is cut out of the stored JSON by the database
    (``jsonb_path_query_array``), so a day-long log's page never loads its 86,400 intervals into
    Python; otherwise the whole result is read (``log_interval_table``)."""
    summary = log.summary
    if summary is None or connection.vendor != "postgresql":
        return log_interval_table(log.result, page_number)
    count = int(summary.get("intervals") or 0)
    if not count:
        return None
    page = Paginator(range(count), INTERVALS_PER_PAGE).get_page(page_number)
    rows = page.object_list
    span = f"[{rows.start} to {rows.stop - 1}]"
    streams = [(int(i), str(label)) for i, label in summary.get("table_streams") or []]
    paths = [f"$.interval_gbps{span}", f"$.interval_start_s{span}", f"$.interval_end_s{span}"]
    paths += [f"$.series[{index}].gbps{span}" for index, _label in streams]
    columns = ", ".join("jsonb_path_query_array(result, %s::jsonpath)" for _ in paths)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM {BenchmarkLog._meta.db_table} WHERE id = %s",  # noqa: S608
            [*paths, log.pk],
        )
        fetched = cursor.fetchone()
    values = [json.loads(v) if isinstance(v, str | bytes) else (v or []) for v in fetched]
    gbps, starts, ends, per_stream = values[0], values[1], values[2], values[3:]

    def at(items: list, i: int) -> Any:  # type: ignore[type-arg]
        return items[i] if i < len(items) else None

    table = [
        (n + 1, at(starts, k), at(ends, k), at(gbps, k), [at(s, k) for s in per_stream])
        for k, n in enumerate(rows)
    ]
    labels = [_stream_label(label) for _i, label in streams]
    return IntervalTable(page=page, streams=labels, rows=table)


def log_interval_table(result: dict | None, page_number: object) -> IntervalTable | None:  # type: ignore[type-arg]
    """A page (``INTERVALS_PER_PAGE`` rows) of the log's interval table; None without intervals.

    A day-long log has 86,400 intervals: the page shows one slice, never the whole table."""
    gbps = (result or {}).get("interval_gbps") or []
    if not gbps:
        return None
    assert result is not None
    stored = result.get("series") or []
    series = [stored[index] for index, _label in table_streams(result)]
    starts = result.get("interval_start_s") or []
    ends = result.get("interval_end_s") or []
    page = Paginator(range(len(gbps)), INTERVALS_PER_PAGE).get_page(page_number)

    def at(values: list, i: int) -> float | None:  # type: ignore[type-arg]
        return values[i] if i < len(values) else None

    rows = [
        (i + 1, at(starts, i), at(ends, i), gbps[i], [s["gbps"][i] for s in series])
        for i in page.object_list
    ]
    streams = [_stream_label(s.get("label")) for s in series]
    return IntervalTable(page=page, streams=streams, rows=rows)


def _stream_label(label: object) -> str:
    """The parser's "stream 5" or "forward" in the reader's language (``evidence.series_name``)."""
    return series_name(label)
