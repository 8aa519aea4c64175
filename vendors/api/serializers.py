from __future__ import annotations

from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _
from rest_framework import serializers

from core.compensation import schedule_errors, schedule_normalised
from core.serializer_cache import CachedListSerializer
from core.shapes import StoredShape
from domain import plausibility

from ..models import Certification, DataCentre, IcpFiling, Licence, NetworkProfile, SlaTerms, Vendor
from ..selectors import vendor_findings
from ..validators import plausibility_errors


class PlausibleSerializerMixin(serializers.Serializer):
    """The vendor forms' bounds (domain/plausibility.py) on the API: a hard bound is a field error,
    soft-bound values need `confirm_outliers: true` (the answer lists them)."""

    confirm_outliers = serializers.BooleanField(write_only=True, required=False, default=False)

    def validate(self, attrs):  # type: ignore[no-untyped-def]
        attrs = super().validate(attrs)
        confirmed = attrs.pop("confirm_outliers", False)
        kind = self.Meta.model._meta.model_name  # type: ignore[attr-defined]

        def get(name):  # type: ignore[no-untyped-def]
            return attrs[name] if name in attrs else getattr(self.instance, name, None)

        errors, warnings = plausibility_errors(kind, get)
        if errors:
            raise serializers.ValidationError(errors)
        if warnings and not confirmed:
            lang = get_language()
            raise serializers.ValidationError({
                "confirm_outliers": [plausibility.CONFIRM_NEEDED.text(lang)],
                "outliers": [{**w.as_dict(), "message": w.message.text(lang)} for w in warnings],
            })  # fmt: skip
        return attrs


VERIFY_READONLY = ("verified_by", "verified_at")


class _ChildSerializer(serializers.ModelSerializer):
    """Runs the model's own clean() so API and forms share one set of rules."""

    def validate(self, attrs):  # type: ignore[no-untyped-def]
        attrs = super().validate(attrs)
        instance = self.instance or self.Meta.model()
        for key, value in attrs.items():
            setattr(instance, key, value)
        instance.clean()
        return attrs


class LicenceSerializer(_ChildSerializer):
    class Meta:
        model = Licence
        exclude = ("vendor", "evidence")
        read_only_fields = VERIFY_READONLY


class IcpFilingSerializer(_ChildSerializer):
    class Meta:
        model = IcpFiling
        exclude = ("vendor", "evidence")
        read_only_fields = VERIFY_READONLY


class CertificationSerializer(_ChildSerializer):
    class Meta:
        model = Certification
        exclude = ("vendor", "evidence")
        read_only_fields = VERIFY_READONLY


class NetworkProfileSerializer(PlausibleSerializerMixin, _ChildSerializer):
    class Meta:
        model = NetworkProfile
        exclude = ("data_centre", "evidence")
        read_only_fields = VERIFY_READONLY


class DataCentreSerializer(PlausibleSerializerMixin, _ChildSerializer):
    network = NetworkProfileSerializer(read_only=True, allow_null=True)  # none entered yet

    class Meta:
        model = DataCentre
        exclude = ("vendor", "evidence")
        read_only_fields = VERIFY_READONLY


class SlaTermsSerializer(PlausibleSerializerMixin, _ChildSerializer):
    """`credits` is the vendor's own wording; `schedule` the same structured compensation
    schedule as a contract's (`{}`: none entered), checked by the same rules and stored in their
    normalised shape. A contract made from this vendor's quote or award starts from it."""

    schedule = serializers.JSONField(required=False)

    class Meta:
        model = SlaTerms
        exclude = ("vendor", "evidence")
        read_only_fields = VERIFY_READONLY

    def validate_schedule(self, value: Any) -> Any:
        problems = schedule_errors(value)
        if problems:
            raise serializers.ValidationError(problems)
        return schedule_normalised(value)


class FindingSerializer(serializers.Serializer):
    code = serializers.CharField()
    severity = serializers.CharField()
    subject = serializers.CharField()
    message = serializers.CharField()
    message_en = serializers.CharField()
    message_zh = serializers.CharField()

    def to_representation(self, finding):  # type: ignore[no-untyped-def]
        return {
            "code": finding.code,
            "severity": str(finding.severity),
            "subject": finding.subject,
            "message": finding.message.text(get_language()),
            "message_en": finding.message.en,
            "message_zh": finding.message.zh,
        }


class VendorSerializer(PlausibleSerializerMixin, serializers.ModelSerializer):
    services = serializers.ListField(
        child=serializers.CharField(max_length=32),
        required=False,
        validators=[StoredShape("vendors.schemas.SERVICES")],
    )

    class Meta:
        model = Vendor
        exclude = ("team", "finding_codes")
        read_only_fields = (
            "findings_critical",
            "findings_warning",
            "findings_total",
            "findings_checked_at",
            "is_demo",
            "created_at",
            "updated_at",
        )
        # each unchanged row's answer kept in the cache (it is the row's own columns only)
        list_serializer_class = CachedListSerializer

    def validate(self, attrs):  # type: ignore[no-untyped-def]
        name_zh = attrs.get("name_zh", getattr(self.instance, "name_zh", ""))
        name_en = attrs.get("name_en", getattr(self.instance, "name_en", ""))
        if not (name_zh or name_en):
            raise serializers.ValidationError(
                {"name_zh": _("Enter the vendor's legal name in Chinese or in English.")}
            )
        return super().validate(attrs)


class VendorDetailSerializer(VendorSerializer):
    licences = LicenceSerializer(many=True, read_only=True)
    icp_filings = IcpFilingSerializer(many=True, read_only=True)
    certifications = CertificationSerializer(many=True, read_only=True)
    data_centres = DataCentreSerializer(many=True, read_only=True)
    sla = SlaTermsSerializer(read_only=True, allow_null=True)  # none entered yet
    findings = serializers.SerializerMethodField()

    def get_findings(self, vendor) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
        return FindingSerializer(vendor_findings(vendor), many=True).data
