"""List filters shared by every app: an id filter offers only the requesting team's rows.

A model-choice filter (``?vendor=``, ``?quote=``, ``?run=``, ``?workload=``, ``?rfq=`` …) built
over ``Model.objects.all()`` told two things apart: another team's id was a valid choice (200,
empty list) while a missing id was not (400). Each such filter's choices are limited here to the
team's rows, so another team's id is answered exactly like an id that names nothing.

The API gets it from ``TeamFilterBackend`` (the project's default filter backend), whatever
FilterSet a view declares or ``filterset_fields`` generates; a page's FilterSet subclasses
``TeamFilterSet`` and passes ``team=``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import django_filters
from django.db import models
from django_filters.rest_framework import DjangoFilterBackend

from accounts.middleware import request_membership

MAX_DEPTH = 3


@cache
def team_path(model: type[models.Model], depth: int = MAX_DEPTH) -> str | None:
    """The lookup from `model` to its owning team (``team``, ``vendor__team``, ``rfq__team``),
    following required foreign keys first; None for shared tables (GPU models, users)."""
    from accounts.models import Team

    fks = [f for f in model._meta.get_fields() if f.many_to_one and f.concrete]
    for f in fks:
        if f.name == "team" and f.related_model is Team:
            return "team"
    if depth == 0:
        return None
    for f in sorted(fks, key=lambda f: bool(f.null)):  # a required owner before an optional link
        related = f.related_model
        if related is model or related is None or isinstance(related, str):
            continue
        sub = team_path(related, depth - 1)
        if sub is not None:
            return f"{f.name}__{sub}"
    return None


def scope_model_choices(filterset: django_filters.FilterSet, team: Any) -> None:
    """Limit every model-choice filter of `filterset` over a team-owned model to `team`'s rows
    (no team: no rows). Must run before the filterset's form is built."""
    for flt in filterset.filters.values():
        if not isinstance(
            flt, django_filters.ModelChoiceFilter | django_filters.ModelMultipleChoiceFilter
        ):
            continue
        queryset = flt.get_queryset(getattr(filterset, "request", None))
        if not isinstance(queryset, models.QuerySet):
            continue
        path = team_path(queryset.model)
        if path is None:
            continue
        flt.queryset = queryset.filter(**{path: team}) if team is not None else queryset.none()
        flt.__dict__.pop("_field", None)  # a field built before scoping would keep all rows


def request_team(request: Any) -> Any:
    membership = request_membership(request) if request is not None else None
    return membership.team if membership else None


class TeamFilterBackend(DjangoFilterBackend):
    """django-filter's DRF backend, with every id filter scoped to the requesting team."""

    def get_filterset(self, request, queryset, view):  # type: ignore[no-untyped-def]
        filterset = super().get_filterset(request, queryset, view)
        if filterset is not None:
            scope_model_choices(filterset, request_team(request))
        return filterset


_REQUEST_TEAM = object()


class TeamFilterSet(django_filters.FilterSet):
    """A FilterSet of a page and its API: ``team=`` scopes its id filters (a page passes it;
    under the API's backend, which passes only ``request=``, it is the requesting team)."""

    def __init__(self, *args: Any, team: Any = _REQUEST_TEAM, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if team is _REQUEST_TEAM:
            team = request_team(getattr(self, "request", None))
        self.team = team
        scope_model_choices(self, team)
