"""API building blocks shared by every app."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.http import Http404, HttpRequest, JsonResponse
from django.urls import re_path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, viewsets
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.views import exception_handler as drf_exception_handler

from core.teams import request_membership

from .api_schema import PortalAutoSchema

logger = logging.getLogger(__name__)

SERVER_ERROR_CODE = "server_error"


def exception_handler(exc, context):  # type: ignore[no-untyped-def]
    """Every API error is JSON with a stable code, in the reader's language.

    Model validation and constraint errors become 400s; a constraint the database refused is
    said in words (never the database's own text naming tables and keys); anything unexpected is
    answered by the 500 handler as JSON with the code ``server_error`` instead of the HTML page.
    Field errors keep their shape (field -> messages); their code is the ``X-Error-Code`` header.
    Any other error body is ``{"detail": ..., "code": ...}``.
    """
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        exc = ValidationError(detail=detail)
    elif isinstance(exc, IntegrityError):
        logger.warning("integrity error answered as 400: %s", str(exc).splitlines()[0])
        exc = ValidationError(detail={"detail": [INTEGRITY_MESSAGE()]}, code="integrity")
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        # Unexpected: raised on to Django (logged there, re-raised in tests), whose 500 handler
        # answers JSON under /api/ (`core.views.server_error`).
        return None
    code = _code_of(exc)
    response["X-Error-Code"] = code
    if isinstance(response.data, dict) and set(response.data) <= {"detail"}:
        response.data = {**response.data, "code": code}
    return response


def INTEGRITY_MESSAGE() -> str:  # noqa: N802 - a message, translated when asked for
    return _(
        "This change conflicts with what is stored (a duplicate, or a record it refers to "
        "no longer exists). Reload the page and try again."
    )


def _code_of(exc: Exception) -> str:
    if isinstance(exc, APIException):
        codes = exc.get_codes()
        if isinstance(codes, str):
            return codes
        if isinstance(exc, ValidationError):
            return "invalid"
        return exc.default_code
    return SERVER_ERROR_CODE


def server_error_response() -> JsonResponse:
    """The JSON 500 of the API: no trace, a stable code, words in the reader's language."""
    return JsonResponse(
        {
            "detail": _("The server could not answer this request. It has been logged."),
            "code": SERVER_ERROR_CODE,
        },
        status=500,
    )


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
    return JsonResponse({"detail": _("Not found."), "code": "not_found"}, status=404)


def api_catch_all(*prefixes: str, keep: str = "") -> list:  # type: ignore[type-arg]
    """URL patterns answering `api_not_found` for anything else under these prefixes; an app
    appends them after its router's routes. `keep` (a regex) leaves paths another app's later
    routes serve under the same prefix."""
    guard = f"(?!{keep})" if keep else ""
    return [re_path(rf"^{prefix}/{guard}.*$", api_not_found) for prefix in prefixes]
