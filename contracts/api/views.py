from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import TeamScopedViewSet
from core.api_schema import PortalAutoSchema
from core.teams import request_membership

from .. import selectors, services
from ..choices import UploadKind, UploadOrigin
from ..kit import contract_for_token
from ..models import Contract, VendorTrackRecord
from . import serializers as s


class ContractViewSet(TeamScopedViewSet):
    """The team's contracts; another team's contract is a 404.

    Evidence (`uploads/`), incidents, the stored evaluation's breach episodes and credits, and
    the evaluate job hang under each contract."""

    queryset = Contract.objects.select_related("vendor").prefetch_related("servers")
    serializer_class = s.ContractSerializer

    def get_serializer_context(self):  # type: ignore[no-untyped-def]
        return {**super().get_serializer_context(), "team": self.get_team()}

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return super().get_queryset().order_by("-starts_on", "-pk")

    def perform_create(self, serializer):  # type: ignore[no-untyped-def]
        data = dict(serializer.validated_data)
        servers = data.pop("servers", None)
        vendor = data.pop("vendor")
        quote = data.pop("quote", None)
        try:
            with transaction.atomic():
                contract = services.contract_create(
                    team=self.get_team(), user=self.request.user, vendor=vendor,
                    data={**data, "quote": quote},
                )  # fmt: skip
                if servers is not None:
                    services.contract_servers_set(contract=contract, servers=servers)
        except ValidationError as exc:
            s.raise_as_drf(exc)
        serializer.instance = contract

    def perform_update(self, serializer):  # type: ignore[no-untyped-def]
        data = dict(serializer.validated_data)
        servers = data.pop("servers", None)
        for key in ("vendor", "quote"):
            data.pop(key, None)  # a contract's parties do not change
        try:
            with transaction.atomic():
                services.contract_update(contract=serializer.instance, data=data)
                if servers is not None:
                    services.contract_servers_set(contract=serializer.instance, servers=servers)
        except ValidationError as exc:
            s.raise_as_drf(exc)

    @extend_schema(methods=["GET"], responses={200: s.DeliveryUploadSerializer(many=True)})
    @extend_schema(methods=["POST"], request={"multipart/form-data": s.UploadInputSerializer},
                   responses={202: s.DeliveryUploadSerializer})  # fmt: skip
    @action(detail=True, methods=["get", "post"], parser_classes=[MultiPartParser, FormParser])
    def uploads(self, request, pk=None):  # type: ignore[no-untyped-def]
        """GET the evidence files (newest first); POST one (multipart: `file`, `kind`,
        `source_timezone`): 202, the raw file is kept and read by a job whose progress the
        upload row shows."""
        contract = self.get_object()
        if request.method == "GET":
            rows = selectors.contract_uploads(contract)[:100]
            return Response(s.DeliveryUploadSerializer(rows, many=True).data)
        data = s.UploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            row = services.delivery_upload_create(
                contract=contract, user=request.user, upload=data.validated_data["file"],
                kind=data.validated_data["kind"],
                source_timezone=data.validated_data["source_timezone"],
            )  # fmt: skip
        except ValidationError as exc:
            s.raise_as_drf(exc)
        row.refresh_from_db()
        return Response(s.DeliveryUploadSerializer(row).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(methods=["GET"], responses={200: s.IncidentSerializer(many=True)})
    @extend_schema(methods=["POST"], request=s.IncidentSerializer,
                   responses={201: s.IncidentSerializer})  # fmt: skip
    @action(detail=True, methods=["get", "post"])
    def incidents(self, request, pk=None):  # type: ignore[no-untyped-def]
        contract = self.get_object()
        if request.method == "GET":
            rows = selectors.contract_incidents(contract)[:200]
            return Response(s.IncidentSerializer(rows, many=True).data)
        data = s.IncidentSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            row = services.incident_create(contract=contract, data=dict(data.validated_data))
        except ValidationError as exc:
            s.raise_as_drf(exc)
        return Response(s.IncidentSerializer(row).data, status=status.HTTP_201_CREATED)

    def _stored(self, key: str):  # type: ignore[no-untyped-def]
        contract = self.get_object()
        evaluation = selectors.latest_evaluation(contract)
        return Response({
            "evaluation": s.DeliveryEvaluationSerializer(evaluation).data if evaluation else None,
            key: selectors.report_part(evaluation, key),
        })  # fmt: skip

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def breaches(self, request, pk=None):  # type: ignore[no-untyped-def]
        """Breach episodes of the latest evaluation (stored; POST `evaluate/` to refresh)."""
        return self._stored("episodes")

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def credits(self, request, pk=None):  # type: ignore[no-untyped-def]
        """Credits due per clause and month, with claim deadlines, from the latest evaluation."""
        return self._stored("credits")

    @extend_schema(methods=["GET"], responses={200: s.MaintenanceWindowSerializer(many=True)})
    @extend_schema(methods=["POST"], request=s.MaintenanceWindowSerializer,
                   responses={201: s.MaintenanceWindowSerializer})  # fmt: skip
    @action(detail=True, methods=["get", "post"])
    def maintenance(self, request, pk=None):  # type: ignore[no-untyped-def]
        """Agreed maintenance windows: their time counts neither as delivered nor as missed."""
        contract = self.get_object()
        if request.method == "GET":
            rows = contract.maintenance_windows.order_by("starts_at")[:500]
            return Response(s.MaintenanceWindowSerializer(rows, many=True).data)
        data = s.MaintenanceWindowSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            row = services.maintenance_window_create(contract=contract,
                                                     data=dict(data.validated_data))  # fmt: skip
        except ValidationError as exc:
            s.raise_as_drf(exc)
        return Response(s.MaintenanceWindowSerializer(row).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["GET"], responses={200: s.PrometheusSourceSerializer})
    @extend_schema(methods=["PUT"], request=s.PrometheusSourceSerializer,
                   responses={200: s.PrometheusSourceSerializer})  # fmt: skip
    @action(detail=True, methods=["get", "put"])
    def prometheus(self, request, pk=None):  # type: ignore[no-untyped-def]
        """The contract's Prometheus source (404 until one is set with PUT)."""
        contract = self.get_object()
        source = getattr(contract, "prometheus", None)
        if request.method == "GET":
            if source is None:
                return Response({"detail": _("No Prometheus source yet.")}, status=404)
            return Response(s.PrometheusSourceSerializer(source).data)
        data = s.PrometheusSourceSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            source = services.prometheus_source_set(contract=contract, **data.validated_data)
        except ValidationError as exc:
            s.raise_as_drf(exc)
        return Response(s.PrometheusSourceSerializer(source).data)

    @extend_schema(request=None, responses={202: s.PrometheusSourceSerializer})
    @action(detail=True, methods=["post"], url_path="prometheus/pull")
    def prometheus_pull(self, request, pk=None):  # type: ignore[no-untyped-def]
        """Pull the new whole hours now (a job; the source row shows its progress)."""
        contract = self.get_object()
        source = getattr(contract, "prometheus", None)
        if source is None:
            return Response({"detail": _("No Prometheus source yet.")}, status=404)
        services.prometheus_pull_start(source=source)
        source.refresh_from_db()
        return Response(s.PrometheusSourceSerializer(source).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={200: s.KitTokenSerializer})
    @action(detail=True, methods=["post"], url_path="kit/renew")
    def kit_renew(self, request, pk=None):  # type: ignore[no-untyped-def]
        """A new delivery-kit token for the contract (team write role): the old one stops
        working at once. The answer carries the new token and its expiry; the kit scripts
        downloaded from now on carry it."""
        contract = self.get_object()
        services.contract_kit_token_renew(contract=contract)
        return Response(s.KitTokenSerializer(contract).data)

    @extend_schema(request=None, responses={202: s.DeliveryEvaluationSerializer})
    @action(detail=True, methods=["post"])
    def evaluate(self, request, pk=None):  # type: ignore[no-untyped-def]
        """Start the evaluation job over the stored evidence; 202 with the job row."""
        contract = self.get_object()
        row = selectors.pending_evaluation(contract) or services.delivery_evaluate_start(
            contract=contract, user=request.user
        )
        row.refresh_from_db()
        return Response(s.DeliveryEvaluationSerializer(row).data, status=status.HTTP_202_ACCEPTED)


class KitUploadView(APIView):
    """POST a delivery-kit result with the contract's kit token (`Authorization: Kit <token>`).

    Rented servers have no user account: the token names the contract and nothing else; it
    cannot read anything. Wrong token: 401; expired token: 403; each with a message in the
    caller's language (`Accept-Language`)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    parser_classes = [MultiPartParser, FormParser]
    schema = PortalAutoSchema()

    @extend_schema(request={"multipart/form-data": s.KitUploadInputSerializer},
                   responses={202: s.DeliveryUploadSerializer})  # fmt: skip
    def post(self, request):  # type: ignore[no-untyped-def]
        header = request.headers.get("Authorization", "")
        token = header[4:].strip() if header.startswith("Kit ") else ""
        contract, refusal = contract_for_token(token)
        if contract is None:
            code = status.HTTP_403_FORBIDDEN if refusal == "expired" else 401
            text = (_("This delivery kit token has expired; download the kit again from the "
                      "contract page.") if refusal == "expired"
                    else _("This delivery kit token is not valid (send the header "
                           "'Authorization: Kit <token>' from the contract's kit)."))  # fmt: skip
            return Response({"detail": text, "code": f"kit_token_{refusal}"}, status=code)
        data = s.KitUploadInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            row = services.delivery_upload_create(
                contract=contract, user=None, upload=data.validated_data["file"],
                kind=UploadKind.KIT_LOG, origin=UploadOrigin.KIT, source_timezone="UTC",
            )  # fmt: skip
        except ValidationError as exc:
            s.raise_as_drf(exc)
        row.refresh_from_db()
        return Response(s.DeliveryUploadSerializer(row).data, status=status.HTTP_202_ACCEPTED)


class VendorTrackRecordViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Delivery track records of the team's vendors (`?vendor=<id>` for one), stored by the
    evaluate job; the vendor page shows the same rows."""

    serializer_class = s.VendorTrackRecordSerializer
    queryset = VendorTrackRecord.objects.none()
    schema = PortalAutoSchema()
    filter_backends: list = []

    def get_queryset(self):  # type: ignore[no-untyped-def]
        membership = request_membership(self.request)
        if membership is None:
            return VendorTrackRecord.objects.none()
        rows = VendorTrackRecord.objects.filter(team=membership.team).order_by("vendor_id")
        vendor = self.request.query_params.get("vendor")
        if vendor is not None:
            rows = rows.filter(vendor_id=int(vendor)) if vendor.isdigit() else rows.none()
        return rows
