from django import forms
from django.contrib import admin
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from .models import Membership, Team
from .services import username_taken


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "is_demo", "tax_basis", "min_delivered_ratio",
                    "standing_rule_mode", "created_at")  # fmt: skip
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


class _NameKeyUnique:
    """Refuse a user name that another account has in any spelling (see domain.usernames);
    the database's caseless unique index would otherwise answer a race or a rename with a 500."""

    def clean_username(self):  # type: ignore[no-untyped-def]
        username = self.cleaned_data.get("username")  # type: ignore[attr-defined]
        instance = getattr(self, "instance", None)
        if username and username_taken(username, exclude_pk=getattr(instance, "pk", None)):
            raise forms.ValidationError(
                _("A user with that user name already exists (in another spelling)."),
                code="unique",
            )
        return username


class UserAddForm(_NameKeyUnique, auth_forms.AdminUserCreationForm):
    pass


class UserEditForm(_NameKeyUnique, auth_forms.UserChangeForm):
    pass


class UserAdmin(auth_admin.UserAdmin):
    add_form = UserAddForm
    form = UserEditForm


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), UserAdmin)
