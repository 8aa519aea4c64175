"""Shapes of stored JSON values: what a JSON or list field may hold, checked at every door.

A shape says what a field holds (a list of codes from a catalogue, an object of bounded size) and
how long it may be. `problem(value)` is the one check the serializer, the form and the model's
validation share (a bilingual `Message`, or None); `repair(value)` is what a data migration keeps of
a value stored before the check existed: the valid part, or the empty value. Code reading the
stored rows relies on the shape and nothing more.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .messages import Message

SHORT_ECHO = 16  # an unknown value is named in a message only when it is this short and plain


def _echo(value: object) -> str:
    """A value as a message may name it: short printable text, else a description."""
    if isinstance(value, str) and 0 < len(value) <= SHORT_ECHO and value.isprintable():
        return f"“{value}”"
    return "a value that is not offered"


@dataclass(frozen=True)
class CodeList:
    """A list of distinct codes, each from `choices()` (the catalogue), at most `max_items`."""

    code: str
    choices: Callable[[], frozenset[str]]
    max_items: int
    example: str
    # how a stored code is read when a migration repairs old rows ("gd " -> "GD")
    fold: Callable[[str], str] = str.strip

    def problem(self, value: Any) -> Message | None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return Message(
                f"{self.code}_not_a_list",
                f"A list of codes is expected, for example {self.example}.",
                f"应为代码列表，例如 {self.example}。",
            )
        if len(value) > self.max_items:
            return Message(
                f"{self.code}_too_many",
                f"At most {self.max_items} values can be chosen; got {len(value)}.",
                f"最多可选 {self.max_items} 项，实际 {len(value)} 项。",
            )
        allowed = self.choices()
        unknown = [v for v in value if v not in allowed]
        if unknown:
            named = _echo(unknown[0])
            zh = named if named.startswith("“") else "一个不在选项中的值"
            return Message(
                f"{self.code}_unknown",
                f"{named[0].upper()}{named[1:]} is not one of the choices offered "
                f"(for example {self.example}).",
                f"{zh} 不在可选项中（例如 {self.example}）。",
            )
        if len(set(value)) != len(value):
            return Message(
                f"{self.code}_repeated",
                "Each value can be chosen once.",
                "每个值只能选择一次。",
            )
        return None

    def repair(self, value: Any) -> list[str]:
        """The valid codes of a stored value, in order, once each; [] for anything else."""
        if not isinstance(value, list):
            return []
        allowed = self.choices()
        kept: list[str] = []
        for v in value:
            code = self.fold(v) if isinstance(v, str) else None
            if code in allowed and code not in kept:
                kept.append(code)
        return kept[: self.max_items]


@dataclass(frozen=True)
class BoundedObject:
    """A JSON object (or nothing, when `nullable`) of finite numbers, text and nested objects or
    lists, at most `max_bytes` once written as JSON."""

    code: str
    max_bytes: int
    nullable: bool = True

    def problem(self, value: Any) -> Message | None:
        if value is None and self.nullable:
            return None
        if not isinstance(value, dict):
            return Message(
                f"{self.code}_not_an_object",
                'An object {"name": value, …} is expected.',
                '应为对象 {"名称": 值, …}。',
            )
        if not _finite(value):
            return Message(
                f"{self.code}_not_finite",
                "Every number must be finite.",
                "所有数值必须为有限数。",
            )
        if len(json.dumps(value, ensure_ascii=False).encode()) > self.max_bytes:
            return Message(
                f"{self.code}_too_long",
                f"At most {self.max_bytes:,} bytes can be stored here.",
                f"此处最多可保存 {self.max_bytes:,} 字节。",
            )
        return None

    def repair(self, value: Any) -> dict[str, Any] | None:
        return value if self.problem(value) is None else (None if self.nullable else {})


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _finite(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return value is None or isinstance(value, str | int | bool)


Shape = CodeList | BoundedObject
