from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import get_language
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from core.api import TeamScopedViewSet
from domain.messages import Message

from ..choices import TrafficStatus
from ..models import MixedPlan, ServingWorkload
from ..selectors import (
    mixed_plan_evaluate,
    plan_dict,
    ranking_dict,
    serving_ranking,
    traffic_uploads,
)
from ..services import (
    mixed_plan_create,
    mixed_plan_update,
    serving_workload_create,
    serving_workload_update,
    traffic_samples_stop_using,
    traffic_upload_create,
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


class _TrafficActions:
    """`…/traffic/`: the measured traffic samples of a workload or a plan.

    GET lists the uploads (newest first, summaries); POST a CSV (`file`, multipart) stores it and
    reads it: 201 when the month is read (its samples are then used by the bills), 400 with the
    reader's message when not (the raw file is kept, as on the page; too large or empty files are
    refused before anything is stored); DELETE goes back to the modelled traffic profile."""

    target_name = ""

    @extend_schema(methods=["GET"], responses={200: s.TrafficUploadSerializer(many=True)})
    @extend_schema(
        methods=["POST"],
        request={"multipart/form-data": s.TrafficFileSerializer},
        responses={201: s.TrafficUploadSerializer},
    )
    @extend_schema(methods=["DELETE"], request=None, responses={204: None})
    @action(
        detail=True, methods=["get", "post", "delete"],
        parser_classes=[MultiPartParser, FormParser],
    )  # fmt: skip
    def traffic(self, request, pk=None):  # type: ignore[no-untyped-def]
        target = self.get_object()  # type: ignore[attr-defined]
        team = self.get_team()  # type: ignore[attr-defined]
        on = {self.target_name: target}
        if request.method == "GET":
            rows = traffic_uploads(team=team, **on)[:50]
            return Response(s.TrafficUploadSerializer(rows, many=True).data)
        if request.method == "DELETE":
            traffic_samples_stop_using(**on)
            return Response(status=status.HTTP_204_NO_CONTENT)
        data = s.TrafficFileSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            row = traffic_upload_create(
                team=team, user=request.user, upload=data.validated_data["file"], **on
            )
        except ValidationError as exc:
            s.raise_as_drf(exc)
        body = s.TrafficUploadSerializer(row).data
        if row.status != TrafficStatus.OK:
            message = Message(**row.error).text(get_language())
            return Response({"file": [message], "upload": body}, status=status.HTTP_400_BAD_REQUEST)
        return Response(body, status=status.HTTP_201_CREATED)


class ServingWorkloadViewSet(_TrafficActions, _ServiceViewSet):
    """Serving workloads; `GET …/ranking/` ranks the team's current quotes for one."""

    queryset = ServingWorkload.objects.order_by("name", "pk")
    serializer_class = s.ServingWorkloadSerializer
    target_name = "workload"

    def create_service(self, *, team, data):  # type: ignore[no-untyped-def]
        return serving_workload_create(team=team, data=data)

    def update_service(self, obj, data):  # type: ignore[no-untyped-def]
        return serving_workload_update(workload=obj, data=data)

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def ranking(self, request, pk=None):  # type: ignore[no-untyped-def]
        workload = self.get_object()
        return Response(ranking_dict(serving_ranking(team=self.get_team(), workload=workload)))


class MixedPlanViewSet(_TrafficActions, _ServiceViewSet):
    """Mixed plans; `GET …/evaluation/` gives the month-by-month cost line."""

    queryset = MixedPlan.objects.select_related(
        "team", "training_quote__vendor", "serving_quote__vendor", "serving_workload"
    ).order_by("name", "pk")
    serializer_class = s.MixedPlanSerializer
    target_name = "plan"

    def create_service(self, *, team, data):  # type: ignore[no-untyped-def]
        return mixed_plan_create(team=team, data=data)

    def update_service(self, obj, data):  # type: ignore[no-untyped-def]
        return mixed_plan_update(plan=obj, data=data)

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def evaluation(self, request, pk=None):  # type: ignore[no-untyped-def]
        return Response(plan_dict(mixed_plan_evaluate(self.get_object())))
