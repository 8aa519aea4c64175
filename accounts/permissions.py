"""API permissions: a team member reads; analysts and admins write; nobody crosses teams."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from .middleware import request_membership


class TeamRolePermission(BasePermission):
    message = "You must belong to a team; writing needs the analyst or admin role."

    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        membership = request_membership(request)
        if membership is None:
            return False
        if request.method in SAFE_METHODS:
            return True
        return membership.can_write

    def has_object_permission(self, request, view, obj) -> bool:  # type: ignore[no-untyped-def]
        membership = request_membership(request)
        team_id = getattr(obj, "team_id", None)
        return membership is not None and team_id == membership.team_id
