"""The structured compensation schedule at the app layer: the door of
``domain.delivery.terms`` (its one stored shape and every rule) with messages in the reader's
language. Contracts and vendors' SLA records keep the same shape, checked the same way by their
serializers, forms and model ``clean()``, and outlined by the same database check
(``SCHEDULE_KEYS``): this module sits below both, so neither imports the other."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils.translation import get_language

from domain.delivery import terms
from domain.messages import Message

SCHEDULE_KEYS = ("availability_bands", "bandwidth", "latency", "overruns", "cap_pct",
                 "claim_window_days")  # fmt: skip


def _texts(messages: list[Message] | tuple[Message, ...]) -> list[str]:
    lang = get_language()
    return [m.text(lang) for m in messages]


def schedule_errors(data: Any) -> list[str]:
    """The reasons ``data`` is not a valid compensation schedule, in the reader's language.

    An empty object means no compensation was agreed (delivery is still measured).
    """
    if data == {}:
        return []
    if not isinstance(data, dict):
        return _texts([Message("schedule.not_object", "The compensation schedule must be an "
                               "object.", "补偿条款必须是一个对象。")])  # fmt: skip
    try:
        terms.schedule_from_dict(data)
    except terms.ScheduleShapeError as exc:
        return _texts(exc.messages)
    return []


def schedule_normalised(data: Any) -> dict[str, Any]:
    """The one stored shape of a valid schedule (every key present); ``{}`` stays ``{}``."""
    if data == {}:
        return {}
    return terms.schedule_to_dict(terms.schedule_from_dict(data))


def schedule_outline(field: str = "schedule") -> Q:
    """The database check's condition: empty (nothing agreed) or every key of the stored shape
    (the values are checked at the door and stored normalised)."""
    return Q(**{field: {}}) | Q(**{f"{field}__has_keys": list(SCHEDULE_KEYS)})
