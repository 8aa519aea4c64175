from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import server_error as django_server_error

from .api import server_error_response


def health(request: HttpRequest) -> JsonResponse:
    """Liveness and database check for load balancers and compose healthchecks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def ping_page(request: HttpRequest) -> JsonResponse:
    """A trivial endpoint: no session, no database, no template."""
    return JsonResponse({"ok": True})


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler: JSON with a stable code under /api/, the HTML page elsewhere."""
    if request.path.startswith("/api/"):
        return server_error_response()
    return django_server_error(request)
