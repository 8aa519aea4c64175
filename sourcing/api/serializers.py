from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers

from domain.regions import PROVINCE_CHOICES
from quotes.models import GpuModel, WorkloadProfile
from vendors.models import Vendor

from ..choices import FabricRequirement
from ..kit import rfq_kit
from ..models import Answer, AuditEvent, Award, DeadlineExtension, Invitation, Rfq
from ..selectors import answer_terms_for_team
from ..terms import terms_compliance, terms_standing


class RfqSerializer(serializers.ModelSerializer):
    gpu_models = serializers.SlugRelatedField(
        slug_field="key", queryset=GpuModel.objects.all(), many=True, required=False
    )
    workload = serializers.PrimaryKeyRelatedField(queryset=WorkloadProfile.objects.none())
    benchmark_kit = serializers.SerializerMethodField()

    class Meta:
        model = Rfq
        fields = (
            "id", "title", "workload", "gpu_models", "nodes", "min_internode_gbps", "fabric",
            "require_pfc", "require_ecn", "region", "term_months", "min_availability",
            "min_trial_days", "mandatory", "nonconforming", "deadline", "sealed",
            "required_evidence", "kit_pairs", "acceptance_envelope",
            "kit_duration_s", "weights", "notes", "state", "published_at", "closed_at",
            "ranking_run", "status", "error", "benchmark_kit", "created_at",
        )  # fmt: skip
        read_only_fields = ("state", "published_at", "closed_at", "ranking_run", "status", "error",
                            "created_at")  # fmt: skip

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        team = self.context.get("team")
        if team is not None:
            self.fields["workload"].queryset = WorkloadProfile.objects.for_team(team)

    def get_benchmark_kit(self, rfq: Rfq) -> dict:  # type: ignore[type-arg]
        kit = rfq_kit(rfq)
        return kit.as_dict() | {"script": kit.as_text()}


class SupplierRfqSerializer(RfqSerializer):
    """What a supplier sees of an RFQ: no private notes, no weights, no ranking."""

    # Read-only model fields lose allow_blank, and the schema's enum would not admit "" (no
    # fabric or region required).
    fabric = serializers.ChoiceField(
        choices=FabricRequirement.choices, allow_blank=True, read_only=True
    )
    region = serializers.ChoiceField(choices=PROVINCE_CHOICES, allow_blank=True, read_only=True)

    class Meta(RfqSerializer.Meta):
        fields = tuple(
            f for f in RfqSerializer.Meta.fields
            if f not in ("notes", "weights", "ranking_run", "status", "error", "workload")
        )  # fmt: skip
        read_only_fields = fields

    def get_benchmark_kit(self, rfq: Rfq) -> dict:  # type: ignore[type-arg]
        """The supplier's own kit, with its challenge tokens (selectors.supplier_rfqs)."""
        kit = rfq_kit(rfq, getattr(rfq, "supplier_invitation_id", None))
        return kit.as_dict() | {"script": kit.as_text()}


class InvitationSerializer(serializers.ModelSerializer):
    vendor_name = serializers.CharField(source="vendor.__str__", read_only=True)

    class Meta:
        model = Invitation
        fields = ("id", "vendor", "vendor_name", "email", "sent_at", "accepted_at", "mail_status",
                  "mail_error", "mail_attempts", "mailed_at")  # fmt: skip
        read_only_fields = ("sent_at", "accepted_at", "mail_status", "mail_error",
                            "mail_attempts", "mailed_at")  # fmt: skip


class InvitationResendSerializer(serializers.Serializer):
    """Input of POST /rfqs/{id}/invitations/resend/: the invitation whose e-mail failed."""

    invitation = serializers.IntegerField(min_value=1, max_value=2**31 - 1)


class DeadlineExtensionSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeadlineExtension
        fields = ("id", "rfq", "old_deadline", "new_deadline", "reason", "state", "proposed_by",
                  "proposed_at", "decided_by", "decided_at", "decision_comment")  # fmt: skip
        read_only_fields = fields


