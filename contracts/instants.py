"""Times typed for a contract (incidents, maintenance windows) checked before anything else
touches them: a date far outside any term (the year 1, 1900, 9999) is refused while it is still
the value typed. Converting it first is what failed: the year 1 in +08:00 is the year 0 in UTC
(an OverflowError in the SQLite adapter and in DRF's time-zone check, a 500), and a zone's rules
that far back are its local mean time (Shanghai's +08:05:43), not the offset anyone meant."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import get_language
from rest_framework import serializers

from domain.messages import Message

#: Years a contract's time may name at all (the term check then narrows it to the term).
FIRST_YEAR, LAST_YEAR = 1970, 9000
#: A time a day either side of the term is still taken (a clock, a zone typed wrong).
TERM_MARGIN = timedelta(days=1)
#: Clock skew tolerated for "not after now".
NOW_SKEW = timedelta(minutes=5)


def far_message(value: Any) -> str:
    shown = f"{value:%Y-%m-%d %H:%M}" if isinstance(value, datetime) else str(value)
    return Message(
        "time_far_outside_term",
        f"Give a time within the contract's term: {shown} is far outside it.",
        f"请填写合同期内的时间：{shown} 远在合同期之外。",
    ).text(get_language())


def is_far(value: datetime | None) -> bool:
    return value is not None and not (FIRST_YEAR <= value.year <= LAST_YEAR)


class TermDateTimeField(forms.DateTimeField):
    """A form's date-time that refuses a far date with a message (the typed year is checked)."""

    def to_python(self, value: Any) -> datetime | None:
        result = super().to_python(value)
        if is_far(result):
            raise ValidationError(far_message(result), code="far")
        return result


class TermDateTimeSerializerField(serializers.DateTimeField):
    """The API's date-time: a far date is a 400 with the message, checked before DRF's own
    time-zone check (which overflows on the year 1)."""

    def enforce_timezone(self, value: datetime) -> datetime:
        if is_far(value):
            raise serializers.ValidationError(far_message(value), code="far")
        return super().enforce_timezone(value)


def _shown(moment: datetime) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M}"


def incident_time_errors(contract: Any, values: dict[str, datetime | None]) -> dict[str, str]:
    """Per field, why an incident's time cannot be: far outside any term, before the term's start
    (less a day), after its end (plus a day) or after now. Every field is checked at once."""
    first, last = contract.term_span()
    lowest, highest = first - TERM_MARGIN, last + TERM_MARGIN
    now = timezone.now()
    errors: dict[str, str] = {}
    for name, value in values.items():
        if value is None:
            continue
        if is_far(value):
            errors[name] = far_message(value)
        elif value < lowest or value > highest:
            errors[name] = Message(
                "incident_outside_term",
                f"An incident must lie within the contract's term ({_shown(first)} to "
                f"{_shown(last)}, a day either side allowed): {_shown(value)} does not.",
                f"事件须在合同期内（{_shown(first)} 至 {_shown(last)}，前后可宽限一天）："
                f"{_shown(value)} 不在其中。",
            ).text(get_language())
        elif value > now + NOW_SKEW:
            errors[name] = Message(
                "incident_in_future",
                f"An incident's times cannot lie in the future: {_shown(value)} is after now "
                f"({_shown(now)}). Enter it when it has happened.",
                f"事件的时间不能在未来：{_shown(value)} 晚于当前时间（{_shown(now)}）。"
                f"请在事件发生后再录入。",
            ).text(get_language())
    return errors


def maintenance_time_errors(contract: Any, start: datetime | None,
                            end: datetime | None) -> dict[str, str]:  # fmt: skip
    """A maintenance window is agreed ahead, so it may lie in the future, but inside the term."""
    errors: dict[str, str] = {}
    for name, value in (("starts_at", start), ("ends_at", end)):
        if is_far(value):
            errors[name] = far_message(value)
    if errors or start is None or end is None:
        return errors
    first, last = contract.term_span()
    if end <= start:
        errors["ends_at"] = Message(
            "maintenance_order", "A maintenance window must end after it starts.",
            "维护窗口的结束时间须晚于开始时间。").text(get_language())  # fmt: skip
    elif start < first or end > last:
        errors["starts_at"] = Message(
            "maintenance_outside_term",
            f"A maintenance window must lie inside the term ({_shown(first)} to {_shown(last)}).",
            f"维护窗口须在合同期内（{_shown(first)} 至 {_shown(last)}）。",
        ).text(get_language())
    return errors


def negative_fee_message() -> str:
    return Message(
        "fee_negative",
        "The monthly fee cannot be negative.",
        "月费不能为负数。",
    ).text(get_language())
