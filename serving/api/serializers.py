from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import get_language
from rest_framework import serializers

from domain.messages import Message
from quotes.models import Quote

from ..forms import PLAN_FIELDS, WORKLOAD_FIELDS
from ..models import MixedPlan, ServingWorkload, TrafficUpload


class ServingWorkloadSerializer(serializers.ModelSerializer):
    class Meta:
        model = ServingWorkload
        fields = ("id", *WORKLOAD_FIELDS, "created_at")
        read_only_fields = ("id", "created_at")
        validators: list = []  # the service checks (domain messages instead of constraint names)


class MixedPlanSerializer(serializers.ModelSerializer):
    class Meta:
        model = MixedPlan
        fields = ("id", *PLAN_FIELDS, "created_at")
        read_only_fields = ("id", "created_at")
        validators: list = []

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        team = self.context.get("team")
        quotes = Quote.objects.for_team(team) if team else Quote.objects.none()
        self.fields["training_quote"].queryset = quotes
        self.fields["serving_quote"].queryset = quotes
        self.fields["serving_workload"].queryset = (
            ServingWorkload.objects.for_team(team) if team else ServingWorkload.objects.none()
        )


def raise_as_drf(exc: DjangoValidationError) -> None:
    detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
    raise serializers.ValidationError(detail) from exc


class TrafficUploadSerializer(serializers.ModelSerializer):
    """One uploaded month of traffic samples, summarised (the samples themselves stay out).
    `error` and `warnings` carry the reader's messages with their text in the caller's
    language; `bad_rows` lists the first rows it could not read."""

    error = serializers.SerializerMethodField()
    warnings = serializers.SerializerMethodField()

    class Meta:
        model = TrafficUpload
        fields = (
            "id", "original_name", "size_bytes", "sha256", "uploaded_at", "status", "in_use",
            "error", "bad_rows", "warnings", "interval_s", "sample_count", "missing_samples",
            "unit", "first_at", "last_at", "peak_mbps", "p95_mbps", "mean_mbps", "monthly_gb",
        )  # fmt: skip
        read_only_fields = fields

    def get_error(self, row: TrafficUpload) -> dict | None:  # type: ignore[type-arg]
        return _with_text(row.error) if row.error else None

    def get_warnings(self, row: TrafficUpload) -> list[dict]:  # type: ignore[type-arg]
        return [_with_text(w) for w in row.warnings or []]


def _with_text(message: dict) -> dict:  # type: ignore[type-arg]
    return {**message, "text": Message(**message).text(get_language())}


class TrafficFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="One month of samples as CSV (time, Mbit/s).")
