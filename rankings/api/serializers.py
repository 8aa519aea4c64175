from __future__ import annotations

from rest_framework import serializers

from quotes.models import Quote, WorkloadProfile

from ..models import RankingResult, RankingRun


class RankingResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = RankingResult
        exclude = ("run",)


class RankingRunSerializer(serializers.ModelSerializer):
    results = RankingResultSerializer(many=True, read_only=True)

    class Meta:
        model = RankingRun
        fields = (
            "id", "label", "workload", "all_current", "quotes", "fx_to_cny", "status", "progress",
            "error", "problems", "decision", "queued_at", "started_at", "finished_at", "created_at",
            "results",
        )  # fmt: skip
        read_only_fields = fields


class RankingStartSerializer(serializers.Serializer):
    """Input of POST /rankings/: a workload, optional quotes (default all current), rates."""

    workload = serializers.PrimaryKeyRelatedField(queryset=WorkloadProfile.objects.none())
    quotes = serializers.PrimaryKeyRelatedField(
        queryset=Quote.objects.none(), many=True, required=False
    )
    fx_to_cny = serializers.DictField(child=serializers.FloatField(min_value=1e-9), required=False)
    label = serializers.CharField(max_length=120, required=False, allow_blank=True)

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        team = self.context.get("team")
        if team is not None:
            self.fields["workload"].queryset = WorkloadProfile.objects.for_team(team)
            self.fields["quotes"].child_relation.queryset = Quote.objects.for_team(team)


class RankingStartedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.CharField()


class QueueUnavailableSerializer(RankingStartedSerializer):
    """503: the run is stored (pending) but the task queue is down; it starts later."""

    detail = serializers.CharField()
    code = serializers.CharField()
    en = serializers.CharField()
    zh = serializers.CharField()
