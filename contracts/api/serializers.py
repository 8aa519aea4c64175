from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from django.utils.translation import get_language
from rest_framework import serializers

from domain.messages import Message
from quotes.models import Quote
from vendors.models import Vendor

from ..choices import UploadKind
from ..engine import schedule_errors
from ..instants import TermDateTimeSerializerField, negative_fee_message
from ..models import (
    Contract,
    ContractServer,
    DeliveryEvaluation,
    DeliveryUpload,
    Incident,
    MaintenanceWindow,
    PrometheusSource,
    VendorTrackRecord,
)
from ..services import CONTRACT_FIELDS


def raise_as_drf(exc: DjangoValidationError) -> None:
    detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
    raise serializers.ValidationError(detail) from exc


class ServerSerializer(serializers.ModelSerializer):
    class Meta:
        model = ContractServer
        fields = ("hostname", "rack", "leaf")
        extra_kwargs = {"hostname": {"validators": []}}


class ContractSerializer(serializers.ModelSerializer):
    """A contract with its committed figures, schedule and servers. The kit token is not here:
    it is shown on the contract page and inside the kit scripts only."""

    servers = ServerSerializer(many=True, required=False)
    vendor = serializers.PrimaryKeyRelatedField(queryset=Vendor.objects.none())
    quote = serializers.PrimaryKeyRelatedField(
        queryset=Quote.objects.none(), required=False, allow_null=True
    )
    vendor_name = serializers.SerializerMethodField()

    class Meta:
        model = Contract
        fields = ("id", "vendor", "vendor_name", "quote", *CONTRACT_FIELDS, "servers",
                  "created_at", "updated_at")  # fmt: skip
        read_only_fields = ("id", "created_at", "updated_at")
        validators: list = []  # the model's clean says it in the user's language

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        team = self.context.get("team")
        self.fields["vendor"].queryset = Vendor.objects.for_team(team)
        self.fields["quote"].queryset = Quote.objects.for_team(team)

    def get_vendor_name(self, contract: Contract) -> str:
        return str(contract.vendor)

    def validate_monthly_fee(self, value: Any) -> Any:
        if value is not None and value < 0:
            raise serializers.ValidationError(negative_fee_message(), code="negative")
        return value

    def validate_schedule(self, value: Any) -> Any:
        problems = schedule_errors(value)
        if problems:
            raise serializers.ValidationError(problems)
        return value


class _TermTimes(serializers.ModelSerializer):
    """Date-times checked for a far date before DRF's time-zone check (a 400, not a 500)."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.DateTimeField: TermDateTimeSerializerField,
    }


class IncidentSerializer(_TermTimes):
    class Meta:
        model = Incident
        fields = ("id", "kind", "started_at", "ended_at", "hosts", "vendor_ticket", "opened_at",
                  "responded_at", "repaired_at", "description", "created_at")  # fmt: skip
        read_only_fields = ("id", "created_at")
        validators: list = []

    def validate_hosts(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(h, str) for h in value):
            raise serializers.ValidationError(Message(
                "hosts.not_list", "Give the hosts as a list of host names.",
                "主机须为主机名列表。").text(get_language()))  # fmt: skip
        return value


def _with_text(message: dict[str, Any]) -> dict[str, Any]:
    return {**message, "text": Message(**message).text(get_language())}


class DeliveryUploadSerializer(serializers.ModelSerializer):
    """An evidence file and its reading job: status, progress, the reader's notes and refusal
    with their text in the caller's language."""

    notes = serializers.SerializerMethodField()
    error_message = serializers.SerializerMethodField()

    class Meta:
        model = DeliveryUpload
        fields = ("id", "kind", "origin", "original_name", "size_bytes", "sha256",
                  "source_timezone", "uploaded_at", "status", "progress", "error",
                  "error_message", "notes", "window_count", "first_at", "last_at")  # fmt: skip
        read_only_fields = fields

    def get_notes(self, row: DeliveryUpload) -> list[dict[str, Any]]:
        return [_with_text(m) for m in row.notes or []]

    def get_error_message(self, row: DeliveryUpload) -> dict[str, Any] | None:
        return _with_text(row.error_message) if row.error_message else None


class UploadInputSerializer(serializers.Serializer):
    file = serializers.FileField()
    kind = serializers.ChoiceField(choices=UploadKind.choices)
    source_timezone = serializers.CharField(required=False, default="Asia/Shanghai")


class KitUploadInputSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The kit's result file (JSON lines).")


class KitTokenSerializer(serializers.ModelSerializer):
    """The contract's delivery-kit token after a renewal (shown to the team that renewed it)."""

    class Meta:
        model = Contract
        fields = ("kit_token", "kit_token_expires_at")
        read_only_fields = fields


class DeliveryEvaluationSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeliveryEvaluation
        fields = ("id", "status", "progress", "error", "queued_at", "computed_at",
                  "delivered_ratio", "breach_count", "credit_total", "no_data_hours",
                  "measured_hours")  # fmt: skip
        read_only_fields = fields


class VendorTrackRecordSerializer(serializers.ModelSerializer):
    """A vendor's delivery standing with the team: delivered ÷ committed over every measured
    server-hour of its contracts (each hour counted at most at 100 %), breach episodes."""

    sentence = serializers.SerializerMethodField()

    class Meta:
        model = VendorTrackRecord
        fields = ("vendor", "contracts", "measured_hours", "delivered_ratio", "breaches",
                  "sentence", "updated_at")  # fmt: skip
        read_only_fields = fields

    def get_sentence(self, row: VendorTrackRecord) -> str:
        s = (row.record or {}).get("sentence")
        return Message(**s).text(get_language()) if s else ""


class MaintenanceWindowSerializer(_TermTimes):
    class Meta:
        model = MaintenanceWindow
        fields = ("id", "starts_at", "ends_at", "note")
        read_only_fields = ("id",)
        validators: list = []

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["ends_at"] <= attrs["starts_at"]:
            raise serializers.ValidationError(
                {"ends_at": [Message("maintenance_order", "A maintenance window must end after "
                                     "it starts.", "维护窗口的结束时间须晚于开始时间。").text(
                                         get_language())]})  # fmt: skip
        return attrs


class PrometheusSourceSerializer(serializers.ModelSerializer):
    """The team's Prometheus for this contract: `queries` maps a name to a PromQL selector whose
    series carry the host in `host`, `instance` or `nodename`. Pulled every 15 minutes, whole
    hours only; `pulled_until`, `status` and `error` say how far and how it went."""

    queries = serializers.DictField(child=serializers.CharField(), allow_empty=False)

    class Meta:
        model = PrometheusSource
        fields = ("url", "queries", "step_s", "enabled", "pulled_until", "status", "error",
                  "last_notes")  # fmt: skip
        read_only_fields = ("pulled_until", "status", "error", "last_notes")
