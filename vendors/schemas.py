"""Shapes of the vendor records' JSON fields (domain/shapes.py), one definition per field.

Model fields name them through `core.shapes.StoredShape("vendors.schemas.NAME")`; the API, the
forms, the model's validation and the data migration that repaired older rows all read these.
"""

from __future__ import annotations

from domain.regions import PROVINCES
from domain.shapes import CodeList

from .choices import Service

NATIONAL = "national"
# Business codes keep their own validator (vendors/validators.py: the catalogue and the licence's
# classes), bounded there in count and length before any code is named in a message.
MAX_BUSINESS_CODES = 40
MAX_BUSINESS_CODE_CHARS = 8


def _region_codes() -> frozenset[str]:
    return frozenset({NATIONAL, *(p.code for p in PROVINCES)})


def _fold_region(code: str) -> str:
    code = code.strip()
    return NATIONAL if code.lower() == NATIONAL else code.upper()


COVERAGE_REGIONS = CodeList(
    code="coverage_regions",
    choices=_region_codes,
    max_items=len(PROVINCES) + 1,
    example="national, GD, BJ",
    fold=_fold_region,
)
SERVICES = CodeList(
    code="services",
    choices=lambda: frozenset(Service.values),
    max_items=len(Service.values),
    example="gpu_rental, idc",
)


def stored_codes(value: object) -> list[str]:
    """The codes of a stored list field, in order. The fields' shapes are enforced and older
    rows were repaired; this only guards readers against a row written around the model."""
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, str)]
