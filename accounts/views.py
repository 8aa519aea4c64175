"""The portal's log-in page, and the trivial signed-in page (the load test's baseline).

The failure limit is not here: it is django-axes (``accounts.throttle``), which watches
``authenticate`` itself, so this page, ``/admin/login/`` and any other password path share one
count per normalised user name and address.
"""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.shortcuts import render
from django.views import View

from .mixins import TeamRequiredMixin


class RateLimitedLoginView(auth_views.LoginView):
    """Django's log-in view; the name is kept for the URL configuration."""


class TrivialPageView(TeamRequiredMixin, View):
    """A trivial portal page: what every page costs before its own data (session, user, team,
    the layout with its navigation), with nothing of its own. The load test's baseline."""

    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "core/trivial.html")
