from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.teams import request_membership
from quotes.models import Quote
from vendors.models import DataCentre, Vendor

from ..choices import TestKind
from ..models import AcceptanceThresholds, BenchmarkLog, TestRun


class TeamPrimaryKey(serializers.PrimaryKeyRelatedField):
    """A foreign key limited to the requesting team's rows."""

    def __init__(self, *, team_path: str = "team", **kwargs):  # type: ignore[no-untyped-def]
        self.team_path = team_path
        super().__init__(**kwargs)

    def get_queryset(self):  # type: ignore[no-untyped-def]
        membership = request_membership(self.context["request"])
        team = membership.team if membership else None
        return self.queryset.filter(**{self.team_path: team})


class TestRunSerializer(serializers.ModelSerializer):
    vendor = TeamPrimaryKey(queryset=Vendor.objects.all())
    data_centre = TeamPrimaryKey(
        queryset=DataCentre.objects.all(), team_path="vendor__team", required=False, allow_null=True
    )

    class Meta:
        model = TestRun
        fields = [
            "id", "name", "notes", "vendor", "data_centre", "quote", "line_rate_gbps", "fabric",
            "started_together", "status", "progress", "error", "created_at", "pairs",
            "aggregate_gbps",
            "min_pair_gbps", "max_pair_gbps", "jain_index", "aggregate_vs_line", "tail_p5_gbps",
            "p50_gbps", "measured_kind", "effective_line_rate_gbps", "verdict", "verdict_reasons",
            "summarised_at",
        ]  # fmt: skip
        read_only_fields = [
            "status", "progress", "error", "created_at", "pairs", "aggregate_gbps",
            "min_pair_gbps", "max_pair_gbps", "jain_index", "aggregate_vs_line", "tail_p5_gbps",
            "p50_gbps", "measured_kind", "effective_line_rate_gbps", "verdict", "verdict_reasons",
            "summarised_at",
        ]  # fmt: skip

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.fields["quote"] = TeamPrimaryKey(
            queryset=Quote.objects.all(), required=False, allow_null=True
        )


class BenchmarkLogSerializer(serializers.ModelSerializer):
    error_message = serializers.SerializerMethodField()
    # Blank until the log is parsed; a read-only model field would lose allow_blank and the
    # schema's enum would not admit "".
    test_kind = serializers.ChoiceField(choices=TestKind.choices, allow_blank=True, read_only=True)

    class Meta:
        model = BenchmarkLog
        fields = [
            "id", "test_run", "original_name", "size_bytes", "sha256", "uploaded_by",
            "uploaded_at", "is_archive", "archive", "status", "progress", "tool", "test_kind",
            "throughput_gbps", "verdict", "verdict_reasons", "error_code", "error_en", "error_zh",
            "error_message", "archive_refusals", "integrity", "provenance", "trust_level",
            "witnessed", "challenge",
        ]  # fmt: skip
        read_only_fields = fields

    def get_error_message(self, obj: BenchmarkLog) -> str:
        from django.utils.translation import get_language

        return obj.error_text(get_language())


class BenchmarkLogDetailSerializer(BenchmarkLogSerializer):
    """A log with its parsed result as a summary: every figure, not the per-interval arrays (a
    day-long log holds 86,400 intervals per stream, megabytes of JSON); the intervals are paged
    by ``/api/v1/benchmarks/{id}/intervals/`` (``intervals_url``)."""

    result = serializers.SerializerMethodField()
    intervals_url = serializers.SerializerMethodField()

    class Meta(BenchmarkLogSerializer.Meta):
        fields = [*BenchmarkLogSerializer.Meta.fields, "result", "intervals_url"]
        read_only_fields = fields

    def get_result(self, obj: BenchmarkLog) -> dict[str, Any] | None:
        from ..summary import page_summary

        # the stored page summary; a log parsed before it existed: built from its result
        summary = obj.summary if obj.summary is not None else page_summary(obj.result)
        if summary is None:
            return None
        return {k: v for k, v in summary.items() if k not in API_SUMMARY_LEFT_OUT}

    def get_intervals_url(self, obj: BenchmarkLog) -> str:
        return f"/api/v1/benchmarks/{obj.pk}/intervals/"


# The page summary's downsampled chart lines: one per stream, thousands of points each.
API_SUMMARY_LEFT_OUT = ("chart_series",)


class IntervalRowSerializer(serializers.Serializer):
    interval = serializers.IntegerField()
    start_s = serializers.FloatField(allow_null=True)
    end_s = serializers.FloatField(allow_null=True)
    gbps = serializers.FloatField(allow_null=True)
    stream_gbps = serializers.ListField(child=serializers.FloatField(allow_null=True))


class IntervalPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    streams = serializers.ListField(child=serializers.CharField())
    results = IntervalRowSerializer(many=True)


class UploadSerializer(serializers.Serializer):
    """Multipart upload: one or more files into an existing test run."""

    test_run = TeamPrimaryKey(queryset=TestRun.objects.all())
    files = serializers.ListField(child=serializers.FileField(), min_length=1)
    witnessed = serializers.BooleanField(
        required=False, default=False, help_text="A team member ran these tests on the machines."
    )


class UploadResultSerializer(serializers.Serializer):
    created = BenchmarkLogSerializer(many=True)
    duplicates = BenchmarkLogSerializer(many=True)
    refusals = serializers.ListField(child=serializers.DictField())
    errors = serializers.ListField(child=serializers.DictField())


class ThresholdsSerializer(serializers.ModelSerializer):
    # A team that never saved its thresholds reads the defaults, which were never updated.
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)

    class Meta:
        model = AcceptanceThresholds
        exclude = ["team", "id"]
        read_only_fields = ["updated_at"]


class UploadQueueUnavailableSerializer(UploadResultSerializer):
    """503: the files are stored (pending) but the task queue is down; parsing starts later."""

    detail = serializers.CharField()
    code = serializers.CharField()
    en = serializers.CharField()
    zh = serializers.CharField()
