"""Deleting rows together with the uploaded files they (and their cascade) hold.

Django never deletes a FileField's file with its row. A delete that cascades (a vendor → its
credentials' evidence, quotes → test runs → raw logs, sourcing answers …) would leave every raw
upload on disk. ``delete_with_files`` collects the files of every row the delete will remove, the
way ``Model.delete`` collects the rows, and removes them only after the transaction commits: a
rollback keeps both the rows and their files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.files.storage import Storage
from django.db import models, router, transaction
from django.db.models.deletion import Collector


@dataclass(frozen=True)
class StoredFile:
    model: type[models.Model]
    field: str
    storage: Storage
    name: str


def _file_fields(model: type[models.Model]) -> list[models.FileField]:
    return [f for f in model._meta.concrete_fields if isinstance(f, models.FileField)]


def stored_files(instances: Iterable[models.Model]) -> list[StoredFile]:
    """The files held by `instances` and by every row deleting them would cascade to."""
    instances = list(instances)
    if not instances:
        return []
    collector = Collector(using=router.db_for_write(type(instances[0])))
    collector.collect(instances)
    found: list[StoredFile] = []
    for model, rows in collector.data.items():
        for field in _file_fields(model):
            names = [getattr(row, field.attname) for row in rows]  # FieldFile objects
            found += [StoredFile(model, field.name, field.storage, n.name) for n in names if n]
    for qs in collector.fast_deletes:  # rows deleted by one query, never loaded
        for field in _file_fields(qs.model):
            names = qs.exclude(**{field.name: ""}).values_list(field.name, flat=True)
            found += [StoredFile(qs.model, field.name, field.storage, n) for n in names if n]
    return found


def delete_files(files: Iterable[StoredFile]) -> None:
    """Remove each file no remaining row still names (stored names are content-addressed in
    places, so two rows may share one)."""
    for f in files:
        if not f.model._default_manager.filter(**{f.field: f.name}).exists():
            f.storage.delete(f.name)


def delete_with_files(*instances: models.Model) -> Any:
    """Delete `instances` (and their cascade) atomically; their files go after the commit."""
    with transaction.atomic():
        files = stored_files(instances)
        result = [instance.delete() for instance in instances]
        transaction.on_commit(lambda: delete_files(files))
    return result


def delete_queryset_with_files(queryset: models.QuerySet[Any]) -> Any:
    """``QuerySet.delete`` with the files of every deleted row removed after the commit."""
    with transaction.atomic():
        files = stored_files(queryset)
        result = queryset.delete()
        transaction.on_commit(lambda: delete_files(files))
    return result
