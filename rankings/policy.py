"""Saving the team's risk policy (page and API): the row and its audit entry in one transaction.

The audit entry is Django's admin change history (`LogEntry`), so edits made on the policy page,
over the API and in the admin read as one history of the team's policy."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.core.paginator import Page, Paginator
from django.db import transaction

from .forms import RiskPolicyForm
from .models import TeamRiskPolicy


def policy_save(*, form: RiskPolicyForm, user) -> TeamRiskPolicy:  # type: ignore[no-untyped-def]
    """Save a valid policy form and log who changed which fields, from what to what."""
    adding = form.instance.pk is None
    values = {f: [_plain(form.initial.get(f)), _plain(form.cleaned_data.get(f))]
              for f in form.changed_data}  # fmt: skip
    with transaction.atomic():
        form.instance._history_user = user  # the policy's history (simple_history) names them
        saved = form.save()
        LogEntry.objects.log_actions(
            user_id=user.pk, queryset=[saved], action_flag=ADDITION if adding else CHANGE,
            change_message=[{"added": {}}] if adding
            # the admin reads "fields"; "values" keeps each changed field's [before, after]
            else [{"changed": {"fields": form.changed_data, "values": values}}],
            single_object=True,
        )  # fmt: skip
    return saved


def _plain(value: object) -> object:
    """A form value as JSON holds it (Decimal amounts as text)."""
    return value if value is None or isinstance(value, bool | int | float | str) else str(value)


# The team's policy history page: each saved version against the one before it.

HISTORY_PER_PAGE = 25


def policy_history(*, team, page_number: object) -> Page:  # type: ignore[no-untyped-def, type-arg]
    """A page of the team's policy versions, newest first, each with `changes`: the fields
    that differ from the version before it (the default policy before the first), as (label,
    before, after) in the active language. Two queries whatever the page's length."""
    records = TeamRiskPolicy.history.filter(team=team).select_related("history_user")
    newest_first = records.order_by("-history_date", "-history_id")
    page = Paginator(newest_first, HISTORY_PER_PAGE).get_page(page_number)
    items = list(page.object_list)
    earlier = None
    if items and page.has_next():
        earlier = newest_first[page.end_index()]  # the version before this page's oldest
    for i, record in enumerate(items):
        before = items[i + 1] if i + 1 < len(items) else earlier
        record.changes = _changes(before, record)
    page.object_list = items
    return page


def _changes(before, after) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    base = before if before is not None else TeamRiskPolicy()
    out = []
    for name in RiskPolicyForm._meta.fields:
        old, new = getattr(base, name), getattr(after, name)
        if old != new:
            field = TeamRiskPolicy._meta.get_field(name)
            out.append((str(field.verbose_name), _shown(field, old), _shown(field, new)))
    return out


def _shown(field, value: object) -> str:  # type: ignore[no-untyped-def]
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, Decimal):
        return f"{value:,.2f}"
    return f"{value:g}" if isinstance(value, float) else str(value)
