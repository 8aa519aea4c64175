from django.contrib import admin

from core.admin import TeamScopedAdmin

from .models import TeamRiskPolicy


@admin.register(TeamRiskPolicy)
class TeamRiskPolicyAdmin(TeamScopedAdmin):
    """The team's risk policy: what each severity of due-diligence finding does in a ranking
    (exclude, premium, mark, ignore). New runs use it; finished runs keep the one they used."""

    list_display = ("team", "critical_action", "warning_action", "info_action",
                    "unverified_bandwidth", "premium_cap_pct", "supplied_evidence_is_claim",
                    "updated_at")  # fmt: skip
