from django.contrib import admin

from core.admin import TeamScopedAdmin

from .models import MixedPlan, ServingWorkload


@admin.register(ServingWorkload)
class ServingWorkloadAdmin(TeamScopedAdmin):
    list_display = ("name", "team", "params_b", "mean_rps", "peak_rps")


@admin.register(MixedPlan)
class MixedPlanAdmin(TeamScopedAdmin):
    list_display = ("name", "team", "training_quote", "serving_quote", "horizon_months")