class ExtensionProposeSerializer(serializers.Serializer):
    """Input of POST /rfqs/{id}/deadline-extensions/: a later deadline and the reason."""

    deadline = serializers.DateTimeField()
    reason = serializers.CharField(max_length=2000)


class ExtensionDecisionSerializer(serializers.Serializer):
    """Input of POST /rfqs/{id}/deadline-extensions/decide/ (an admin other than the proposer)."""

    extension = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    decision = serializers.ChoiceField(choices=[("approve", "approve"), ("reject", "reject")])
    comment = serializers.CharField(required=False, allow_blank=True, default="")


class ConflictSerializer(serializers.Serializer):
    """409: someone decided first; nothing of this request was recorded."""

    detail = serializers.CharField()
    code = serializers.CharField()


class InvitationCreateSerializer(serializers.Serializer):
    vendor = serializers.PrimaryKeyRelatedField(queryset=Vendor.objects.none())
    email = serializers.EmailField()

    def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        team = self.context.get("team")
        if team is not None:
            self.fields["vendor"].queryset = Vendor.objects.for_team(team)


class TeamAnswerSerializer(serializers.ModelSerializer):
    """An answer as the team sees it: prices only once unsealed."""

    vendor_name = serializers.CharField(source="vendor.__str__", read_only=True)
    terms = serializers.SerializerMethodField()
    prices_sealed = serializers.SerializerMethodField()
    compliance = serializers.SerializerMethodField()
    standing = serializers.SerializerMethodField()
    evidence_verdict = serializers.CharField(source="evidence_run.verdict", default="")

    class Meta:
        model = Answer
        fields = ("id", "vendor", "vendor_name", "revision", "submitted_at", "revised_at",
                  "prices_sealed", "terms", "hosts", "compliance", "standing", "evidence_run",
                  "evidence_verdict", "quote")  # fmt: skip

    def get_terms(self, answer: Answer) -> dict:  # type: ignore[type-arg]
        return answer_terms_for_team(answer.rfq, answer)

    def get_prices_sealed(self, answer: Answer) -> bool:
        return not answer.rfq.prices_visible()

    def get_compliance(self, answer: Answer) -> list[str]:
        return terms_compliance(answer.rfq, answer.terms)

    def get_standing(self, answer: Answer) -> str:
        """conforming, knocked_out or ranked_last against the mandatory requirements."""
        return terms_standing(answer.rfq, answer.terms).status


class SupplierAnswerSerializer(serializers.ModelSerializer):
    compliance = serializers.SerializerMethodField()
    logs = serializers.SerializerMethodField()
    open_for_changes = serializers.SerializerMethodField()

    class Meta:
        model = Answer
        fields = ("id", "rfq", "terms", "hosts", "supplier_notes", "revision", "submitted_at",
                  "revised_at", "compliance", "logs", "open_for_changes")  # fmt: skip
        read_only_fields = fields

    def get_compliance(self, answer: Answer) -> list[str]:
        return terms_compliance(answer.rfq, answer.terms)

    def get_open_for_changes(self, answer: Answer) -> bool:
        return answer.rfq.is_open_for_answers(timezone.now())

    def get_logs(self, answer: Answer) -> list[dict]:  # type: ignore[type-arg]
        from ..selectors import evidence_logs

        return [
            {
                "id": log.pk,
                "name": log.original_name,
                "status": log.status,
                "tool": log.tool,
                "throughput_gbps": log.throughput_gbps,
                "verdict": log.verdict,
                "trust_level": log.trust_level,
                "challenge": log.challenge,
                "error": log.error_en,
            }
            for log in evidence_logs(answer)
        ]


