"""The delivery engine: a contract's terms and what was measured → episodes, credits, deadlines.

Rules in words (and their sources) in ``docs/DELIVERY.md``; in short:

- months are calendar months in the contract's time zone, clipped to the term; a month's fee is
  prorated when the term covers part of it;
- availability: host-hours of outage (incidents; an incident without hosts is every host) net of
  maintenance, over host-hours scheduled (in term, net of maintenance); the worst band reached
  pays;
- bandwidth: a window is *below* when a saturating measurement (the kit) delivered less than the
  threshold × the committed figure, *met* when any measurement reached it, *inconclusive* when only
  traffic counters saw less (an idle job is not a shortfall), *no data* otherwise; maintenance time
  is neither. Consecutive below windows of one host form an episode; an episode that lasts at
  least the minimum duration earns the clause's % per hour for its whole duration, on the host's
  share of the fee;
- latency: the same with "P99 above the committed figure";
- response / repair: each hour beyond the committed time, from the ticket's opening;
- the month's credits are capped at ``cap_pct`` of its fee; every credit's claim deadline is its
  episode's end + ``claim_window_days``, passed or not at ``now``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from domain.delivery.report import (
    Credit,
    DeliveryReport,
    Episode,
    MonthReport,
    TimelinePoint,
    TrackRecord,
    report_from_dict,
    report_to_dict,
)
from domain.delivery.terms import ContractTerms
from domain.delivery.windows import Window

__all__ = [
    "Credit",
    "DeliveryReport",
    "Episode",
    "Incident",
    "MonthReport",
    "TimelinePoint",
    "TrackRecord",
    "evaluate",
    "report_from_dict",
    "report_to_dict",
    "track_record",
]


@dataclass(frozen=True)
class Incident:
    """An outage and its ticket (aware datetimes).

    ``end`` None: still going on (counted until ``now``). ``hosts`` empty: every contract host.
    ``opened_at`` is when the ticket was opened (default: the outage's start); ``responded_at`` /
    ``repaired_at`` None: not yet (an overrun then runs until ``now``).
    """

    start: datetime
    end: datetime | None
    hosts: tuple[str, ...] = ()
    opened_at: datetime | None = None
    responded_at: datetime | None = None
    repaired_at: datetime | None = None
    reference: str = ""


def evaluate(
    terms: ContractTerms,
    windows: Sequence[Window],
    incidents: Sequence[Incident],
    *,
    now: datetime,
) -> DeliveryReport:
    """Judge a contract's delivery up to ``now`` (the part of the term after ``now`` is ignored).

    ``windows`` may mix monitoring and kit windows of the same grid (see ``windows``); windows of
    hosts not in the contract are ignored. Raises ``ValueError`` when ``terms_problems`` finds
    anything (the caller validates first and shows those messages).
    """
    raise NotImplementedError


def track_record(reports: Iterable[DeliveryReport]) -> TrackRecord:
    """A vendor's standing over its contracts' stored reports."""
    raise NotImplementedError
