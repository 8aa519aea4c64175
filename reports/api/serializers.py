from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from rankings.models import RankingRun

from ..choices import ReportKind
from ..models import Report


class ReportSerializer(serializers.ModelSerializer):
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = Report
        fields = [
            "id", "run", "kind", "language", "status", "progress", "error", "sha256",
            "size_bytes", "created_at", "finished_at", "download_url",
        ]  # fmt: skip
        read_only_fields = fields

    def get_download_url(self, obj: Report) -> str | None:
        return reverse("reports:download", args=[obj.pk]) if obj.sha256 else None


class ReportRequestSerializer(serializers.Serializer):
    run = serializers.PrimaryKeyRelatedField(queryset=RankingRun.objects.none())
    kind = serializers.ChoiceField(choices=ReportKind.choices)
    language = serializers.CharField(required=False, allow_blank=True, max_length=10)

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        team = self.context.get("team")
        self.fields["run"].queryset = RankingRun.objects.for_team(team)
