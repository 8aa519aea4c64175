"""Attach the user's membership and team to every request (None for anonymous users)."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from .models import Membership


def membership_of(user) -> Membership | None:  # type: ignore[no-untyped-def]
    if not getattr(user, "is_authenticated", False):
        return None
    try:
        return Membership.objects.select_related("team").get(user=user)
    except Membership.DoesNotExist:
        return None


class TeamMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request._membership_cache = ...  # type: ignore[attr-defined]
        return self.get_response(request)


def request_membership(request: HttpRequest) -> Membership | None:
    """The membership of the request's user, looked up once per request.

    DRF authenticates token users inside the view, so this is evaluated lazily.
    """
    cached = getattr(request, "_membership_cache", ...)
    user = getattr(request, "user", None)
    if cached is ... or (cached is None and getattr(user, "is_authenticated", False)):
        cached = membership_of(user)
        request._membership_cache = cached  # type: ignore[attr-defined]
    return cached


def request_team(request: HttpRequest):  # type: ignore[no-untyped-def]
    membership = request_membership(request)
    return membership.team if membership else None
