from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from accounts.permissions import TeamRolePermission
from core.api import TeamScopedViewSet
from core.api_schema import PortalAutoSchema
from core.teams import request_membership
from domain import money

from ..filters import QuoteFilter, sorts_by_rent, with_monthly_rent
from ..models import GpuModel, Quote, WorkloadProfile
from ..services import (
    QuoteConflict,
    quote_conflict,
    quote_create,
    quote_delete,
    quote_update,
    workload_create,
    workload_update,
)
from . import concurrency as cc
from . import serializers as s


def _flat(validated: dict) -> dict:  # type: ignore[type-arg]
    data = dict(validated)
    data.update(data.pop("current_version", None) or {})
    return data


class QuoteViewSet(TeamScopedViewSet):
    """Quotes; writes name the revision they are based on (see quotes.api.concurrency)."""

    queryset = Quote.objects.select_related("current_version__gpu").order_by("pk")
    serializer_class = s.QuoteSerializer
    # The list page's FilterSet (quotes.filters): the same parameters give the same rows;
    # ``search=`` and ``sort=`` are its own, ``ordering=`` (DRF's) is kept for older callers.
    filterset_class = QuoteFilter
    ordering_fields = [
        "pk", "label", "measured_typical_gbps", "updated_at", "current_version__nic_gbps",
    ]  # fmt: skip
    schema = cc.QuoteAutoSchema()

    def get_queryset(self):  # type: ignore[no-untyped-def]
        # `rent` (on the team's tax basis, as the page) and `total_gpus`, which the shared
        # FilterSet sorts by (``sort=rent``); not built when the order does not read them
        qs = super().get_queryset()
        if not sorts_by_rent(getattr(self.request, "query_params", None)):
            return qs
        team = self.get_team()
        basis = team.tax_basis if team is not None else money.DEFAULT_TAX_BASIS
        return with_monthly_rent(qs, basis)

    def get_serializer_context(self):  # type: ignore[no-untyped-def]
        return {**super().get_serializer_context(), "team": self.get_team()}

    def list(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        """The page's rows read as values and answered from the cache (s.quote_list_answers:
        the same answer as serialising instances)."""
        qs = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(qs.values_list(*s.LIST_VALUE_COLUMNS))
        if page is None:
            return super().list(request, *args, **kwargs)
        return self.get_paginated_response(
            s.quote_list_answers(list(page), self.get_serializer_context())
        )

    def perform_create(self, serializer) -> None:  # type: ignore[no-untyped-def]
        try:
            serializer.instance = quote_create(
                team=self.get_team(), user=self.request.user, data=_flat(serializer.validated_data)
            )
        except DjangoValidationError as exc:
            raise ValidationError({"terms": exc.message_dict}) from exc

    def create(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = super().create(request, *args, **kwargs)
        response["ETag"] = f'"{response.data["revision"]}"'
        return response

    def retrieve(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        quote = self.get_object()
        return Response(self.get_serializer(quote).data, headers={"ETag": cc.etag(quote)})

    def _stale(self, conflict: QuoteConflict) -> Response:
        current = self.get_queryset().get(pk=conflict.quote.pk)
        return cc.precondition_failed(conflict, self.get_serializer(current).data)

    def update(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        """PUT / PATCH: If-Match required (428), checked against the revision (412) before the
        body and again, atomically, when writing."""
        quote = self.get_object()  # 404 / 403 first
        wanted = cc.if_match(request.headers.get("If-Match"))
        if wanted is None:
            return cc.precondition_required()
        if wanted != cc.ANY and quote.revision not in wanted:
            return self._stale(quote_conflict(quote=quote, based_on=_based_on(wanted)))
        serializer = self.get_serializer(quote, data=request.data, partial=kwargs.get("partial"))
        serializer.is_valid(raise_exception=True)
        try:
            quote_update(
                quote=quote, user=request.user, data=_flat(serializer.validated_data),
                expected_revision=None if wanted == cc.ANY else quote.revision,
            )  # fmt: skip
        except QuoteConflict as conflict:
            return self._stale(conflict)
        except DjangoValidationError as exc:
            raise ValidationError({"terms": exc.message_dict}) from exc
        quote = self.get_queryset().get(pk=quote.pk)
        return Response(self.get_serializer(quote).data, headers={"ETag": cc.etag(quote)})

    def destroy(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        """DELETE: If-Match optional; when sent, only the revision it names is deleted."""
        quote = self.get_object()
        wanted = cc.if_match(request.headers.get("If-Match"))
        expected = None
        if wanted is not None and wanted != cc.ANY:
            if quote.revision not in wanted:
                return self._stale(quote_conflict(quote=quote, based_on=_based_on(wanted)))
            expected = quote.revision
        try:
            quote_delete(quote=quote, expected_revision=expected)
        except QuoteConflict as conflict:
            return self._stale(conflict)
        return Response(status=204)


def _based_on(revisions: list[int]) -> int | None:
    """The revision a stale If-Match was based on (the newest it names), if it names one."""
    return max(revisions) if revisions else None


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
