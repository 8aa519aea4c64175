"""API permissions: a team member reads; analysts and admins write; nobody crosses teams."""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from core.teams import request_membership


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
        team_id = _team_id(obj, getattr(view, "team_path", "team"))
        return membership is not None and team_id == membership.team_id


def _team_id(obj, team_path: str):  # type: ignore[no-untyped-def]
    """The team id of `obj` along the view's `team_path` ("team", "vendor__team", …): a licence
    or a network profile belongs to its vendor's team, not to a team of its own."""
    *hops, last = team_path.split("__")
    for hop in hops:
        obj = getattr(obj, hop, None)
        if obj is None:
            return None
    return getattr(obj, f"{last}_id", None)
