"""The Content-Security-Policy header on every answer (defence in depth behind escaping).

Scripts, frames, fonts, images and connections come from the portal itself only: no inline
script or event handler runs (figures are JSON data blocks drawn by static/core/figures.js, the
language switch is static/core/autosubmit.js). Styles also allow inline ``style`` attributes and
the style elements plotly.js inserts; images also allow ``data:`` URLs (plotly's toolbar, the
Swagger UI's icons). A view that sets its own header keeps it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = settings.CONTENT_SECURITY_POLICY

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.policy and HEADER not in response:
            response[HEADER] = self.policy
        return response
