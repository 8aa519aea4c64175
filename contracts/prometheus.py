"""The Prometheus pull job: ``/api/v1/query_range`` for each of the contract's queries, paged by
time so that no page asks for more than ``MAX_POINTS`` points per series (Prometheus refuses a
range query above 11,000 points per series: "exceeded maximum resolution of 11,000 points per
timeseries", promql/engine limits in prometheus/web/api/v1/api.go), all pages kept raw as one
evidence file and read by the same reader as an uploaded export.

HTTP is the standard library's (``urllib``): no client library is a dependency of the portal and
the pull needs one GET per page.
"""

from __future__ import annotations

import math
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.utils import timezone

from core.jobs import Progress
from core.models import JobStatus
from domain.delivery import series as ds
from domain.delivery import windows as dw
from domain.messages import Message

from .choices import UploadKind, UploadOrigin
from .models import DeliveryUpload, PrometheusSource

MAX_POINTS = 11_000
TIMEOUT_S = 60
WINDOW_S = int(dw.DEFAULT_WINDOW_S)


class PullError(Exception):
    def __init__(self, message: Message) -> None:
        self.message = message
        super().__init__(message.en)


def pages(
    start: float, end: float, step: int, max_points: int = MAX_POINTS
) -> list[tuple[float, float]]:
    """[start, end] cut into ranges of at most ``max_points`` samples each (both ends count:
    a range of n steps holds n + 1 points), the next page starting one step after the last."""
    if end < start:
        return []
    span = (max_points - 1) * step
    out: list[tuple[float, float]] = []
    t = start
    while t <= end:
        stop = min(t + span, end)
        out.append((t, stop))
        t = stop + step
    return out


def _get(url: str) -> bytes:
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise PullError(Message("prometheus_scheme", "The Prometheus URL must start with "
                                "http:// or https://.", "Prometheus 地址须以 http:// 或 "
                                "https:// 开头。"))  # fmt: skip
    request = urllib.request.Request(url, headers={"Accept": "application/json"})  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310
            return answer.read()
    except urllib.error.HTTPError as exc:
        body = exc.read()
        if body.lstrip().startswith(b"{"):
            return body  # Prometheus's error answer: the reader says what it means
        raise PullError(Message(
            "prometheus_http", f"Prometheus answered HTTP {exc.code} ({exc.reason}).",
            f"Prometheus 返回 HTTP {exc.code}（{exc.reason}）。")) from None  # fmt: skip
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise PullError(Message(
            "prometheus_unreachable", f"Prometheus could not be reached: {reason}.",
            f"无法连接 Prometheus：{reason}。")) from None  # fmt: skip


def range_url(base: str, query: str, start: float, end: float, step: int) -> str:
    params = urllib.parse.urlencode({"query": query, "start": f"{start:.3f}", "end": f"{end:.3f}",
                                     "step": f"{step}s"})  # fmt: skip
    return base.rstrip("/") + "/api/v1/query_range?" + params


def _range(source: PrometheusSource, now: datetime) -> tuple[float, float]:
    """From where the last pull stopped (or the term's start) to the last whole window before
    ``now`` and the term's end; one step earlier, so the first window's counters have a base."""
    from .evaluation import contract_terms

    terms = contract_terms(source.contract)
    start = (source.pulled_until or terms.term_start).timestamp()
    stop = min(now, terms.term_end).timestamp()
    stop = math.floor(stop / WINDOW_S) * WINDOW_S
    return start - source.step_s, stop


def prometheus_pull(*, source_id: int, progress: Progress, now: datetime | None = None) -> str:
    """Fetch the new range, keep it raw, read it; nothing is stored when a page fails."""
    from .evidence import store_windows

    source = PrometheusSource.objects.select_related("contract").get(pk=source_id)
    contract = source.contract
    now = now or timezone.now()
    start, stop = _range(source, now)
    if stop - start <= source.step_s:
        return "done"
    hosts = list(contract.servers.values_list("hostname", flat=True))
    limit = int(getattr(settings, "CONTRACTS_PROMETHEUS_MAX_POINTS", MAX_POINTS))
    all_pages = [(name, q, a, b) for name, q in sorted(source.queries.items())
                 for a, b in pages(start, stop, source.step_s, limit)]  # fmt: skip
    with tempfile.TemporaryFile() as raw:
        try:
            for i, (_name, query, a, b) in enumerate(all_pages):
                raw.write(_get(range_url(source.url, query, a, b, source.step_s)))
                raw.write(b"\n")
                progress(int(70 * (i + 1) / len(all_pages)))
            raw.seek(0)
            ingest = ds.parse_prometheus_range(raw, hosts=hosts, now=now)
        except (PullError, ds.IngestError) as exc:
            messages = [exc.message] if isinstance(exc, PullError) else list(exc.messages)
            _failed(source, messages)
            return "failed"
        not_before = datetime.fromtimestamp(start + source.step_s, tz=UTC)
        not_after = datetime.fromtimestamp(stop, tz=UTC)
        windows = [w for w in dw.aggregate(ingest, committed_hosts=hosts)
                   if w.start >= not_before and w.end <= not_after]  # fmt: skip
        raw.seek(0)
        with transaction.atomic():
            upload = DeliveryUpload(
                contract=contract, kind=UploadKind.PROMETHEUS_JSON, origin=UploadOrigin.PROMETHEUS,
                original_name=f"prometheus-{not_before:%Y%m%dT%H%M}-{stop:.0f}.json",
                size_bytes=_size(raw), sha256=_sha(raw), source_timezone="UTC",
                status=JobStatus.DONE, progress=100, notes=[m.as_dict() for m in ingest.notes],
            )  # fmt: skip
            raw.seek(0)
            upload.file.save(upload.original_name, File(raw), save=False)
            upload.save()
            store_windows(upload, windows, summary={"hosts": ingest.hosts(),
                                                    "pages": len(all_pages)})  # fmt: skip
            PrometheusSource.objects.filter(pk=source.pk).update(
                pulled_until=datetime.fromtimestamp(stop, tz=UTC),
                last_notes=[m.as_dict() for m in ingest.notes],
            )  # fmt: skip
    return "done"


def _size(f) -> int:  # type: ignore[no-untyped-def]
    f.seek(0, 2)
    size = f.tell()
    f.seek(0)
    return size


def _sha(f) -> str:  # type: ignore[no-untyped-def]
    import hashlib

    digest = hashlib.sha256()
    f.seek(0)
    for chunk in iter(lambda: f.read(1 << 20), b""):
        digest.update(chunk)
    f.seek(0)
    return digest.hexdigest()


def _failed(source: PrometheusSource, messages: list[Message]) -> None:
    PrometheusSource.objects.filter(pk=source.pk).update(last_notes=[m.as_dict() for m in messages])
    text = " / ".join(f"{m.en} / {m.zh}" for m in messages[:3])
    source.job_mark(status=JobStatus.FAILED, error=text)


def pull_due_sources(now: datetime | None = None) -> list[PrometheusSource]:
    now = now or timezone.now()
    return list(
        PrometheusSource.objects.filter(enabled=True, contract__status="signed")
        .exclude(status=JobStatus.RUNNING)
        .exclude(pulled_until__gt=now - timedelta(seconds=WINDOW_S))
    )
