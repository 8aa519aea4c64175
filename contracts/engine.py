"""The app's one door to the delivery engine (``domain.delivery``).

Every rule (schedule validity, windowing, breaches, credits, deadlines) lives in the domain; this
module only turns rows into the domain's inputs and its outputs into stored shapes.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import get_language

from domain.messages import Message


def _texts(messages: list[Message] | tuple[Message, ...]) -> list[str]:
    lang = get_language()
    return [m.text(lang) for m in messages]


def schedule_errors(data: Any) -> list[str]:
    """The reasons ``data`` is not a valid compensation schedule, in the reader's language.

    An empty object means no compensation was agreed (the contract still measures delivery).
    """
    if data == {}:
        return []
    if not isinstance(data, dict):
        return _texts([Message("schedule.not_object", "The compensation schedule must be an "
                               "object.", "补偿条款必须是一个对象。")])  # fmt: skip
    from domain.delivery import terms

    try:
        terms.schedule_from_dict(data)
    except terms.ScheduleShapeError as exc:
        return _texts(exc.messages)
    return []


def schedule_normalised(data: Any) -> dict[str, Any]:
    """The one stored shape of a valid schedule (every key present); ``{}`` stays ``{}``."""
    if data == {}:
        return {}
    from domain.delivery import terms

    return terms.schedule_to_dict(terms.schedule_from_dict(data))


SCHEDULE_KEYS = ("availability_bands", "bandwidth", "latency", "overruns", "cap_pct",
                 "claim_window_days")  # fmt: skip
