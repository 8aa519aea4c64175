"""The one log-in failure limit (django-axes) for every password path: the portal's log-in page,
``/admin/login/`` and anything else that calls ``django.contrib.auth.authenticate``.

Failures are counted per normalised user name (NFKC + case folding, ``domain.usernames``) and
client address in PostgreSQL (axes' database handler), not in the shared Redis, so a Redis outage
neither breaks log-in nor lifts the limit. See settings ``AXES_*``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from domain.usernames import username_key


def axes_username(request: HttpRequest, credentials: dict | None = None) -> str:  # type: ignore[type-arg]
    """The name axes counts failures against: the normalised key of what was typed."""
    raw = None
    if credentials:
        raw = credentials.get(settings.AXES_USERNAME_FORM_FIELD)
    if raw is None:
        data = getattr(request, "data", None) or request.POST
        raw = data.get(settings.AXES_USERNAME_FORM_FIELD)
    return username_key(str(raw or ""))


def lockout_message() -> str:
    # The cool-off is settings.AXES_COOLOFF_TIME (15 minutes; tests/accounts pin the two together).
    return _("Too many failed log-in attempts. Wait 15 minutes and try again.")


def lockout_response(  # type: ignore[no-untyped-def]
    request: HttpRequest, original_response: HttpResponse | None = None, credentials=None
) -> HttpResponse:
    """The log-in page again, in the reader's language, with the lock-out reason and 429.

    The failure that reaches the limit is still answered as a wrong password (axes marks that
    request locked already); the limit refuses the attempts after it, correct passwords included.
    """
    just_counted = getattr(request, "axes_failures_since_start", None) is not None
    if just_counted and original_response is not None and original_response.status_code == 200:
        return original_response
    context = {
        "form": AuthenticationForm(request),
        "lockout_error": lockout_message(),
        "next": request.POST.get("next", ""),
    }
    return render(
        request, "registration/login.html", context, status=settings.AXES_HTTP_RESPONSE_CODE
    )
