"""API lists whose rows' answers are kept in the cache (Django's cache framework).

A list answer (50 quotes, 50 vendors) spent most of its time in DRF's generic field loop,
turning the same unchanged rows into the same dicts request after request.
`CachedListSerializer` keeps each row's answer under a key (core.cache) made of **every**
stored value of the row (all concrete columns as loaded: `updated_at` and `revision` among
them, and the values themselves, so a bulk update that calls no save() is a new key too), the
serializer class, the active time zone and language: the answer is a function of those, so
nothing needs invalidating. Only plain rows use it: a serializer whose answer reads anything
beyond the row must name what in `cache_parts(row)` (the quote's current version, say) or not
use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import models
from django.utils import timezone
from django.utils.translation import get_language
from rest_framework import serializers

from core import cache

# The answers' shape: bump when a serializer's output changes (a shared cache must not serve an
# older release's answers).
ROWS_VERSION = 1


def row_parts(serializer_class: type, values: Sequence[Any], extra: Sequence[Any] = ()) -> tuple:  # type: ignore[type-arg]
    """The key parts of a row's answer: the serializer, the time zone and language, every
    concrete column's value in field order (`values`) and what else the answer reads
    (`extra`). A list path that reads rows as values builds the same parts
    (quotes.api.serializers.quote_list_answers)."""
    name = f"{serializer_class.__module__}.{serializer_class.__qualname__}"
    zone = timezone.get_current_timezone_name()
    return (name, zone, get_language(), tuple(values), tuple(extra))


def cached_answers(
    serializer_class: type,
    parts: Sequence[tuple],
    make: Any,  # type: ignore[type-arg]
) -> list[dict]:  # type: ignore[type-arg]
    """The answers of rows keyed by `parts` (row_parts); those not kept: `make(positions)`."""
    return cache.get_many_or_set("api-row", ROWS_VERSION, parts, make)


class CachedListSerializer(serializers.ListSerializer):
    """`many=True` of a ModelSerializer whose `Meta.list_serializer_class` names it."""

    def to_representation(self, data):  # type: ignore[no-untyped-def]
        rows = list(data.all() if isinstance(data, models.manager.BaseManager) else data)
        child = self.child
        attnames = [f.attname for f in child.Meta.model._meta.concrete_fields]
        extra = getattr(child, "cache_parts", lambda row: ())
        out: list[dict | None] = [None] * len(rows)  # type: ignore[type-arg]
        keyed: list[int] = []
        parts = []
        for i, row in enumerate(rows):
            values = row.__dict__
            if any(a not in values for a in attnames):  # a deferred field: no full key
                out[i] = child.to_representation(row)
                continue
            keyed.append(i)
            parts.append(row_parts(type(child), [values[a] for a in attnames], extra(row)))
        if parts:

            def make(missing: list[int]) -> list[dict]:  # type: ignore[type-arg]
                return [child.to_representation(rows[keyed[j]]) for j in missing]

            for i, answer in zip(keyed, cached_answers(type(child), parts, make), strict=True):
                out[i] = answer
        return out
