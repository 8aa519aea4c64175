"""Job bodies: read one evidence file into stored windows; evaluate a contract's delivery.

Reading and judging are the domain's (``domain.delivery``: series, windows, engine); this module
opens files, feeds them in, and writes the results in one transaction each.
"""

from __future__ import annotations

import io
import logging
from datetime import UTC, datetime

from django.db import transaction
from django.utils import timezone

from core.jobs import Progress
from core.models import JobStatus
from domain import benchlogs
from domain.delivery import series as ds
from domain.delivery import windows as dw
from domain.messages import Message

from .choices import UploadKind
from .kit import KitEnvelopeError, envelope_summary, read_envelope
from .models import DeliveryUpload, DeliveryWindow

BATCH = 5000
TERM_MARGIN_DAYS = 1  # evidence a day either side of the term is kept (a clock, a zone)

log = logging.getLogger(__name__)

UNREADABLE = Message(
    "evidence_unreadable",
    "The file could not be read: a value in it is out of any sensible range (a date, a time "
    "stamp or a number). Nothing was stored; check the file's time stamps and values and upload "
    "it again.",
    "无法读取该文件：其中某个值（日期、时间戳或数值）超出合理范围。未保存任何数据；"
    "请检查文件中的时间戳和数值后重新上传。",
)


def _fail(row: DeliveryUpload, messages: list[Message] | tuple[Message, ...]) -> str:
    first = messages[0]
    row.error_message = first.as_dict()
    row.notes = [m.as_dict() for m in messages[1:]]
    DeliveryUpload.objects.filter(pk=row.pk).update(
        error_message=row.error_message, notes=row.notes
    )
    text = " / ".join(f"{m.en} / {m.zh}" for m in messages[:3])
    row.job_mark(status=JobStatus.FAILED, error=text)
    return "failed"


def _window_rows(row: DeliveryUpload, windows: list[dw.Window]) -> list[DeliveryWindow]:
    origin = f"upload:{row.pk}"
    return [
        DeliveryWindow(
            contract_id=row.contract_id,
            upload=row,
            origin=origin,
            kind=w.source,
            saturating=w.saturating,
            samples=w.samples,
            host=w.host,
            starts_at=w.start,
            seconds=int(w.duration_s),
            delivered_gbps=w.delivered_gbps,
            up_fraction=w.up_fraction,
            coverage=w.coverage,
            latency_p99_us=w.p99_latency_us,
        )  # fmt: skip
        for w in windows
    ]


def _kit_windows(data: bytes, hosts: list[str]) -> tuple[list[dw.Window], list[Message], dict]:  # type: ignore[type-arg]
    env = read_envelope(data)
    unknown = sorted({h for h in (env.host, env.peer) if h and h not in hosts})
    if unknown:
        names = ", ".join(unknown)
        raise ds.IngestError([Message(
            "unknown_host", f"Not a server of this contract: {names}. Add it to the contract "
            "or fix the kit's host name.", f"不是本合同的服务器：{names}。请将其加入合同或更正"
            "测试套件中的主机名。")])  # fmt: skip
    tests: list[dw.KitTest] = []
    notes: list[Message] = []
    for name, raw in env.sections:
        try:
            result = benchlogs.parse_stream(io.BytesIO(raw), name)
        except benchlogs.BenchLogError as exc:
            notes.append(exc.message)
            continue
        if result.throughput_gbps is None or not env.peer:
            continue
        tests.append(dw.KitTest(host_a=env.host, host_b=env.peer, start=env.started,
                                end=env.finished, gbps=result.throughput_gbps,
                                latency_us=None, tool=result.tool))  # fmt: skip
    if not tests:
        raise ds.IngestError(notes or [Message(
            "kit_no_result", "The kit upload holds no bandwidth result.",
            "测试套件的上传文件中没有带宽结果。")])  # fmt: skip
    return dw.windows_from_tests(tests), notes, envelope_summary(env)


def _read_windows(row: DeliveryUpload, hosts: list[str], now: datetime):  # type: ignore[no-untyped-def]
    first, last = row.contract.term_span(TERM_MARGIN_DAYS)
    with row.file.open("rb") as stream:
        if row.kind == UploadKind.KIT_LOG:
            return _kit_in_term(*_kit_windows(stream.read(), hosts), first=first, last=last)
        if row.kind == UploadKind.PROMETHEUS_JSON:
            ingest = ds.parse_prometheus_range(stream, hosts=hosts, now=now, not_before=first,
                                               not_after=last)  # fmt: skip
        else:
            ingest = ds.parse_series_csv(stream, hosts=hosts, default_tz=row.source_timezone,
                                         now=now, not_before=first, not_after=last)  # fmt: skip
    windows = dw.aggregate(ingest, committed_hosts=hosts)
    return windows, list(ingest.notes), {"hosts": ingest.hosts(), "series": ingest.counts.series,
                                         "samples": ingest.counts.samples}  # fmt: skip


