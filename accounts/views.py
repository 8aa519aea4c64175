"""Login with a failure limit per user name and client address."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.utils.translation import gettext as _

MAX_FAILURES = 5
WINDOW_S = 15 * 60


def _key(request) -> str:  # type: ignore[no-untyped-def]
    username = (request.POST.get("username") or "").strip().lower()[:150]
    address = request.META.get("REMOTE_ADDR", "")
    return f"login-failures:{address}:{username}"


class RateLimitedLoginView(auth_views.LoginView):
    """After MAX_FAILURES wrong passwords for one user name from one address within WINDOW_S,
    further attempts are refused with 429 until the window passes (correct passwords included,
    so guessing cannot continue)."""

    def post(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        if cache.get(_key(request), 0) >= MAX_FAILURES:
            form = self.get_form()
            form.errors.clear()
            form.add_error(
                None,
                _("Too many failed log-in attempts. Wait 15 minutes and try again."),
            )
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):  # type: ignore[no-untyped-def]
        key = _key(self.request)
        cache.add(key, 0, WINDOW_S)
        try:
            cache.incr(key)
        except ValueError:
            cache.set(key, 1, WINDOW_S)
        return super().form_invalid(form)

    def form_valid(self, form):  # type: ignore[no-untyped-def]
        cache.delete(_key(self.request))
        return super().form_valid(form)
