from __future__ import annotations

from django.core.cache import cache
from django.db.models import F, Prefetch, prefetch_related_objects
from django.db.models.fields.json import KT
from django.http import HttpResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from core.api import TeamScopedViewSet
from core.queue import unavailable_body, was_unqueued
from quotes.models import Quote

from ..models import RankingResult, RankingRun
from ..services import ranking_start
from ..whatif import ranking_start_scenario, scenario_from
from . import serializers as s

# The JSON of finished runs' answers as last sent by this process (a few, newest last): a
# finished run's answer never changes under its key, and a ranking of 50 offers is ~400 KB
# that re-encoding (or unpickling from the cache) took longer than the rest of the request.
_BODIES: dict[str, bytes] = {}
_BODIES_MAX = 8

_RELATED = (
    Prefetch(
        "results",
        # the version's VAT terms and confirmed outliers are part of each result's answer
        queryset=RankingResult.objects.select_related("quote_version").order_by(
            F("decision_rank").asc(nulls_last=True), "rank"
        ),
    ),
    Prefetch("quotes", queryset=Quote.objects.only("pk")),  # listed as ids
)


class RankingRunViewSet(TeamScopedViewSet):
    """GET: runs with status, progress and results. POST starts a run (202 with its id)."""

    queryset = RankingRun.objects.order_by("-created_at", "-pk")
    serializer_class = s.RankingRunSerializer
    http_method_names = ["get", "post", "head", "options"]
    filterset_fields = ["status", "workload"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        # the snapshot (every offer's inputs) and the stored page are not part of the answer
        qs = super().get_queryset().defer("snapshot", "page_data")
        qs = qs.annotate(saved_tax_basis=KT("snapshot__tax_basis"))  # the run's money basis
        return qs if self.action == "retrieve" else qs.prefetch_related(*_RELATED)

    def retrieve(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        """A finished run no longer changes (computing it again gives it a new finished_at):
        its answer is serialised once and kept in the cache."""
        run = self.get_object()
        if not run.is_finished:
            prefetch_related_objects([run], *_RELATED)
            return Response(self.get_serializer(run).data)
        stamp = run.finished_at.timestamp() if run.finished_at else 0
        # the headline and outlier messages are in the request's language
        key = f"ranking-api:v4:{run.team_id}:{run.pk}:{run.status}:{stamp}:{get_language()}"
        renderer = request.accepted_renderer
        if type(renderer) is not JSONRenderer or request.accepted_media_type != renderer.media_type:
            # the browsable API or an indented JSON: rendered as usual
            prefetch_related_objects([run], *_RELATED)
            return Response(self.get_serializer(run).data)
        body = _BODIES.get(key) or cache.get(key)
        if body is None:
            prefetch_related_objects([run], *_RELATED)
            body = renderer.render(self.get_serializer(run).data, renderer.media_type)
            cache.set(key, body, timeout=6 * 3600)
        if key not in _BODIES:
            if len(_BODIES) >= _BODIES_MAX:
                _BODIES.pop(next(iter(_BODIES)))
            _BODIES[key] = body
        return HttpResponse(body, content_type=renderer.media_type)

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
