from django.contrib import admin

from core.admin import TeamScopedAdmin

from .models import AcceptanceThresholds, BenchmarkLog, TestRun


@admin.register(TestRun)
class TestRunAdmin(TeamScopedAdmin):
    list_display = ("name", "vendor", "status", "pairs", "tail_p5_gbps", "verdict", "created_at")
    list_filter = ("status", "verdict")
    search_fields = ("name",)


@admin.register(BenchmarkLog)
class BenchmarkLogAdmin(TeamScopedAdmin):
    list_display = ("original_name", "test_run", "tool", "status", "throughput_gbps", "verdict")
    list_filter = ("status", "tool", "verdict")
    search_fields = ("original_name", "sha256")
    readonly_fields = ("sha256", "size_bytes", "result", "uploaded_by", "uploaded_at")


@admin.register(AcceptanceThresholds)
class AcceptanceThresholdsAdmin(TeamScopedAdmin):
    list_display = ("team", "rdma_min_line_fraction", "tcp_min_line_fraction", "max_cv")
