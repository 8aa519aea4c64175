from __future__ import annotations

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import viewsets
from rest_framework.exceptions import ValidationError

from accounts.middleware import request_membership
from accounts.permissions import TeamRolePermission
from core.api import TeamScopedViewSet
from core.api_schema import PortalAutoSchema

from ..choices import Fabric
from ..models import GpuModel, Quote, WorkloadProfile
from ..services import quote_create, quote_update, workload_create, workload_update
from . import serializers as s


class QuoteFilter(django_filters.FilterSet):
    fabric = django_filters.ChoiceFilter(
        choices=Fabric.choices, field_name="current_version__fabric"
    )
    gpu = django_filters.CharFilter(field_name="current_version__gpu__key")
    min_nic_gbps = django_filters.NumberFilter(
        field_name="current_version__nic_gbps", lookup_expr="gte", min_value=0
    )
    measured = django_filters.BooleanFilter(
        field_name="measured_gbps", lookup_expr="isnull", exclude=True,
        label="true: only quotes with measured bandwidth; false: only claimed bandwidth",
    )  # fmt: skip

    class Meta:
        model = Quote
        fields = ["vendor", "is_current", "fabric", "gpu", "min_nic_gbps", "measured"]


def _flat(validated: dict) -> dict:  # type: ignore[type-arg]
    data = dict(validated)
    data.update(data.pop("current_version", None) or {})
    return data


class QuoteViewSet(TeamScopedViewSet):
    queryset = Quote.objects.select_related("current_version__gpu").order_by("pk")
    serializer_class = s.QuoteSerializer
    filterset_class = QuoteFilter
    search_fields = ["label", "vendor__name_zh", "vendor__name_en"]
    ordering_fields = ["pk", "label", "measured_gbps", "updated_at", "current_version__nic_gbps"]

    def get_serializer_context(self):  # type: ignore[no-untyped-def]
        return {**super().get_serializer_context(), "team": self.get_team()}

    def perform_create(self, serializer) -> None:  # type: ignore[no-untyped-def]
        try:
            serializer.instance = quote_create(
                team=self.get_team(), user=self.request.user, data=_flat(serializer.validated_data)
            )
        except DjangoValidationError as exc:
            raise ValidationError({"terms": exc.message_dict}) from exc

    def perform_update(self, serializer) -> None:  # type: ignore[no-untyped-def]
        try:
            quote_update(
                quote=serializer.instance, user=self.request.user,
                data=_flat(serializer.validated_data),
            )  # fmt: skip
        except DjangoValidationError as exc:
            raise ValidationError({"terms": exc.message_dict}) from exc
        serializer.instance.refresh_from_db()


class WorkloadProfileViewSet(TeamScopedViewSet):
    queryset = WorkloadProfile.objects.order_by("name", "pk")
    serializer_class = s.WorkloadProfileSerializer
    filterset_fields = ["strategy", "preset"]

    def perform_create(self, serializer) -> None:  # type: ignore[no-untyped-def]
        serializer.instance = workload_create(team=self.get_team(), data=serializer.validated_data)

    def perform_update(self, serializer) -> None:  # type: ignore[no-untyped-def]
        workload_update(workload=serializer.instance, data=serializer.validated_data)


class _TeamMember(TeamRolePermission):
    """Any team member reads the shared table (its rows belong to no team)."""

    def has_object_permission(self, request, view, obj) -> bool:  # type: ignore[no-untyped-def]
        return request_membership(request) is not None


class GpuModelViewSet(viewsets.ReadOnlyModelViewSet):
    """The shared GPU reference table (read-only; staff edit it in the admin)."""

    permission_classes = [_TeamMember]
    schema = PortalAutoSchema()
    queryset = GpuModel.objects.order_by("key")
    serializer_class = s.GpuModelSerializer
    lookup_field = "key"
    pagination_class = None
