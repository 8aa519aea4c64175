from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views import View
from django.views.defaults import server_error as django_server_error

from accounts.mixins import TeamRequiredMixin
from vendors.models import Vendor

from .api import server_error_response


class DashboardView(TeamRequiredMixin, View):
    def dispatch(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        # Supplier users have no team: their home is the supplier portal.
        user = request.user
        if user.is_authenticated and hasattr(user, "supplier_account"):
            return redirect("sourcing:supplier-home")
        return super().dispatch(request, *args, **kwargs)

    def get(self, request):  # type: ignore[no-untyped-def]
        vendors = Vendor.objects.for_team(self.team)
        flagged = vendors.filter(findings_critical__gt=0).order_by("-findings_critical")[:10]
        return render(
            request,
            "core/dashboard.html",
            {"vendor_count": vendors.count(), "flagged": flagged},
        )


def health(request: HttpRequest) -> JsonResponse:
    """Liveness and database check for load balancers and compose healthchecks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def ping_page(request: HttpRequest) -> JsonResponse:
    """A trivial endpoint: no session, no database, no template."""
    return JsonResponse({"ok": True})


class TrivialPageView(TeamRequiredMixin, View):
    """A trivial portal page: what every page costs before its own data (session, user, team,
    the layout with its navigation), with nothing of its own. The load test's baseline."""

    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "core/trivial.html")


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500 handler: JSON with a stable code under /api/, the HTML page elsewhere."""
    if request.path.startswith("/api/"):
        return server_error_response()
    return django_server_error(request)