class AnswerSubmitSerializer(serializers.Serializer):
    """Input of PUT /supplier/rfqs/{id}/answer/: the offer terms (quote-version fields)."""

    terms = serializers.DictField()
    supplier_notes = serializers.CharField(required=False, allow_blank=True, default="")
    hosts = serializers.ListField(
        child=serializers.CharField(max_length=8000, allow_blank=True), required=False,
        max_length=256, default=None, allow_null=True,
        help_text="The bid's host list: one string per offered server, its host name then its "
        "NIC GUIDs or MACs and GPU UUIDs, separated by spaces. Left out: the list stays as it "
        "was. Kit logs from other hosts are not kit-verified.",
    )  # fmt: skip


class AwardSerializer(serializers.ModelSerializer):
    vendor_name = serializers.CharField(source="answer.vendor.__str__", read_only=True)

    class Meta:
        model = Award
        fields = ("id", "rfq", "answer", "vendor_name", "state", "rationale", "proposed_by",
                  "proposed_at", "decided_by", "decided_at", "decision_comment",
                  "blockers", "override_reason", "min_line_fraction", "min_pairs", "trial_days",
                  "trial_ends_at",
                  "acceptance_run", "acceptance_evidence", "acceptance_checked_at")  # fmt: skip
        read_only_fields = fields


class AwardProposeSerializer(serializers.Serializer):
    answer = serializers.IntegerField()
    rationale = serializers.CharField(required=False, allow_blank=True, default="")
    min_line_fraction = serializers.FloatField(min_value=0.01, max_value=1, default=0.9)
    min_pairs = serializers.IntegerField(min_value=1, required=False)
    trial_days = serializers.IntegerField(min_value=0, required=False)
    override_reason = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=2000,
        help_text="Only to award a knocked-out or excluded bidder: why, in writing. A second "
        "team admin must then approve with confirm_override.",
    )  # fmt: skip


class DecisionSerializer(serializers.Serializer):
    comment = serializers.CharField(allow_blank=True, default="")
    confirm_override = serializers.BooleanField(
        default=False, help_text="Required to approve an award that overrides the rules."
    )


class EvidenceUploadSerializer(serializers.Serializer):
    file = serializers.FileField()


class AcceptInvitationSerializer(serializers.Serializer):
    token = serializers.CharField()
    username = serializers.CharField(required=False, allow_blank=True, default="")
    password = serializers.CharField(required=False, allow_blank=True, default="")


class EvaluationRowSerializer(serializers.Serializer):
    answer_id = serializers.IntegerField()
    vendor = serializers.CharField()
    cost_rank = serializers.IntegerField(allow_null=True)  # None: knocked out or excluded
    cost_per_eth = serializers.FloatField()
    currency = serializers.CharField()
    monthly_rent = serializers.FloatField()
    verdict = serializers.CharField(allow_blank=True)
    scores = serializers.DictField(child=serializers.FloatField())
    total = serializers.FloatField()
    position = serializers.IntegerField(
        allow_null=True, help_text="None: knocked out or excluded, not ranked."
    )
    status = serializers.ChoiceField(
        choices=["conforming", "ranked_last", "knocked_out", "excluded"]
    )
    reasons = serializers.ListField(child=serializers.CharField())
    reason_codes = serializers.ListField(child=serializers.CharField())


class EvaluationSerializer(serializers.Serializer):
    """GET /rfqs/{id}/evaluation/: weighted scores beside cost per ETH, once the ranking is done."""

    weights = serializers.DictField(child=serializers.FloatField())
    ready = serializers.BooleanField()
    rows = EvaluationRowSerializer(many=True)
    method = serializers.CharField()


class AcceptedInvitationSerializer(serializers.Serializer):
    """Answer of an accepted invitation: the supplier login and the vendor it speaks for."""

    username = serializers.CharField()
    vendor = serializers.CharField()


class AuditEventSerializer(serializers.ModelSerializer):
    actor_name = serializers.CharField(
        source="actor.get_username", default=None, allow_null=True, read_only=True
    )

    class Meta:
        model = AuditEvent
        fields = ("id", "verb", "actor", "actor_name", "detail", "at")
