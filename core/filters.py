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

import copy
from functools import cache
from types import SimpleNamespace
from typing import Any

import django_filters
from django.db import models
from django.http import QueryDict
from django.utils.choices import BaseChoiceIterator
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django_filters.filters import FilterMethod
from django_filters.rest_framework import DjangoFilterBackend

from core import cache as page_cache
from core.teams import request_team, team_model
from core.widgets import fast_widgets

MODEL_CHOICE_FILTERS = (django_filters.ModelChoiceFilter, django_filters.ModelMultipleChoiceFilter)

MAX_DEPTH = 3

# The filter bar's markup: bump when it changes (a shared cache must not serve an older bar).
BAR_VERSION = 1


@cache
def team_path(model: type[models.Model], depth: int = MAX_DEPTH) -> str | None:
    """The lookup from `model` to its owning team (``team``, ``vendor__team``, ``rfq__team``),
    following required foreign keys first; None for shared tables (GPU models, users)."""
    team = team_model()
    fks = [f for f in model._meta.get_fields() if f.many_to_one and f.concrete]
    for f in fks:
        if f.name == "team" and f.related_model is team:
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
        if not isinstance(flt, MODEL_CHOICE_FILTERS):
            continue
        queryset = flt.get_queryset(getattr(filterset, "request", None))
        if not isinstance(queryset, models.QuerySet):
            continue
        path = team_path(queryset.model)
        if path is None:
            continue
        flt.queryset = queryset.filter(**{path: team}) if team is not None else queryset.none()
        flt.__dict__.pop("_field", None)  # a field built before scoping would keep all rows


class TeamFilterBackend(DjangoFilterBackend):
    """django-filter's DRF backend, with every id filter scoped to the requesting team."""

    def get_filterset(self, request, queryset, view):  # type: ignore[no-untyped-def]
        filterset = super().get_filterset(request, queryset, view)
        if filterset is not None:
            scope_model_choices(filterset, request_team(request))
        return filterset

    def filter_queryset(self, request, queryset, view):  # type: ignore[no-untyped-def]
        """A request naming none of the FilterSet's parameters gets the rows unfiltered, as
        the FilterSet would give them (every filter skips an empty value), without building
        and validating its form on every plain list request."""
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None and not (
            request.query_params.keys() & filterset_class.base_filters.keys()
        ):
            return queryset
        return super().filter_queryset(request, queryset, view)


_REQUEST_TEAM = object()


def _filter_copy(flt: django_filters.Filter) -> django_filters.Filter:
    """A filter of one FilterSet instance: a shallow copy of the declared one with what an
    instance changes made its own (``extra``, which a model-choice filter writes its queryset
    into, and the FilterMethod, which must call this instance's parent). django-filter
    deep-copies every declared filter instead: a third of a list page's filter cost."""
    new = copy.copy(flt)
    new.extra = dict(flt.extra)
    new.__dict__.pop("_field", None)
    if isinstance(new.__dict__.get("filter"), FilterMethod):
        new.filter = FilterMethod(new)
    return new


def _descending(fmt: Any, label: Any) -> str:
    return str(fmt) % label


class TeamOrdering(django_filters.OrderingFilter):
    """A list's ``sort=``: its choices worded in the language of each request, and ties broken
    by `tie_break` (then the id) so that a page boundary falls at the same place in every query:
    no row on two pages, none on none."""

    descending_fmt = _("%s, descending")

    def __init__(self, *args: Any, tie_break: tuple[str, ...] = (), **kwargs: Any) -> None:
        self.tie_break = (*tie_break, "pk")
        super().__init__(*args, **kwargs)

    def build_choices(self, fields, labels):  # type: ignore[no-untyped-def]
        """django-filter formats "x, descending" once, at import, in the default language; the
        labels here stay lazy and are worded in the language of each request."""
        choices = super().build_choices(fields, labels)
        ascending = dict(choices[0::2])
        return [
            (value, label if not value.startswith("-") else
             lazy(_descending, str)(self.descending_fmt, ascending[value[1:]]))
            for value, label in choices
        ]  # fmt: skip

    def filter(self, qs, value):  # type: ignore[no-untyped-def]
        qs = super().filter(qs, value)
        if value:
            qs = qs.order_by(*qs.query.order_by, *self.tie_break)
        return qs


class ValuesOptions(BaseChoiceIterator):
    """A model-choice select's options as (id, label) pairs from one values query over the
    field's (team-scoped) queryset, the label the first non-empty of `label_fields` (building
    a model instance per option was a third of a list's time), and only when the select is
    rendered (the API validates an id without listing every row)."""

    def __init__(self, field: Any, label_fields: tuple[str, ...], rows: Any = None) -> None:
        self.field = field
        self.label_fields = label_fields
        self.rows = rows  # (pk, *labels) rows read already (TeamFilterSet.bar), else None

    def __iter__(self):  # type: ignore[no-untyped-def]
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        rows = self.rows
        if rows is None:
            rows = self.field.queryset.order_by(*self.label_fields, "pk").values_list(
                "pk", *self.label_fields
            )
        for pk, *labels in rows:
            yield (pk, next((x for x in labels if x), ""))


