from __future__ import annotations

from django.db import transaction
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from core.api import TeamScopedViewSet

from .. import concurrency as cc
from ..filters import VendorFilter
from ..models import Certification, DataCentre, IcpFiling, Licence, NetworkProfile, SlaTerms, Vendor
from ..selectors import vendor_prefetch
from ..services import vendor_child_delete, vendor_child_save, vendor_delete, vendor_save
from . import serializers as s


class VendorViewSet(TeamScopedViewSet):
    queryset = Vendor.objects.all().order_by("name_zh", "name_en", "pk")
    # The list page's FilterSet (vendors.filters): the same parameters give the same rows.
    filterset_class = VendorFilter
    ordering_fields = ["name_zh", "name_en", "findings_critical", "founded_year"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        qs = super().get_queryset()
        return vendor_prefetch(qs) if self.action == "retrieve" else qs

    def get_serializer_class(self):  # type: ignore[no-untyped-def]
        return s.VendorDetailSerializer if self.action == "retrieve" else s.VendorSerializer

    def perform_create(self, serializer) -> None:  # type: ignore[no-untyped-def]
        with transaction.atomic():
            vendor = Vendor(**serializer.validated_data)
            serializer.instance = vendor_save(vendor=vendor, team=self.get_team())

    def perform_update(self, serializer) -> None:  # type: ignore[no-untyped-def]
        with transaction.atomic():
            vendor = serializer.instance
            for key, value in serializer.validated_data.items():
                setattr(vendor, key, value)
            serializer.instance = vendor_save(
                vendor=vendor, team=self.get_team(), based_on=self._if_match
            )

    def retrieve(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        vendor = self.get_object()
        data = self.get_serializer(vendor).data
        return Response(data, headers={"ETag": cc.etag(vendor)})  # If-Match of a later write

    def update(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        """PUT / PATCH: an If-Match (the ETag of a GET) is checked against the stored version,
        412 with what changed since when it is stale (as quotes do); without it (or with `*`)
        the change applies to whatever is stored."""
        vendor = self.get_object()  # 404 first
        self._if_match = cc.if_match_stamps(request.headers.get("If-Match"))
        if self._if_match is not None and cc.stamp(vendor) not in self._if_match:
            return self._stale(cc.conflict_for(vendor, self._if_match[-1]))
        try:
            response = super().update(request, *args, **kwargs)
        except cc.VendorConflict as conflict:
            return self._stale(conflict)
        response["ETag"] = cc.etag(Vendor.objects.get(pk=vendor.pk))
        return response

    _if_match: list[str] | None = None

    def _stale(self, conflict: cc.VendorConflict) -> Response:
        current = Vendor.objects.get(pk=conflict.vendor.pk)
        data = s.VendorSerializer(current, context=self.get_serializer_context()).data
        changed = {name: data.get(name) for name in conflict.changed}
        detail = _(
            "The vendor has changed since the version you sent. Nothing was saved: read it "
            "again and reapply your change."
        )
        if changed:
            detail += " " + _("Changed since: %(fields)s.") % {"fields": ", ".join(changed)}
        return Response(
            {"detail": detail, "code": "stale_version", "changed": changed},
            status=status.HTTP_412_PRECONDITION_FAILED,
            headers={"ETag": cc.etag(current)},
        )

    def perform_destroy(self, instance) -> None:  # type: ignore[no-untyped-def]
        vendor_delete(vendor=instance)  # with its cascade's uploaded files, after the commit


def _require_integer_path_ids(kwargs: dict) -> None:  # type: ignore[type-arg]
    """The nested routes accept any path segment; a non-number id is a 404, not a 500."""
    for name in ("vendor_pk", "datacentre_pk"):
        value = kwargs.get(name)
        if value is not None and not (str(value).isascii() and str(value).isdigit()):
            raise NotFound(_("No such vendor or data centre: %(id)s.") % {"id": value})


VENDOR_PK = OpenApiParameter("vendor_pk", int, OpenApiParameter.PATH)
DC_PK = OpenApiParameter("datacentre_pk", int, OpenApiParameter.PATH)


class _VendorChildViewSet(TeamScopedViewSet):
    """Nested under /vendors/{vendor_pk}/…; the vendor must belong to the caller's team."""

    team_path = "vendor__team"
    parent_field = "vendor"

    def _vendor(self) -> Vendor:
        return get_object_or_404(
            Vendor.objects.for_team(self.get_team()), pk=self.kwargs["vendor_pk"]
        )

    def initial(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().initial(request, *args, **kwargs)
        _require_integer_path_ids(self.kwargs)
        if "vendor_pk" in self.kwargs:  # absent only during schema generation
            self._vendor()  # 404 for another team's vendor, before any list or write

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return super().get_queryset().filter(vendor_id=self.kwargs.get("vendor_pk"))

    def perform_create(self, serializer) -> None:  # type: ignore[no-untyped-def]
        vendor = self._vendor()
        instance = serializer.Meta.model(**serializer.validated_data)
        serializer.instance = vendor_child_save(
            instance=instance, vendor=vendor, user=self.request.user
        )

    def perform_update(self, serializer) -> None:  # type: ignore[no-untyped-def]
        instance = serializer.instance
        for key, value in serializer.validated_data.items():
            setattr(instance, key, value)
        serializer.instance = vendor_child_save(
            instance=instance, vendor=self._vendor(), user=self.request.user
        )

    def perform_destroy(self, instance) -> None:  # type: ignore[no-untyped-def]
        vendor_child_delete(instance=instance, vendor=self._vendor())


@extend_schema(tags=["vendors"], parameters=[VENDOR_PK])
class LicenceViewSet(_VendorChildViewSet):
    queryset = Licence.objects.select_related("verified_by").order_by("pk")
    serializer_class = s.LicenceSerializer


@extend_schema(tags=["vendors"], parameters=[VENDOR_PK])
class IcpFilingViewSet(_VendorChildViewSet):
    queryset = IcpFiling.objects.select_related("verified_by").order_by("pk")
    serializer_class = s.IcpFilingSerializer


@extend_schema(tags=["vendors"], parameters=[VENDOR_PK])
class CertificationViewSet(_VendorChildViewSet):
    queryset = Certification.objects.select_related("verified_by").order_by("pk")
    serializer_class = s.CertificationSerializer


@extend_schema(tags=["vendors"], parameters=[VENDOR_PK])
class DataCentreViewSet(_VendorChildViewSet):
    queryset = DataCentre.objects.select_related("network").order_by("pk")
    serializer_class = s.DataCentreSerializer


@extend_schema(tags=["vendors"], parameters=[VENDOR_PK])
class SlaTermsViewSet(_VendorChildViewSet):
    queryset = SlaTerms.objects.order_by("pk")
    serializer_class = s.SlaTermsSerializer


@extend_schema(tags=["vendors"], parameters=[VENDOR_PK, DC_PK])
class NetworkProfileViewSet(TeamScopedViewSet):
    """/vendors/{vendor_pk}/data-centres/{datacentre_pk}/network/"""

    team_path = "data_centre__vendor__team"
    queryset = NetworkProfile.objects.select_related("data_centre").order_by("pk")
    serializer_class = s.NetworkProfileSerializer

    def _dc(self) -> DataCentre:
        return get_object_or_404(
            DataCentre.objects.select_related("vendor"),
            pk=self.kwargs["datacentre_pk"],
            vendor_id=self.kwargs["vendor_pk"],
            vendor__team=self.get_team(),
        )

    def initial(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().initial(request, *args, **kwargs)
        _require_integer_path_ids(self.kwargs)
        if "datacentre_pk" in self.kwargs:
            self._dc()

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return (
            super()
            .get_queryset()
            .filter(
                data_centre_id=self.kwargs.get("datacentre_pk"),
                data_centre__vendor_id=self.kwargs.get("vendor_pk"),
            )
        )

    def perform_create(self, serializer) -> None:  # type: ignore[no-untyped-def]
        dc = self._dc()
        instance = NetworkProfile(data_centre=dc, **serializer.validated_data)
        serializer.instance = vendor_child_save(
            instance=instance, vendor=dc.vendor, user=self.request.user
        )

    def perform_update(self, serializer) -> None:  # type: ignore[no-untyped-def]
        dc = self._dc()
        instance = serializer.instance
        for key, value in serializer.validated_data.items():
            setattr(instance, key, value)
        serializer.instance = vendor_child_save(
            instance=instance, vendor=dc.vendor, user=self.request.user
        )

    def perform_destroy(self, instance) -> None:  # type: ignore[no-untyped-def]
        vendor_child_delete(instance=instance, vendor=self._dc().vendor)
