"""The portal's log-in page.

The failure limit is not here: it is django-axes (``accounts.throttle``), which watches
``authenticate`` itself, so this page, ``/admin/login/`` and any other password path share one
count per normalised user name and address.
"""

from __future__ import annotations

from django.contrib.auth import views as auth_views


class RateLimitedLoginView(auth_views.LoginView):
    """Django's log-in view; the name is kept for the URL configuration."""
