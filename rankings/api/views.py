from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import (
    Count,
    F,
    IntegerField,
    JSONField,
    OuterRef,
    Prefetch,
    Subquery,
    Window,
    prefetch_related_objects,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce, JSONObject
from django.http import HttpResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.pagination import PageNumberPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from core.api import TeamScopedViewSet
from core.queue import unavailable_body, was_unqueued
from quotes.models import Quote

from ..models import RankingResult, RankingRun
from ..selectors import changed_quote_ids
from ..services import ranking_start
from ..whatif import ranking_start_scenario, scenario_from
from . import serializers as s

# The answer of a finished run is kept in Django's cache (Redis in production: every web
# worker shares it) as its rendered JSON: a ranking of 50 offers is ~400 KB that serialising
# again took longer than the rest of the request. Its key names the run and a version of it
# that changes whenever the run or its results do: computing a run again writes its results
# and a new finished_at, and a run that is not finished is never kept. ANSWER_VERSION changes
# when the answer's shape does.
ANSWER_VERSION = 6
ANSWER_TIMEOUT_S = 6 * 3600

_RESULTS = RankingResult.objects.select_related("quote_version").order_by(
    F("decision_rank").asc(nulls_last=True), "rank"
)  # the decision's order; the version's VAT terms and confirmed outliers are in each result
_RELATED = (
    Prefetch("results", queryset=_RESULTS),
    Prefetch("quotes", queryset=Quote.objects.only("pk")),  # listed as ids
)


def run_version(run: RankingRun) -> str:
    """What changes when the run or its results change (finished runs only)."""
    stamp = run.finished_at.timestamp() if run.finished_at else 0
    return f"{ANSWER_VERSION}.{run.status}.{stamp:.6f}"


def answer_key(run: RankingRun, part: str, changed: list[int] | None = None) -> str:
    """The cache key of one part of a finished run's answer in the request's language (its
    headline, outlier and evidence texts are in that language) and, for the parts that say
    whether the run is stale, the quotes changed since it priced them."""
    moved = "-".join(str(q) for q in changed) if changed else ""
    if len(moved) > 64:
        moved = hashlib.sha256(moved.encode()).hexdigest()[:16]
    return (f"ranking-api:{run.team_id}:{run.pk}:{run_version(run)}:{part}:{moved}:"
            f"{get_language()}")  # fmt: skip


def _count(model_field: str, **filters: object) -> Subquery:
    """COUNT of a run's related rows as a subquery: one per run of the page, in the page's own
    query (a JOIN with GROUP BY would multiply results by quotes)."""
    related, field = model_field.split(".")
    rows = (RankingResult if related == "results" else RankingRun.quotes.through).objects.filter(
        **{field: OuterRef("pk")}, **filters
    )
    return Subquery(
        rows.order_by().values(field).annotate(n=Count("*")).values("n")[:1],
        output_field=IntegerField(),
    )


_LEADER_FIELDS = (
    "offer_id", "label", "vendor_name", "vendor_name_en", "cost_per_eth", "currency",
    "eligible", "risk_adjusted_cost_per_eth",
)  # fmt: skip


def _leader() -> Subquery:
    """The run's recommended result as a JSON object, in the page's own query (what the summary
    names: its label, vendor and deciding cost)."""
    rows = RankingResult.objects.filter(run=OuterRef("pk"), recommended=True)
    return Subquery(
        rows.values(j=JSONObject(**{f: f for f in _LEADER_FIELDS})).values("j")[:1],
        output_field=JSONField(),
    )


class SummaryPaginator(Paginator):  # type: ignore[type-arg]
    """A page of runs and their total from one query: each row carries the COUNT of every
    filtered row (a window over them, taken before the LIMIT), so the page needs no COUNT
    query of its own. A page past the end (no row to carry it) counts as usual."""

    def page(self, number):  # type: ignore[no-untyped-def]
        try:
            number = int(number)
        except (TypeError, ValueError) as exc:
            raise PageNotAnInteger(_("That page number is not an integer")) from exc
        if number < 1:
            raise EmptyPage(_("That page number is less than 1"))
        bottom = (number - 1) * self.per_page
        rows = list(self.object_list[bottom : bottom + self.per_page])
        if rows:
            self.__dict__["count"] = rows[0].listed_total  # Paginator.count is cached here
        elif number > 1:
            return super().page(number)  # past the end: EmptyPage, with the usual count
        else:
            self.__dict__["count"] = 0
        return self._get_page(rows, number, self)


class SummaryPagination(PageNumberPagination):
    django_paginator_class = SummaryPaginator


class RankingRunViewSet(TeamScopedViewSet):
    """GET: runs with status, progress and results. POST starts a run (202 with its id)."""

    queryset = RankingRun.objects.order_by("-created_at", "-pk")
    serializer_class = s.RankingRunSerializer
    http_method_names = ["get", "post", "head", "options"]
    filterset_fields = ["status", "workload"]

    @property
    def paginator(self):  # type: ignore[no-untyped-def]
        if not hasattr(self, "_paginator"):
            kind = SummaryPagination if self.action == "list" else PageNumberPagination
            self._paginator = kind()
        return self._paginator

    def get_serializer_class(self):  # type: ignore[no-untyped-def]
        if self.action == "list":
            return s.RankingRunSummarySerializer
        if self.action == "results":
            return s.RankingResultSerializer
        return super().get_serializer_class()

    def get_queryset(self):  # type: ignore[no-untyped-def]
        qs = super().get_queryset()
        if self.action == "list":
            # the page of runs: what names a run's version, and the total of the filtered runs
            # in each row (SummaryPaginator); the summaries come from the cache or _summaries
            return qs.only(
                "pk", "team_id", "status", "finished_at", "created_at", "priced_versions"
            ).annotate(listed_total=Window(Count("*")))
        # the snapshot (every offer's inputs) and the stored page are not part of the answer
        qs = qs.defer("snapshot", "page_data")
        return qs.annotate(saved_tax_basis=KT("snapshot__tax_basis"))  # the run's money basis

    def _summaries(
        self, ids: list[int], changed: dict[int, list[int]]
    ) -> dict[int, dict[str, Any]]:
        """The summaries of these runs, from one query: their counts and recommended offer as
        subqueries; no result rows, quote ids or problems."""
        qs = (
            RankingRun.objects.filter(pk__in=ids)
            .defer("snapshot", "page_data", "problems", "standings", "priced_versions")
            .annotate(
                saved_tax_basis=KT("snapshot__tax_basis"),
                results_count=Coalesce(_count("results.run"), 0),
                eligible_count=Coalesce(_count("results.run", eligible=True), 0),
                quotes_count=Coalesce(_count("quotes.rankingrun"), 0),
                leader=_leader(),
            )
        )
        runs = list(qs)
        context = {**self.get_serializer_context(), "changed": changed}
        data = self.get_serializer_class()(runs, many=True, context=context).data
        return {run.pk: row for run, row in zip(runs, data, strict=True)}

    def list(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        """A page of run summaries. A finished run's summary is kept in the cache under its
        version (as its whole answer is): a page reads the runs' versions, then the cache."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        changed = changed_quote_ids(page)  # live: a quote may change any time (one query)
        keys = {run.pk: answer_key(run, "summary", changed.get(run.pk))
                for run in page if run.is_finished}  # fmt: skip
        kept = cache.get_many(list(keys.values())) if keys else {}
        missing = [run.pk for run in page if keys.get(run.pk) not in kept]
        made = self._summaries(missing, changed) if missing else {}
        if made:
            fresh = {keys[pk]: row for pk, row in made.items() if pk in keys}
            cache.set_many(fresh, timeout=ANSWER_TIMEOUT_S)
        rows = [made[run.pk] if run.pk in made else kept[keys[run.pk]] for run in page]
        return self.get_paginated_response(rows)

    @extend_schema(responses=s.RankingRunSerializer)
    def retrieve(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        """The run with every result. A finished run's answer is rendered once per version and
        language and kept in the cache (shared by every worker)."""
        run = self.get_object()
        renderer = request.accepted_renderer
        media = request.accepted_media_type
        plain = type(renderer) is JSONRenderer and media == renderer.media_type
        changed = changed_quote_ids([run])  # live: a quote may change any time (one query)
        context = {**self.get_serializer_context(), "changed": changed}
        if not run.is_finished or not plain:
            # a run still computing (its progress moves), or the browsable API / indented JSON
            prefetch_related_objects([run], *_RELATED)
            return Response(self.get_serializer_class()(run, context=context).data)
        key = answer_key(run, "run", changed.get(run.pk))
        body = cache.get(key)
        if body is None:
            prefetch_related_objects([run], *_RELATED)
            data = self.get_serializer_class()(run, context=context).data
            body = renderer.render(data, renderer.media_type)
            cache.set(key, body, timeout=ANSWER_TIMEOUT_S)
        return HttpResponse(body, content_type=renderer.media_type)

    @extend_schema(responses=s.RankingResultSerializer(many=True))
    @action(detail=True, methods=["get"])
    def results(self, request, pk=None):  # type: ignore[no-untyped-def]
        """The run's results in the decision's order (eligible offers by their rank, excluded
        ones after them), paginated (`page`); a finished run's pages are kept in the cache."""
        run = self.get_object()
        number = request.query_params.get(self.paginator.page_query_param, "1")
        # the page's links name the host it was asked on; a page that is not a number is
        # answered by the paginator (404), never kept
        kept = run.is_finished and number.isdigit() and len(number) < 8
        key = answer_key(run, f"results:{int(number) if kept else 0}:{request.get_host()}")
        key = key if kept else None
        data = cache.get(key) if key else None
        if data is None:
            page = self.paginate_queryset(_RESULTS.filter(run=run))
            data = self.get_paginated_response(self.get_serializer(page, many=True).data).data
            if key:
                cache.set(key, data, timeout=ANSWER_TIMEOUT_S)
        return Response(data)

    @extend_schema(
        request=s.RankingStartSerializer,
        responses={202: s.RankingStartedSerializer, 503: s.QueueUnavailableSerializer},
    )
    def create(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        team = self.get_team()
        data = s.RankingStartSerializer(data=request.data, context={"team": team})
        data.is_valid(raise_exception=True)
        d = data.validated_data
        run = ranking_start(
            team=team, user=request.user, workload=d["workload"],
            quotes=d.get("quotes") or None, fx_to_cny=d.get("fx_to_cny"), label=d.get("label", ""),
        )  # fmt: skip
        body = {"id": run.pk, "status": run.status, "url": f"/api/v1/rankings/{run.pk}/"}
        if was_unqueued(run):  # kept pending; core.tasks.requeue_stale_jobs sends it later
            body.update(unavailable_body(get_language()))
            return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(body, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        request=s.ScenarioSerializer,
        responses={201: s.RankingStartedSerializer, 503: s.QueueUnavailableSerializer},
    )
    @action(detail=True, methods=["post"])
    def scenario(self, request, pk=None):  # type: ignore[no-untyped-def]
        """Save a what-if as a new ranking run: the page's "save as a new ranking run" (same
        code, rankings/whatif.py). 201 with the new run; analysts and admins only."""
        run = self.get_object()
        data = s.ScenarioSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        snapshot = run.snapshot  # deferred in the list: loaded here
        if not snapshot:
            return Response(
                {"detail": _("This run has no inputs to start a scenario from.")},
                status=status.HTTP_400_BAD_REQUEST,
            )
        scenario = scenario_from(data.validated_data.get("controls") or {}, snapshot)
        new = ranking_start_scenario(run=run, user=request.user, scenario=scenario)
        body = {"id": new.pk, "status": new.status, "url": f"/api/v1/rankings/{new.pk}/"}
        if was_unqueued(new):
            body.update(unavailable_body(get_language()))
            return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(body, status=status.HTTP_201_CREATED)