def _kit_in_term(windows, notes, summary, *, first: datetime, last: datetime):  # type: ignore[no-untyped-def]
    """A kit run outside the term (a server's clock, a kit kept after the term) is set aside."""
    inside = [w for w in windows if w.start >= first and w.end <= last]
    if len(inside) < len(windows):
        n = len(windows) - len(inside)
        span = f"{first:%Y-%m-%d %H:%M %z} – {last:%Y-%m-%d %H:%M %z}"
        notes = [*notes, Message(
            "outside_term_set_aside", f"{n} kit result window(s) lie outside the contract's "
            f"term ({span}) and were set aside, not kept.",
            f"有 {n} 个测试套件结果时段不在合同期内（{span}），未计入。")]  # fmt: skip
    return inside, notes, summary


def store_windows(  # type: ignore[no-untyped-def]
    row: DeliveryUpload, windows: list[dw.Window], *, summary: dict, notes=()
) -> None:  # type: ignore[type-arg]
    """Replace the upload's windows with these (call inside a transaction)."""
    with_data = [w for w in windows if w.coverage > 0]
    DeliveryWindow.objects.filter(origin=f"upload:{row.pk}").delete()
    DeliveryWindow.objects.bulk_create(_window_rows(row, windows), batch_size=BATCH)
    DeliveryUpload.objects.filter(pk=row.pk).update(
        notes=[m.as_dict() for m in notes] or row.notes, error_message={},
        window_count=len(windows), summary=summary,
        first_at=min((w.start for w in with_data), default=None),
        last_at=max((w.end for w in with_data), default=None),
    )  # fmt: skip


def delivery_read(*, upload_id: int, progress: Progress, now: datetime | None = None) -> str:
    """Read one kept file into its windows (all of them, or none on a refusal)."""
    row = DeliveryUpload.objects.select_related("contract").get(pk=upload_id)
    hosts = list(row.contract.servers.values_list("hostname", flat=True))
    if not hosts:
        return _fail(row, [Message(
            "no_servers", "The contract names no servers yet: add them, then upload again.",
            "合同尚未列出服务器：请先添加服务器，再重新上传。")])  # fmt: skip
    try:
        windows, notes, summary = _read_windows(row, hosts, now or timezone.now())
    except (ds.IngestError, KitEnvelopeError) as exc:
        messages = list(exc.messages) if isinstance(exc, ds.IngestError) else [exc.message]
        return _fail(row, messages)
    except (ValueError, OverflowError, ArithmeticError, IndexError, KeyError, TypeError):
        # Whatever else the reader trips on is said in both languages, never as the raw
        # exception (it is logged for us).
        log.exception("delivery upload %s could not be read", row.pk)
        return _fail(row, [UNREADABLE])
    with_data = [w for w in windows if w.coverage > 0]
    if not with_data:
        return _fail(row, [Message(
            "no_samples", "The file holds no sample of the contract's servers.",
            "文件中没有本合同服务器的采样数据。"), *notes])  # fmt: skip
    progress(60)
    with transaction.atomic():
        store_windows(row, windows, summary=summary, notes=notes)
    row.job_mark(status=JobStatus.DONE, progress=100)
    return "done"


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def stored_windows(contract_id: int) -> list[dw.Window]:
    """The contract's stored windows as the domain's (the engine's input)."""
    from datetime import timedelta

    out: list[dw.Window] = []
    fields = ("host", "starts_at", "seconds", "delivered_gbps", "up_fraction", "samples",
              "coverage", "latency_p99_us", "saturating", "kind")  # fmt: skip
    for r in (
        DeliveryWindow.objects.filter(contract_id=contract_id)
        .values_list(*fields)
        .iterator(chunk_size=BATCH)
    ):
        host, start, seconds, gbps, up, samples, cov, lat, sat, kind = r
        out.append(dw.Window(host=host, start=_utc(start), end=_utc(start) + timedelta(
            seconds=seconds), delivered_gbps=gbps, up_fraction=up, samples=samples, coverage=cov,
            p99_latency_us=lat, saturating=sat, source=kind))  # fmt: skip
    return out


def delivery_evaluate(*, evaluation_id: int, progress: Progress) -> str:
    from .evaluation import evaluation_compute

    return evaluation_compute(evaluation_id=evaluation_id, progress=progress)
