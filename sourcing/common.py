"""What the write side of sourcing shares: the audit row, the conflict error, the write check."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError

from accounts.models import Membership

from .models import AuditEvent, Rfq


class Conflict(ValidationError):
    """Someone else changed the row first (a concurrent decision); the API answers 409."""


def audit(rfq: Rfq, verb: str, actor=None, **detail: Any) -> AuditEvent:  # type: ignore[no-untyped-def]
    return AuditEvent.objects.create(
        team_id=rfq.team_id, rfq=rfq, verb=verb, actor=actor, detail=detail
    )


def _can_write(user) -> bool:  # type: ignore[no-untyped-def]
    membership = Membership.objects.filter(user=user).first()
    return membership is not None and membership.can_write


def _line_rate(terms: dict[str, Any]) -> Decimal | None:
    value = terms.get("nic_gbps")
    return Decimal(str(value)).quantize(Decimal("0.1")) if value else None
