from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from quotes.models import Quote

from ..forms import PLAN_FIELDS, WORKLOAD_FIELDS
from ..models import MixedPlan, ServingWorkload


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
