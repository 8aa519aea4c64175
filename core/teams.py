"""The requesting user's team membership, looked up once per request.

`core` is the layer every app stands on and imports no app: the team and membership models
are named in the settings (``TEAM_MODEL``, ``TEAM_MEMBERSHIP_MODEL``, as ``AUTH_USER_MODEL``
names the user model) and resolved through the app registry. A membership has ``user`` (one
to one), ``team`` and the role properties ``can_write`` / ``is_admin``.
"""

from collections.abc import Callable
from typing import Any

from django.apps import apps
from django.conf import settings
from django.http import HttpRequest, HttpResponse


def membership_model() -> Any:
    return apps.get_model(settings.TEAM_MEMBERSHIP_MODEL)


def team_model() -> Any:
    return apps.get_model(settings.TEAM_MODEL)


def membership_of(user) -> Any:  # type: ignore[no-untyped-def]
    if not getattr(user, "is_authenticated", False):
        return None
    membership = membership_model()
    try:
        return membership.objects.select_related("team").get(user=user)
    except membership.DoesNotExist:
        return None


class TeamMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request._membership_cache = ...  # type: ignore[attr-defined]
        return self.get_response(request)


def request_membership(request: HttpRequest) -> Any:
    """The membership of the request's user, looked up once per request.

    DRF authenticates token users inside the view, so this is evaluated lazily.
    """
    cached = getattr(request, "_membership_cache", ...)
    user = getattr(request, "user", None)
    if cached is ... or (cached is None and getattr(user, "is_authenticated", False)):
        cached = membership_of(user)
        request._membership_cache = cached  # type: ignore[attr-defined]
    return cached


def request_team(request: Any) -> Any:
    membership = request_membership(request) if request is not None else None
    return membership.team if membership else None