class TeamFilterSet(django_filters.FilterSet):
    """A FilterSet of a page and its API: ``team=`` scopes its id filters (a page passes it;
    under the API's backend, which passes only ``request=``, it is the requesting team).

    Built cheaply, as every list page and API list builds one per request: the declared
    filters are copied shallowly (`_filter_copy`), and the form class (its fields, with the
    fast widgets of core.widgets) is built once per FilterSet class. The class's model-choice
    fields offer no rows; each form gets its own team's rows (`form`), so a field a form
    forgot to scope would offer nothing rather than another team's rows.

    The page's filter bar (`shown_fields`) is every field but the `ALIASES` (parameters
    accepted everywhere, e.g. the API's older names, not shown) and ``sort`` (the column
    headers sort). `OPTION_LABELS` names, per model-choice filter, the columns its options are
    labelled and ordered by, read by one values query (`ValuesOptions`)."""

    ALIASES: tuple[str, ...] = ()
    OPTION_LABELS: dict[str, tuple[str, ...]] = {}

    def __init__(
        self,
        data: Any = None,
        queryset: Any = None,
        *,
        request: Any = None,
        prefix: str | None = None,
        team: Any = _REQUEST_TEAM,
    ) -> None:
        # django_filters.FilterSet.__init__, with `_filter_copy` for its deepcopy
        if queryset is None:
            queryset = self._meta.model._default_manager.all()
        model = queryset.model
        self.is_bound = data is not None
        self.data = data or QueryDict()
        self.queryset = queryset
        self.request = request
        self.form_prefix = prefix
        self.filters = {name: _filter_copy(f) for name, f in self.base_filters.items()}
        for flt in self.filters.values():
            flt.model = model
            flt.parent = self
        if team is _REQUEST_TEAM:
            team = request_team(request)
        self.team = team
        scope_model_choices(self, team)

    @classmethod
    def _team_form_class(cls, model: type[models.Model]) -> type:
        form_class = cls.__dict__.get("_cached_form_class")
        if form_class is None:
            fields = {}
            for name, declared in cls.base_filters.items():
                flt = _filter_copy(declared)
                flt.model = model
                if isinstance(flt, MODEL_CHOICE_FILTERS) and isinstance(
                    flt.queryset, models.QuerySet
                ):
                    flt.queryset = flt.queryset.none()  # each form sets its team's rows
                fields[name] = flt.field
            form_class = type(f"{cls.__name__}Form", (cls._meta.form,), fields)
            fast_widgets(SimpleNamespace(fields=form_class.base_fields))  # type: ignore[arg-type]
            cls._cached_form_class = form_class
        return form_class

    def get_form_class(self) -> type:
        return self._team_form_class(self.queryset.model)

    @property
    def form(self):  # type: ignore[no-untyped-def]
        if not hasattr(self, "_form"):
            form_class = self.get_form_class()
            if self.is_bound:
                form = form_class(self.data, prefix=self.form_prefix)
            else:
                form = form_class(prefix=self.form_prefix)
            read = getattr(self, "_options_read", {})  # options `bar` has read already
            for name, flt in self.filters.items():
                if isinstance(flt, MODEL_CHOICE_FILTERS):
                    field = form.fields[name]
                    field.queryset = flt.get_queryset(self.request)
                    labels = self.OPTION_LABELS.get(name)
                    if labels:
                        field.widget.choices = ValuesOptions(field, labels, read.get(name))
                elif name in read:
                    form.fields[name].choices = read[name]
            self._form = form
        return self._form

    def shown_fields(self) -> list:  # type: ignore[type-arg]
        """The page's filter bar: every field but the aliases and the order (the column
        headers sort; the bar keeps the order in a hidden field)."""
        return [f for f in self.form if f.name not in self.ALIASES and f.name != "sort"]

    def bar(self) -> SafeString:
        """The filter bar's HTML: each shown field as a label, its widget and its errors.

        The bar is the same for every request with the same parameters that sees the same
        options in the same language, so it is kept in the cache under those (`_bar_options`:
        a team's vendor list changing makes a new key, never a stale bar): writing every
        <option> (and, for a list opened without filters, building the form: Django
        deep-copies its fields) cost more than the page's rows."""
        options = self._bar_options()
        if options is None:
            return self._bar_html()
        data = None
        if self.is_bound:  # a QueryDict (a page) or a plain dict
            pairs = self.data.lists() if hasattr(self.data, "lists") else self.data.items()
            data = tuple(sorted((str(k), repr(v)) for k, v in pairs))
        cls = type(self)
        parts = (f"{cls.__module__}.{cls.__qualname__}", get_language(), self.form_prefix, data,
                 options)  # fmt: skip
        return page_cache.get_or_set("filter-bar", BAR_VERSION, parts, self._bar_html)

    def _bar_html(self) -> SafeString:
        parts = []
        for field in self.shown_fields():
            errors = "".join(
                format_html('<br><span class="error small">{}</span>', e) for e in field.errors
            )
            parts.append(format_html("<label>{}<br>{}{}</label>", field.label, field,
                                     SafeString(errors)))  # fmt: skip
        return SafeString("".join(parts))

    def _bar_options(self) -> tuple | None:  # type: ignore[type-arg]
        """What the bar's options depend on beyond the class, the language and the parameters:
        the rows of each model-choice filter (by `OPTION_LABELS`) and each callable's choices;
        None when a shown filter's options cannot be read that way (the bar is then built)."""
        found: dict[str, tuple] = {}  # type: ignore[type-arg]
        for name, flt in self.filters.items():
            if name in self.ALIASES or name == "sort":
                continue
            if isinstance(flt, MODEL_CHOICE_FILTERS):
                labels = self.OPTION_LABELS.get(name)
                queryset = flt.get_queryset(self.request)
                if not labels or not isinstance(queryset, models.QuerySet):
                    return None
                found[name] = tuple(queryset.order_by(*labels, "pk").values_list("pk", *labels))
            elif callable(flt.extra.get("choices")):
                found[name] = page_cache.stable(flt.extra["choices"]())
        if not hasattr(self, "_form"):
            self._options_read = found  # the form, if built now, offers these (no second query)
        return tuple(found.items())
