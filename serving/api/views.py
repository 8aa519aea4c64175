from __future__ import annotations

from django.core.exceptions import ValidationError
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from core.api import TeamScopedViewSet

from ..models import MixedPlan, ServingWorkload
from ..selectors import mixed_plan_evaluate, plan_dict, ranking_dict, serving_ranking
from ..services import (
    mixed_plan_create,
    mixed_plan_update,
    serving_workload_create,
    serving_workload_update,
)
from . import serializers as s


class _ServiceViewSet(TeamScopedViewSet):
    """Create and update go through the app's services, which hold the rules."""

    def get_serializer_context(self):  # type: ignore[no-untyped-def]
        return {**super().get_serializer_context(), "team": self.get_team()}

    def perform_create(self, serializer):  # type: ignore[no-untyped-def]
        try:
            data = dict(serializer.validated_data)
            serializer.instance = self.create_service(team=self.get_team(), data=data)
        except ValidationError as exc:
            s.raise_as_drf(exc)

    def perform_update(self, serializer):  # type: ignore[no-untyped-def]
        try:
            self.update_service(serializer.instance, dict(serializer.validated_data))
        except ValidationError as exc:
            s.raise_as_drf(exc)


class ServingWorkloadViewSet(_ServiceViewSet):
    """Serving workloads; `GET …/ranking/` ranks the team's current quotes for one."""

    queryset = ServingWorkload.objects.order_by("name", "pk")
    serializer_class = s.ServingWorkloadSerializer

    def create_service(self, *, team, data):  # type: ignore[no-untyped-def]
        return serving_workload_create(team=team, data=data)

    def update_service(self, obj, data):  # type: ignore[no-untyped-def]
        return serving_workload_update(workload=obj, data=data)

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def ranking(self, request, pk=None):  # type: ignore[no-untyped-def]
        workload = self.get_object()
        return Response(ranking_dict(serving_ranking(team=self.get_team(), workload=workload)))


class MixedPlanViewSet(_ServiceViewSet):
    """Mixed plans; `GET …/evaluation/` gives the month-by-month cost line."""

    queryset = MixedPlan.objects.select_related(
        "training_quote__vendor", "serving_quote__vendor", "serving_workload"
    ).order_by("name", "pk")
    serializer_class = s.MixedPlanSerializer

    def create_service(self, *, team, data):  # type: ignore[no-untyped-def]
        return mixed_plan_create(team=team, data=data)

    def update_service(self, obj, data):  # type: ignore[no-untyped-def]
        return mixed_plan_update(plan=obj, data=data)

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def evaluation(self, request, pk=None):  # type: ignore[no-untyped-def]
        return Response(plan_dict(mixed_plan_evaluate(self.get_object())))
