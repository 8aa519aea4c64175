"""Shapes of the quote app's JSON fields written through forms and the API (domain/shapes.py)."""

from __future__ import annotations

from domain.shapes import BoundedObject

# A workload's architecture and parallel layout: an object {"model": {...}, "parallel": {...}}
# (its content is checked by domain/trainmodel/workload.py when the size is known); a few dozen
# numbers, so 8 KB is generous and keeps a 200 KB body out of the row and its pages.
ARCHITECTURE = BoundedObject(code="architecture", max_bytes=8 * 1024)
