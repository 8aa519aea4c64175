from __future__ import annotations

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import get_language
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.permissions import TeamRolePermission
from core.api import TeamScopedViewSet
from core.api_schema import PortalAutoSchema
from core.queue import unavailable_body, was_unqueued
from core.teams import request_membership
from vendors.models import Vendor

from .. import selectors
from ..choices import TestKind, Verdict
from ..models import BenchmarkLog, TestRun
from ..services import (
    benchmark_ingest,
    test_run_create,
    test_run_delete,
    test_run_update,
    thresholds_update,
)
from ..trust import origin_for
from . import serializers as s


class BenchmarkLogFilter(django_filters.FilterSet):
    test_kind = django_filters.ChoiceFilter(choices=TestKind.choices)
    verdict = django_filters.ChoiceFilter(choices=Verdict.choices)
    # A model choice (scoped to the team by core.filters): a vendor id that is not the team's
    # is refused like a missing one.
    vendor = django_filters.ModelChoiceFilter(
        field_name="test_run__vendor", queryset=Vendor.objects.all()
    )

    class Meta:
        model = BenchmarkLog
        fields = ["test_run", "status", "tool", "test_kind", "verdict", "is_archive", "sha256"]


class TestRunFilter(django_filters.FilterSet):
    class Meta:
        model = TestRun
        fields = ["vendor", "data_centre", "quote", "status", "verdict", "fabric"]


def _team(request):  # type: ignore[no-untyped-def]
    membership = request_membership(request)
    return membership.team if membership else None


class BenchmarkLogViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Uploaded logs: list and detail; POST (multipart) uploads files into a test run."""

    queryset = BenchmarkLog.objects.all().order_by("-uploaded_at", "-pk")
    filterset_class = BenchmarkLogFilter
    permission_classes = [TeamRolePermission]
    parser_classes = [MultiPartParser, FormParser]
    schema = PortalAutoSchema()
    search_fields = ["original_name", "sha256"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        qs = selectors.benchmark_log_list(team=_team(self.request)).order_by("-uploaded_at", "-pk")
        # the result (every interval) is never read whole: the detail answers its summary
        return qs.defer("result") if self.action in ("retrieve", "intervals") else qs

    @extend_schema(responses={200: s.IntervalPageSerializer})
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def intervals(self, request, pk=None):  # type: ignore[no-untyped-def]
        """One page (``?page=``, INTERVALS_PER_PAGE rows) of the log's interval table: number,
        start and end time, total and per-stream Gbit/s; only that page is read."""
        log = self.get_object()
        table = selectors.log_interval_page(log, request.GET.get("page"))
        if table is None:
            empty = {"count": 0, "page": 1, "pages": 1, "next": None, "previous": None}
            return Response({**empty, "streams": [], "results": []})
        page = table.page
        url = request.build_absolute_uri()
        return Response({
            "count": page.paginator.count, "page": page.number,
            "pages": page.paginator.num_pages,
            "next": replace_query_param(url, "page", page.next_page_number())
            if page.has_next() else None,
            "previous": replace_query_param(url, "page", page.previous_page_number())
            if page.has_previous() else None,
            "streams": table.streams,
            "results": [
                {"interval": n, "start_s": a, "end_s": b, "gbps": g, "stream_gbps": per}
                for n, a, b, g, per in table.rows
            ],
        })  # fmt: skip

    def get_serializer_class(self):  # type: ignore[no-untyped-def]
        if self.action == "create":
            return s.UploadSerializer
        return (
            s.BenchmarkLogDetailSerializer
            if self.action == "retrieve"
            else s.BenchmarkLogSerializer
        )

    @extend_schema(
        request=s.UploadSerializer,
        responses={201: s.UploadResultSerializer, 503: s.UploadQueueUnavailableSerializer},
    )
    def create(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        # The input is built field by field: copying request.data deep-copies every uploaded
        # file, and a file over FILE_UPLOAD_MAX_MEMORY_SIZE (an open temporary file) cannot be.
        files = request.FILES.getlist("files") or request.FILES.getlist("file")
        upload = s.UploadSerializer(
            data={
                "test_run": request.data.get("test_run"),
                "files": files,
                "witnessed": request.data.get("witnessed") or False,
            },
            context={"request": request},
        )
        upload.is_valid(raise_exception=True)
        team = _team(request)
        created, duplicates, refusals, errors = [], [], [], []
        for f in upload.validated_data["files"]:
            try:
                outcome = benchmark_ingest(
                    team=team,
                    user=request.user,
                    test_run=upload.validated_data["test_run"],
                    upload=f,
                    origin=origin_for(request.user, via="api"),
                    witnessed=upload.validated_data["witnessed"],
                )
            except DjangoValidationError as exc:
                errors.append({"file": f.name, "detail": " ".join(exc.messages)})
                continue
            created += outcome.created
            duplicates += outcome.duplicates
            refusals += outcome.refusals
        unqueued = was_unqueued(*created)
        for row in created:
            row.refresh_from_db()
        body = s.UploadResultSerializer(
            {"created": created, "duplicates": duplicates, "refusals": refusals, "errors": errors}
        ).data
        if errors and not created and not duplicates:
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        if unqueued:  # stored and pending; core.tasks.requeue_stale_jobs sends it
            body = {**body, **unavailable_body(get_language())}
            return Response(body, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(body, status=status.HTTP_201_CREATED)


class TestRunViewSet(TeamScopedViewSet):
    """Concurrent test runs: CRUD; summary fields are read-only, recomputed by the service."""

    queryset = TestRun.objects.all()
    serializer_class = s.TestRunSerializer
    filterset_class = TestRunFilter
    permission_classes = [TeamRolePermission]
    search_fields = ["name", "notes"]
    ordering_fields = ["created_at", "tail_p5_gbps", "aggregate_gbps"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return (
            super()
            .get_queryset()
            .select_related("vendor", "data_centre")
            .order_by("-created_at", "-pk")
        )

    def perform_create(self, serializer) -> None:  # type: ignore[no-untyped-def]
        serializer.instance = test_run_create(
            team=self.get_team(), user=self.request.user, **serializer.validated_data
        )

    def perform_update(self, serializer) -> None:  # type: ignore[no-untyped-def]
        serializer.instance = test_run_update(
            run=serializer.instance, team=self.get_team(), **serializer.validated_data
        )

    def perform_destroy(self, instance) -> None:  # type: ignore[no-untyped-def]
        test_run_delete(run=instance)

    @extend_schema(responses={200: s.BenchmarkLogSerializer(many=True)})
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def logs(self, request, pk=None):  # type: ignore[no-untyped-def]
        run = self.get_object()
        return Response(s.BenchmarkLogSerializer(selectors.run_logs(run), many=True).data)


class ThresholdsView(APIView):
    """The team's acceptance thresholds (GET; PUT/PATCH by analysts and admins)."""

    permission_classes = [TeamRolePermission]
    serializer_class = s.ThresholdsSerializer
    schema = PortalAutoSchema()

    @extend_schema(responses=s.ThresholdsSerializer)
    def get(self, request):  # type: ignore[no-untyped-def]
        return Response(s.ThresholdsSerializer(selectors.thresholds_for_team(_team(request))).data)

    @extend_schema(request=s.ThresholdsSerializer, responses=s.ThresholdsSerializer)
    def put(self, request):  # type: ignore[no-untyped-def]
        return self._save(request, partial=False)

    @extend_schema(request=s.ThresholdsSerializer, responses=s.ThresholdsSerializer)
    def patch(self, request):  # type: ignore[no-untyped-def]
        return self._save(request, partial=True)

    def _save(self, request, *, partial: bool):  # type: ignore[no-untyped-def]
        team = _team(request)
        ser = s.ThresholdsSerializer(
            selectors.thresholds_for_team(team), data=request.data, partial=partial
        )
        ser.is_valid(raise_exception=True)
        saved = thresholds_update(team=team, **ser.validated_data)
        return Response(s.ThresholdsSerializer(saved).data)
