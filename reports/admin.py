from django.contrib import admin

from .models import Report


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("pk", "team", "run", "kind", "language", "status", "size_bytes", "created_at")
    list_filter = ("kind", "status", "language")
    readonly_fields = ("sha256", "size_bytes", "file")
