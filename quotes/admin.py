from django.contrib import admin

from core.admin import TeamScopedAdmin

from .models import GpuModel, Quote, QuoteVersion, WorkloadProfile


@admin.register(GpuModel)
class GpuModelAdmin(admin.ModelAdmin):
    """The shared GPU reference table; staff edit its figures here."""

    list_display = ("key", "tflops_bf16", "memory_gb", "intra_node_gbyte_s", "default_mfu")
    search_fields = ("key", "name")


class QuoteVersionInline(admin.TabularInline):
    model = QuoteVersion
    extra = 0
    can_delete = False
    fields = ("number", "gpu", "gpus_per_node", "nodes", "price_per_node_month", "currency",
              "fabric", "nic_gbps", "created_by", "created_at")  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(Quote)
class QuoteAdmin(TeamScopedAdmin):
    list_display = ("label", "vendor", "is_current", "measured_gbps")
    list_filter = ("is_current",)
    search_fields = ("label",)
    inlines = [QuoteVersionInline]


@admin.register(WorkloadProfile)
class WorkloadProfileAdmin(TeamScopedAdmin):
    list_display = ("name", "params_b", "tokens_per_step", "strategy", "nodes")
