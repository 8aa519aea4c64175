from __future__ import annotations

from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _
from rest_framework import serializers

from domain import money
from domain.messages import Message
from quotes.models import Quote, WorkloadProfile

from ..models import RankingResult, RankingRun
from ..selectors import changed_quote_ids
from ..whatif import CONTROLS


class RankingResultSerializer(serializers.ModelSerializer):
    """One offer of a run: cost, eligibility and its reasons, risk marks, tie and recommendation
    flags (model fields), plus the quote version's VAT terms and confirmed outliers."""

    vat_terms = serializers.SerializerMethodField()
    confirmed_outliers = serializers.SerializerMethodField()
    evidence = serializers.SerializerMethodField()
    # the decision's rank (None: excluded, listed apart without one) and the deciding figure
    # with its range (risk-adjusted where a premium decides): what every page prints
    shown_rank = serializers.IntegerField(read_only=True, allow_null=True)
    # `rank` is that rank too (an excluded offer has none); `cost_rank` is the order by cost
    # alone before eligibility, where an excluded offer may come first
    rank = serializers.IntegerField(source="shown_rank", read_only=True, allow_null=True)
    cost_rank = serializers.IntegerField(source="rank", read_only=True)
    # the vendor's name in the request's language (`vendor_name` is the name the run stored)
    vendor_shown = serializers.CharField(read_only=True)
    deciding_cost_per_eth = serializers.FloatField(read_only=True)
    deciding_low = serializers.SerializerMethodField()
    deciding_high = serializers.SerializerMethodField()

    def get_deciding_low(self, r: RankingResult) -> float | None:
        return r.deciding_range[0]

    def get_deciding_high(self, r: RankingResult) -> float | None:
        return r.deciding_range[1]

    class Meta:
        model = RankingResult
        exclude = ("run",)

    def get_vat_terms(self, r: RankingResult) -> dict[str, Any] | None:
        v = r.quote_version
        if v is None:
            return None
        rate = None if v.vat_rate is None else float(v.vat_rate)
        return {"prices_include_vat": v.prices_include_vat, "vat_rate": rate,
                "invoice_type": v.invoice_type or ""}  # fmt: skip

    def get_evidence(self, r: RankingResult) -> dict[str, Any] | None:
        """How the measured bandwidth was derived from the quote's logs ({code, en, zh, low_gbps,
        high_gbps, ports, ports_tested}, ``text`` in the request's language); None if nominal."""
        found = (r.model_detail or {}).get("evidence")
        if not found:
            return None
        message = Message(found.get("code", ""), found.get("en", ""), found.get("zh", ""))
        return {**found, "text": message.text(get_language())}

    def get_confirmed_outliers(self, r: RankingResult) -> list[dict[str, Any]]:
        v = r.quote_version
        lang = get_language()
        return [
            {**o, "message": o.get("zh" if (lang or "").startswith("zh") else "en", "")}
            for o in ((v.outliers_confirmed or []) if v is not None else [])
        ]


