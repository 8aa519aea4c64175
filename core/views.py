from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, JsonResponse


def health(request: HttpRequest) -> JsonResponse:
    """Liveness and database check for load balancers and compose healthchecks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def ping_page(request: HttpRequest) -> JsonResponse:
    """A trivial endpoint: no session, no database, no template."""
    return JsonResponse({"ok": True})
