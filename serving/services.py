"""Write side of serving: create and update serving workloads and mixed plans."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from domain import serving as sv
from domain.messages import Message

from .models import MixedPlan, ServingWorkload
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
