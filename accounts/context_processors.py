from django.http import HttpRequest

from core.teams import request_membership


def team(request: HttpRequest) -> dict[str, object]:
    membership = request_membership(request)
    return {
        "membership": membership,
        "current_team": membership.team if membership else None,
        "can_write": bool(membership and membership.can_write),
    }
