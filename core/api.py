"""API building blocks shared by every app."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.http import HttpRequest, JsonResponse
from django.urls import re_path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import serializers, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.views import exception_handler as drf_exception_handler

from core.teams import request_membership

from .api_schema import PortalAutoSchema


def exception_handler(exc, context):  # type: ignore[no-untyped-def]
    """Turn model validation and constraint errors into 400s instead of 500s."""
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        exc = ValidationError(detail=detail)
    elif isinstance(exc, IntegrityError):
        exc = ValidationError(detail={"detail": [str(exc).splitlines()[0]]})
    return drf_exception_handler(exc, context)


class TeamScopedViewSet(viewsets.ModelViewSet):
    """CRUD limited to the requesting user's team; `team_path` as in core.admin."""

    team_path = "team"
    schema = PortalAutoSchema()

    def get_team(self):  # type: ignore[no-untyped-def]
        membership = request_membership(self.request)
        return membership.team if membership else None

    def get_queryset(self):  # type: ignore[no-untyped-def]
        team = self.get_team()
        qs = super().get_queryset()
        if team is None:
            return qs.none()
        return qs.filter(**{self.team_path: team})

    def perform_create(self, serializer: serializers.BaseSerializer) -> None:
        if self.team_path == "team":
            serializer.save(team=self.get_team())
        else:
            serializer.save()


@csrf_exempt  # it writes nothing; a DELETE to a bad path gets the 404, not a CSRF page
def api_not_found(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    """A JSON 404 for a path under the API that no route takes (e.g. `/vendors/1.5/`): API
    clients get the same body as for an unknown id, not the HTML error page."""
    return JsonResponse({"detail": _("Not found.")}, status=404)


def api_catch_all(*prefixes: str, keep: str = "") -> list:  # type: ignore[type-arg]
    """URL patterns answering `api_not_found` for anything else under these prefixes; an app
    appends them after its router's routes. `keep` (a regex) leaves paths another app's later
    routes serve under the same prefix."""
    guard = f"(?!{keep})" if keep else ""
    return [re_path(rf"^{prefix}/{guard}.*$", api_not_found) for prefix in prefixes]
