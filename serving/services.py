"""Write side of serving: create and update serving workloads and mixed plans."""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from domain import serving as sv
from domain import traffic_samples as ts
from domain.messages import Message

from .choices import TrafficStatus
from .models import MixedPlan, ServingWorkload, TrafficUpload
from .selectors import domain_workload

# Domain message codes -> the form field they concern.
_FIELDS = {
    "params_b_not_positive": "params_b", "mean_rps_not_positive": "mean_rps",
    "peak_rps_not_positive": "peak_rps", "peak_below_mean": "peak_rps",
    "response_bytes_not_positive": "response_kb", "zero_tokens_out": "tokens_out",
    "tokens_in_negative": "tokens_in", "gpus_per_replica": "gpus_per_replica",
    "tokens_per_s_not_positive": "tokens_per_s_per_replica",
    "latency_target_not_positive": "latency_target_s", "latency_unreachable": "latency_target_s",
    "headroom_range": "bandwidth_headroom", "peak_hours_range": "peak_hours_per_day",
    "precision_unknown": "precision",
    # upper bounds (domain.serving.WORKLOAD_LIMITS)
    "params_b_too_large": "params_b", "mean_rps_too_large": "mean_rps",
    "peak_rps_too_large": "peak_rps", "tokens_in_too_large": "tokens_in",
    "tokens_out_too_large": "tokens_out", "response_bytes_too_large": "response_kb",
    "latency_target_s_too_large": "latency_target_s",
    "gpus_per_replica_too_large": "gpus_per_replica",
    "tokens_per_s_per_replica_too_large": "tokens_per_s_per_replica",
}  # fmt: skip


def message_errors(messages: tuple[Message, ...] | list[Message], lang: str | None) -> dict:  # type: ignore[type-arg]
    errors: dict[str, list[str]] = {}
    for m in messages:
        errors.setdefault(_FIELDS.get(m.code, "__all__"), []).append(m.text(lang))
    return errors


def _check_workload(w: ServingWorkload) -> None:
    from django.utils.translation import get_language

    w.full_clean(exclude=["team"], validate_constraints=False)
    problems = sv.workload_problems(domain_workload(w))
    if problems:
        raise ValidationError(message_errors(problems, get_language()))
    w.full_clean(exclude=["team"])


def serving_workload_create(*, team, data: dict[str, Any]) -> ServingWorkload:  # type: ignore[no-untyped-def]
    w = ServingWorkload(team=team, **data)
    _check_workload(w)
    with transaction.atomic():
        w.save()
    return w


def serving_workload_update(*, workload: ServingWorkload, data: dict[str, Any]) -> ServingWorkload:
    for key, value in data.items():
        setattr(workload, key, value)
    _check_workload(workload)
    with transaction.atomic():
        workload.save()
    return workload


def mixed_plan_create(*, team, data: dict[str, Any]) -> MixedPlan:  # type: ignore[no-untyped-def]
    plan = MixedPlan(team=team, **data)
    plan.full_clean(exclude=["team"])
    with transaction.atomic():
        plan.save()
    return plan


def mixed_plan_update(*, plan: MixedPlan, data: dict[str, Any]) -> MixedPlan:
    for key, value in data.items():
        setattr(plan, key, value)
    plan.full_clean(exclude=["team"])
    with transaction.atomic():
        plan.save()
    return plan


# ---------------------------------------------------------------------------------------------
# Measured traffic samples

# A 31-day month of one-minute samples with timestamps is about 1.3 MB; five-minute, 250 kB.
TRAFFIC_MAX_BYTES = 5 * 1024 * 1024


def _traffic_sha256(upload: File) -> str:
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    return digest.hexdigest()


def _traffic_check_size(size: int) -> None:
    if size > TRAFFIC_MAX_BYTES:
        raise ValidationError(
            {"file": _("The file is %(size)s MB; a month of traffic samples is well under "
                       "%(limit)s MB (8,640 rows are about 250 kB). Upload one month as CSV.")
             % {"size": f"{size / 1e6:.1f}", "limit": f"{TRAFFIC_MAX_BYTES / 1e6:.0f}"}},
            code="too_large",
        )  # fmt: skip
    if size == 0:
        raise ValidationError({"file": _("The file is empty.")}, code="empty")


def _fill_samples(row: TrafficUpload, samples: ts.TrafficSamples) -> None:
    row.status, row.in_use = TrafficStatus.OK, True
    row.samples_mbps = list(samples.samples_mbps)
    row.interval_s, row.sample_count = samples.interval_s, samples.count
    row.missing_samples, row.unit = samples.missing_samples, samples.unit
    tz = timezone.get_current_timezone()
    row.first_at, row.last_at = (
        None if t is None else (t if t.tzinfo else t.replace(tzinfo=tz))
        for t in (samples.first_at, samples.last_at)
    )
    row.peak_mbps, row.p95_mbps = samples.peak_mbps, samples.percentile95_mbps
    row.mean_mbps, row.monthly_gb = samples.mean_mbps, samples.monthly_gb
    row.warnings = [m.as_dict() for m in samples.warnings]


def traffic_upload_create(  # type: ignore[no-untyped-def]
    *, team, user, upload: File, workload: ServingWorkload | None = None,
    plan: MixedPlan | None = None,
) -> TrafficUpload:  # fmt: skip
    """Store an uploaded CSV of traffic samples for a workload or a plan and read it.

    Too large or empty files are refused before anything is stored (ValidationError). Otherwise
    the raw file is kept either way: a readable month becomes the target's samples in use, an
    unreadable one is saved with the parser's message (status `refused`), for the page to show.
    """
    if (workload is None) == (plan is None):
        raise ValueError("give exactly one of workload and plan")
    size = upload.size or 0
    _traffic_check_size(size)
    name = (upload.name or "traffic.csv").replace("\\", "/").rsplit("/", 1)[-1][:255]
    row = TrafficUpload(team=team, workload=workload, plan=plan, original_name=name,
                        size_bytes=size, sha256=_traffic_sha256(upload), uploaded_by=user,
                        status=TrafficStatus.REFUSED)  # fmt: skip
    try:
        samples = ts.parse_bytes(upload.chunks(64 * 1024))
    except ts.TrafficSamplesError as exc:
        row.error, row.bad_rows = exc.message.as_dict(), list(exc.rows[:200])
    else:
        _fill_samples(row, samples)
    with transaction.atomic():
        if row.in_use:
            target = {"workload": workload} if workload is not None else {"plan": plan}
            TrafficUpload.objects.filter(**target, in_use=True).update(in_use=False)
        row.file.save(name, upload, save=False)
        row.save()
    return row


def traffic_samples_stop_using(
    *, workload: ServingWorkload | None = None, plan: MixedPlan | None = None
) -> int:
    """Go back to the modelled traffic profile; the uploads stay stored."""
    target = {"workload": workload} if workload is not None else {"plan": plan}
    return TrafficUpload.objects.filter(**target, in_use=True).update(in_use=False)
