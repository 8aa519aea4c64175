"""Reports API: list and request exports; a run's latest PDF / XLSX as a file."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import get_language
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TeamRolePermission
from core.api import TeamScopedViewSet
from core.models import JobStatus
from core.teams import request_membership
from rankings.models import RankingRun

from ..models import Report
from ..selectors import RUN_BULK, RUN_FIELDS_BULK
from ..services import report_current, report_request
from ..views import report_file_response, waiting_answer
from . import serializers as s


def _can_write(request) -> bool:  # type: ignore[no-untyped-def]
    membership = request_membership(request)
    return bool(membership and membership.can_write)


class ReportViewSet(TeamScopedViewSet):
    """GET: the team's reports. POST {run, kind, language} requests one (202); viewers may only
    read and download."""

    queryset = Report.objects.select_related("run").defer(*RUN_BULK).order_by("-created_at", "-pk")
    serializer_class = s.ReportSerializer
    http_method_names = ["get", "post", "head", "options"]
    filterset_fields = ["run", "kind", "status", "language"]

    @extend_schema(request=s.ReportRequestSerializer, responses={202: s.ReportSerializer})
    def create(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not _can_write(request):
            raise PermissionDenied
        team = self.get_team()
        data = s.ReportRequestSerializer(data=request.data, context={"team": team})
        data.is_valid(raise_exception=True)
        d = data.validated_data
        report = report_request(team=team, user=request.user, run=d["run"], kind=d["kind"],
                                language=d.get("language") or get_language())  # fmt: skip
        report.refresh_from_db()
        return Response(s.ReportSerializer(report).data, status=status.HTTP_202_ACCEPTED)


class RankingReportFileView(APIView):
    """The file of the run's current results in this language once built (200); until then the
    build's job as JSON: 202 while it waits or runs (the first request by an analyst or admin
    starts it: no request builds a file), 409 once it failed, with its reason; POST
    /api/v1/reports/ with the same run, kind and language starts a failed build again. A viewer
    asking for a file nobody has requested yet gets 404."""

    permission_classes = [permissions.IsAuthenticated]
    kind = "pdf"

    def perform_content_negotiation(self, request, force=False):  # type: ignore[no-untyped-def]
        # The answer is a file, whatever the client accepts; errors still render as JSON.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        responses={
            200: OpenApiResponse(description="the file"),
            202: OpenApiResponse(description="the build's job: status, progress"),
            409: OpenApiResponse(description="the build failed: status, error"),
            403: None, 404: None,
        }
    )  # fmt: skip
    def get(self, request, pk: int):  # type: ignore[no-untyped-def]
        membership = request_membership(request)
        if membership is None:  # no team (or a supplier): refused like every other team route
            raise PermissionDenied(TeamRolePermission.message)
        runs = RankingRun.objects.for_team(membership.team).defer(*RUN_FIELDS_BULK)
        run = get_object_or_404(runs, pk=pk)
        if not run.is_finished:
            raise Http404
        language = request.query_params.get("language") or get_language()
        try:
            report = report_current(team=membership.team, run=run, kind=self.kind,
                                    language=language)  # fmt: skip
        except ValidationError as exc:
            raise DRFValidationError(exc.message_dict) from exc
        if report is None:
            if not membership.can_write:
                raise Http404
            report = report_request(team=membership.team, user=request.user, run=run,
                                    kind=self.kind, language=language)  # fmt: skip
        elif report.status == JobStatus.DONE and report.sha256:
            return report_file_response(report)
        return waiting_answer(request, report, title="", as_json=True)
