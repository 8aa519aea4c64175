from django.contrib import admin

from core.admin import TeamScopedAdmin

from .models import GpuModel, Quote, QuoteVersion, WorkloadProfile
from .services import quote_save_fields


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
    list_display = ("label", "vendor", "is_current", "measured_typical_gbps")
    list_filter = ("is_current",)
    search_fields = ("label",)
    inlines = [QuoteVersionInline]
    readonly_fields = ("revision",)

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        if not change:
            super().save_model(request, obj, form, change)
            return
        # a whole-row save of the copy the admin read would revert changes made since
        quote_save_fields(quote=obj, user=request.user, fields=list(form.changed_data))


@admin.register(WorkloadProfile)
class WorkloadProfileAdmin(TeamScopedAdmin):
    list_display = ("name", "params_b", "tokens_per_step", "strategy", "nodes")
