"""Optimistic concurrency of vendor edits, as quotes have it (quotes.api.concurrency): the edit
form carries the stamp of the row it was filled from, the API gives it as ETag and checks an
If-Match; a save based on an older stamp is refused with what changed since (409 page, 412 API).

A vendor has no revision counter: its stamp is `updated_at` to the microsecond (auto_now, set on
every save), and what changed since comes from the row's history (simple_history)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .models import Vendor

# The fields a user edits (form and API), compared to say what changed since a stamp.
EDITED_FIELDS = (
    "name_zh", "name_en", "short_name", "credit_code", "registered_capital_cny", "founded_year",
    "website", "home_province", "services", "notes",
)  # fmt: skip
_FORMAT = "%Y%m%d%H%M%S%f"


def stamp(vendor: Vendor) -> str:
    return vendor.updated_at.astimezone(UTC).strftime(_FORMAT)


def etag(vendor: Vendor) -> str:
    return f'"{stamp(vendor)}"'


def if_match_stamps(header: str | None) -> list[str] | None:
    """None without the header (or `*`: any version), else the stamps it names."""
    if header is None or not header.strip() or header.strip() == "*":
        return None
    return [t.strip().removeprefix("W/").strip('"') for t in header.split(",")]


@dataclass
class VendorConflict(Exception):
    """The vendor changed since `based_on`; `changed` lists the fields (empty: unknown)."""

    vendor: Vendor
    based_on: str
    changed: list[str] = field(default_factory=list)
    by: Any = None
    at: datetime | None = None


def conflict_for(current: Vendor, based_on: str) -> VendorConflict:
    """What changed between the version stamped `based_on` and `current`."""
    changed: list[str] = []
    try:
        when = datetime.strptime(based_on, _FORMAT).replace(tzinfo=UTC)
    except ValueError:
        when = None
    base = current.history.filter(updated_at=when).order_by("-history_id").first() if when else None
    if base is not None:
        changed = [n for n in EDITED_FIELDS if getattr(base, n) != getattr(current, n)]
    last = current.history.order_by("-history_id").first()
    return VendorConflict(
        current, based_on, changed,
        by=getattr(last, "history_user", None), at=current.updated_at,
    )  # fmt: skip
