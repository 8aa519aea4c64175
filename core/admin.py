"""Admin base class that keeps every non-superuser inside their own team."""

from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin


def _team_id(request):  # type: ignore[no-untyped-def]
    membership = getattr(request.user, "membership", None)
    return membership.team_id if membership else None


class TeamScopedAdmin(SimpleHistoryAdmin):
    """Filters rows, foreign-key choices and saves by the staff user's team.

    `team_path` is the lookup from the model to its team (``team`` for direct ownership,
    ``vendor__team`` for child rows).
    """

    team_path = "team"

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(**{self.team_path + "_id": _team_id(request)})

    def formfield_for_foreignkey(self, db_field, request, **kwargs):  # type: ignore[no-untyped-def]
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if request.user.is_superuser or field is None:
            return field
        model = db_field.related_model
        team_id = _team_id(request)
        if model._meta.label == "accounts.Team":
            field.queryset = field.queryset.filter(pk=team_id)
        elif any(f.name == "team" for f in model._meta.fields):
            field.queryset = field.queryset.filter(team_id=team_id)
        elif any(f.name == "vendor" for f in model._meta.fields):
            field.queryset = field.queryset.filter(vendor__team_id=team_id)
        return field

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        if self.team_path == "team" and not request.user.is_superuser:
            obj.team_id = _team_id(request)
        super().save_model(request, obj, form, change)

    def get_exclude(self, request, obj=None):  # type: ignore[no-untyped-def]
        exclude = list(super().get_exclude(request, obj) or [])
        if self.team_path == "team" and not request.user.is_superuser:
            exclude.append("team")
        return exclude


admin.site.site_header = "GPU cluster procurement portal"
