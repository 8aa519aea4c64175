from django.contrib import admin

from core.admin import TeamScopedAdmin

from .models import Contract, DeliveryEvaluation, DeliveryUpload, Incident


@admin.register(Contract)
class ContractAdmin(TeamScopedAdmin):
    list_display = ("title", "team", "vendor", "status", "starts_on", "ends_on", "committed_gbps")
    list_filter = ("status",)


@admin.register(Incident)
class IncidentAdmin(TeamScopedAdmin):
    team_path = "contract__team"
    list_display = ("contract", "kind", "started_at", "ended_at", "vendor_ticket")


@admin.register(DeliveryUpload)
class DeliveryUploadAdmin(TeamScopedAdmin):
    team_path = "contract__team"
    list_display = ("original_name", "contract", "kind", "status", "uploaded_at")


@admin.register(DeliveryEvaluation)
class DeliveryEvaluationAdmin(TeamScopedAdmin):
    team_path = "contract__team"
    list_display = ("contract", "status", "computed_at", "breach_count", "credit_total")
