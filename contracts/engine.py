"""The app's one door to the delivery engine (``domain.delivery``).

Every rule (schedule validity, windowing, breaches, credits, deadlines) lives in the domain; the
schedule's door with messages in the reader's language is ``core.compensation`` (shared with the
vendors' SLA records, which sit below contracts), re-exported here under the names the app uses.
"""

from __future__ import annotations

from core.compensation import SCHEDULE_KEYS, schedule_errors, schedule_normalised

__all__ = ["SCHEDULE_KEYS", "schedule_errors", "schedule_normalised"]
