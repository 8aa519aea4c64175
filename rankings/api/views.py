from __future__ import annotations

from django.db.models import Prefetch
from django.utils.translation import get_language
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from core.api import TeamScopedViewSet
from core.queue import unavailable_body, was_unqueued

from ..models import RankingResult, RankingRun
from ..services import ranking_start
from . import serializers as s


class RankingRunViewSet(TeamScopedViewSet):
    """GET: runs with status, progress and results. POST starts a run (202 with its id)."""

    queryset = RankingRun.objects.order_by("-created_at", "-pk")
    serializer_class = s.RankingRunSerializer
    http_method_names = ["get", "post", "head", "options"]
    filterset_fields = ["status", "workload"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        results = Prefetch("results", queryset=RankingResult.objects.order_by("rank"))
        return super().get_queryset().prefetch_related(results, "quotes")

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