class RankingRunSerializer(serializers.ModelSerializer):
    """A run; `decision` holds the recommendation (both languages), `headline` its sentence in
    the request's language, `tax_basis` the basis its money is on."""

    results = RankingResultSerializer(many=True, read_only=True)
    headline = serializers.SerializerMethodField()
    recommended = serializers.SerializerMethodField()
    tax_basis = serializers.SerializerMethodField()
    tax_basis_text = serializers.SerializerMethodField()
    # stale means said: the quotes that got new terms (or were deleted) since the run priced
    # them; a stale run's figures are those of the old terms (rank again: POST a new run)
    stale = serializers.SerializerMethodField()
    changed_quotes = serializers.SerializerMethodField()

    class Meta:
        model = RankingRun
        fields = (
            "id", "label", "workload", "all_current", "quotes", "fx_to_cny", "status", "progress",
            "error", "problems", "decision", "headline", "recommended", "tax_basis",
            "tax_basis_text", "stale", "changed_quotes", "queued_at", "started_at",
            "finished_at", "created_at", "results",
        )  # fmt: skip
        read_only_fields = fields

    def get_changed_quotes(self, run: RankingRun) -> list[int]:
        known = self.context.get("changed")
        if known is None or run.pk not in known:
            known = changed_quote_ids([run])
        return list(known.get(run.pk, []))

    def get_stale(self, run: RankingRun) -> bool:
        return bool(self.get_changed_quotes(run))

    def get_headline(self, run: RankingRun) -> str | None:
        head = (run.decision or {}).get("headline")
        if not head:
            return None
        return Message(head.get("code", ""), head.get("en", ""), head.get("zh", "")).text(
            get_language()
        )

    def get_recommended(self, run: RankingRun) -> str | None:
        return (run.decision or {}).get("recommended")

    def get_tax_basis(self, run: RankingRun) -> str | None:
        return getattr(run, "saved_tax_basis", None)  # None: a run from before VAT terms

    def get_tax_basis_text(self, run: RankingRun) -> str:
        basis = getattr(run, "saved_tax_basis", None)
        text = money.basis_label(basis) if basis else money.TAX_ASSUMED
        return text.text(get_language())


class RankingRunSummarySerializer(RankingRunSerializer):
    """A run in the list: what it is, how far it got and what it decided, in a size that does
    not grow with its offers (no results, no quote ids, no problems). Each result is
    at ``results_url`` (paginated) and in the run's own answer (``url``)."""

    url = serializers.SerializerMethodField()
    results_url = serializers.SerializerMethodField()
    quotes_count = serializers.IntegerField(read_only=True)
    results_count = serializers.IntegerField(read_only=True)
    eligible_count = serializers.IntegerField(read_only=True)
    tie = serializers.SerializerMethodField()
    leader = serializers.SerializerMethodField()

    class Meta:
        model = RankingRun
        fields = (
            "id", "url", "results_url", "label", "workload", "all_current", "fx_to_cny", "status",
            "progress", "error", "headline", "recommended", "tie", "leader", "tax_basis",
            "tax_basis_text", "stale", "changed_quotes", "quotes_count", "results_count",
            "eligible_count",
            "queued_at", "started_at", "finished_at", "created_at",
        )  # fmt: skip
        read_only_fields = fields

    def get_url(self, run: RankingRun) -> str:
        return f"/api/v1/rankings/{run.pk}/"

    def get_results_url(self, run: RankingRun) -> str:
        return f"/api/v1/rankings/{run.pk}/results/"

    def get_tie(self, run: RankingRun) -> bool:
        return bool((run.decision or {}).get("tie"))

    def get_leader(self, run: RankingRun) -> dict[str, Any] | None:
        """The recommended offer (None: none eligible, or not finished): its name as every page
        prints it and the deciding cost per ETH."""
        found = getattr(run, "leader", None)
        if not found:
            return None
        r = RankingResult(**found)  # not saved: its properties give the shown name and figure
        return {
            "offer_id": r.offer_id, "label": r.label, "vendor": r.vendor_shown,
            "deciding_cost_per_eth": r.deciding_cost_per_eth, "currency": r.currency,
        }  # fmt: skip


class ScenarioSerializer(serializers.Serializer):
    """Input of POST /rankings/{id}/scenario/: the what-if controls (rankings/whatif.py CONTROLS),
    each optional; values outside a control's range are clamped as on the page."""

    controls = serializers.DictField(child=serializers.FloatField(), required=False)

    def validate_controls(self, value: dict[str, float]) -> dict[str, float]:
        known = {c.name for c in CONTROLS}
        unknown = sorted(set(value) - known)
        if unknown:
            raise serializers.ValidationError(
                _("Unknown controls: %(names)s; use %(known)s.")
                % {"names": ", ".join(unknown), "known": ", ".join(sorted(known))}
            )
        return value


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
