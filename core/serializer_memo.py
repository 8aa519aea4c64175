"""API lists that serialise each distinct row once per process.

A list answer (50 quotes, 50 vendors) spent most of its time in DRF's generic field loop,
turning the same unchanged rows into the same dicts request after request. `MemoListSerializer`
keeps each row's answer keyed by **every** stored value of the row (all concrete fields as
loaded) and the active time zone: the answer is a pure function of that key, so a changed row
(by save() or by a bulk update alike) has a new key and is serialised afresh; nothing needs
invalidating. Only plain rows use it: a serializer whose answer reads anything beyond the row
(nested objects, methods, the request) must refresh that part in `fresh()` or not use it.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from rest_framework import serializers

_MEMO_MAX = 10_000  # rows per serializer class and process (about 1 KB each)
_MEMOS: dict[type, dict[str, dict]] = {}  # type: ignore[type-arg]


class MemoListSerializer(serializers.ListSerializer):
    """`many=True` of a ModelSerializer whose `Meta.list_serializer_class` names it."""

    @staticmethod
    def memo_of(serializer_class: type) -> dict[str, dict]:  # type: ignore[type-arg]
        """The answers kept for `serializer_class`'s rows, by `row_key` (a list path that
        reads rows as values looks them up there too)."""
        return _MEMOS.setdefault(serializer_class, {})

    @staticmethod
    def row_key(zone: str, values: list) -> str:  # type: ignore[type-arg]
        """A row's key: the time zone and every concrete column's value, in field order."""
        return repr((zone, values))

    def to_representation(self, data):  # type: ignore[no-untyped-def]
        rows = data.all() if isinstance(data, models.manager.BaseManager) else data
        child = self.child
        memo = self.memo_of(type(child))
        attnames = [f.attname for f in child.Meta.model._meta.concrete_fields]
        zone = timezone.get_current_timezone_name()
        fresh = getattr(child, "fresh", None)
        out = []
        for row in rows:
            values = row.__dict__
            if any(a not in values for a in attnames):  # a deferred field: no full key
                out.append(child.to_representation(row))
                continue
            key = self.row_key(zone, [values[a] for a in attnames])
            answer = memo.get(key)
            if answer is None:
                answer = child.to_representation(row)
                if len(memo) >= _MEMO_MAX:
                    memo.pop(next(iter(memo)))  # the oldest entry
                memo[key] = answer
            answer = dict(answer)  # a copy: the caller may change its answer
            out.append(fresh(row, answer) if fresh is not None else answer)
        return out
