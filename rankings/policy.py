"""Saving the team's risk policy (page and API): the row and its audit entry in one transaction.

The audit entry is Django's admin change history (`LogEntry`), so edits made on the policy page,
over the API and in the admin read as one history of the team's policy."""

from __future__ import annotations

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.db import transaction

from .forms import RiskPolicyForm
from .models import TeamRiskPolicy


def policy_save(*, form: RiskPolicyForm, user) -> TeamRiskPolicy:  # type: ignore[no-untyped-def]
    """Save a valid policy form and log who changed which fields."""
    adding = form.instance.pk is None
    with transaction.atomic():
        saved = form.save()
        LogEntry.objects.log_actions(
            user_id=user.pk, queryset=[saved], action_flag=ADDITION if adding else CHANGE,
            change_message=[{"added": {}}] if adding
            else [{"changed": {"fields": form.changed_data}}],
            single_object=True,
        )  # fmt: skip
    return saved
