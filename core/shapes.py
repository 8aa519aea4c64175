"""The Django side of domain/shapes.py: a model-field validator naming a shape by its path.

The same validator object serves the model (`full_clean`), the forms (a ModelForm validates the
instance) and the API (DRF copies a model field's validators to its serializer field). It is
deconstructed as the shape's dotted path, so a migration does not copy the catalogue.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.module_loading import import_string
from django.utils.translation import get_language


@deconstructible
class StoredShape:
    def __init__(self, path: str) -> None:
        self.path = path

    @property
    def shape(self) -> Any:
        return import_string(self.path)

    def __call__(self, value: Any) -> None:
        message = self.shape.problem(value)
        if message is not None:
            raise ValidationError(message.text(get_language()), code=message.code)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoredShape) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)
