from django.contrib import admin

from .models import Membership, Team


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "is_demo", "created_at")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        membership = getattr(request.user, "membership", None)
        return qs.filter(pk=membership.team_id) if membership else qs.none()

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return bool(request.user.is_superuser)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "team", "role")
    list_filter = ("role",)
    list_select_related = ("user", "team")

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        membership = getattr(request.user, "membership", None)
        return qs.filter(team_id=membership.team_id) if membership else qs.none()
