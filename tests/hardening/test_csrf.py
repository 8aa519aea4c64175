"""CSRF on every form of the portal and on session-authenticated API writes.

The form views are found by walking the URL resolver (every route outside /api/, /admin/ and
/static/ whose view has a `post` method, plus the function views that take POST), so a new form
is covered without editing this file; a check below pins the ones that must be among them.
"""

from __future__ import annotations

import re

import pytest
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token
from rest_framework.views import APIView

pytestmark = pytest.mark.django_db

# Function views (no view_class to inspect) that accept POST.
POST_FUNCTION_VIEWS = {"set_language"}
# Form views that must be among the discovered ones (guards the discovery itself).
MUST_COVER = {
    "login", "logout", "set_language", "vendors:create", "vendors:edit", "vendors:child_create",
    "vendors:child_edit", "vendors:sla", "vendors:network", "quotes:create", "quotes:edit",
    "quotes:import", "quotes:workload_create", "benchmarks:upload", "benchmarks:thresholds",
    "rankings:start", "sourcing:create", "sourcing:action", "serving:workload_create",
    "serving:plan_create",
}  # fmt: skip
DUMMY = {"pk": "1", "vendor_pk": "1", "dc_pk": "1", "kind": "licence", "op": "publish",
         "quote_pk": "1", "award_pk": "1", "pack_pk": "1"}  # fmt: skip


def _walk(patterns, prefix: str = "", namespace: str = ""):  # type: ignore[no-untyped-def]
    for p in patterns:
        if isinstance(p, URLResolver):
            ns = f"{namespace}{p.namespace}:" if p.namespace else namespace
            yield from _walk(p.url_patterns, prefix + str(p.pattern), ns)
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern), (namespace + p.name) if p.name else None, p.callback


def _concrete(route: str) -> str:
    def fill(match: re.Match) -> str:  # type: ignore[type-arg]
        if match.group("conv") == "int:":  # an <int:...> route takes a number, whatever its name
            return DUMMY.get(match.group("name"), "1")
        return DUMMY.get(match.group("name"), "x" * 24)

    def fill_group(match: re.Match) -> str:  # type: ignore[type-arg]
        """A regular-expression route's named group: a number for a digit class, else its
        first alternative (`(?P<fmt>csv|xlsx)` -> csv)."""
        body = match.group("body")
        if body.startswith("[0-9]") or body.startswith("\\d"):
            return "1"
        return body.split("|")[0]

    path = re.sub(r"\(\?P<(?P<name>\w+)>(?P<body>[^)]*)\)", fill_group, route)
    path = re.sub(r"<(?P<conv>\w+:)?(?P<name>\w+)>", fill, path)
    path = path.replace("\\.", ".")
    return "/" + path.replace("^", "").rstrip("$")


def form_views() -> dict[str, str]:
    """name -> a concrete URL, for every page view that accepts POST."""
    found: dict[str, str] = {}
    for route, name, callback in _walk(get_resolver().url_patterns):
        if route.startswith(("api/", "admin/", "static/", "^static")) or name is None:
            continue
        cls = getattr(callback, "view_class", None)
        if cls is not None and issubclass(cls, APIView):
            continue
        accepts_post = (cls is not None and hasattr(cls, "post")) or (
            cls is None and name in POST_FUNCTION_VIEWS
        )
        if accepts_post:
            found[name] = _concrete(route)
    return found


def test_the_discovery_finds_every_known_form():  # type: ignore[no-untyped-def]
    found = form_views()
    assert set(found) >= MUST_COVER, sorted(MUST_COVER - set(found))


def test_no_page_view_is_exempt_from_csrf():  # type: ignore[no-untyped-def]
    exempt = [
        name or route
        for route, name, callback in _walk(get_resolver().url_patterns)
        if not route.startswith(("api/", "admin/")) and getattr(callback, "csrf_exempt", False)
    ]
    assert not exempt


def _is_csrf_refusal(response) -> bool:  # type: ignore[no-untyped-def]
    return response.status_code == 403 and b"CSRF" in response.content


@pytest.mark.parametrize("name", sorted(form_views()))
def test_a_form_post_needs_the_csrf_token(name, analyst_a):  # type: ignore[no-untyped-def]
    url = form_views()[name]
    client = Client(enforce_csrf_checks=True)
    client.force_login(analyst_a)
    refused = client.post(url, {"name": "x"})
    assert _is_csrf_refusal(refused), (url, refused.status_code)
    token = _get_new_csrf_string()
    client.cookies["csrftoken"] = token
    accepted = client.post(url, {"name": "x", "csrfmiddlewaretoken": token})
    assert not _is_csrf_refusal(accepted), url
    assert accepted.status_code < 500, (url, accepted.status_code)


def test_the_login_form_needs_the_token_even_before_login(analyst_a):  # type: ignore[no-untyped-def]
    client = Client(enforce_csrf_checks=True)
    assert _is_csrf_refusal(client.post("/login/", {"username": "alice", "password": "pw-alice"}))
    client.get("/login/")  # the form sets the cookie
    token = client.cookies["csrftoken"].value
    response = client.post(
        "/login/", {"username": "alice", "password": "pw-alice", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302


API_WRITES = [
    ("/api/v1/vendors/", {"name_en": "CSRF probe"}),
    (
        "/api/v1/workloads/",
        {
            "name": "csrf",
            "params_b": 7.0,
            "tokens_per_step": 4_000_000,
            "strategy": "ddp",
            "overlap": 0.5,
            "nodes": 8,
            "train_tokens": 1e12,
        },
    ),  # fmt: skip
]


@pytest.mark.parametrize(("url", "body"), API_WRITES)
def test_a_session_api_write_without_the_csrf_token_is_refused(url, body, analyst_a):  # type: ignore[no-untyped-def]
    client = Client(enforce_csrf_checks=True)
    client.force_login(analyst_a)
    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
    token = _get_new_csrf_string()
    client.cookies["csrftoken"] = token
    response = client.post(url, body, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(("url", "body"), API_WRITES)
def test_a_token_api_write_needs_no_csrf_token(url, body, analyst_a):  # type: ignore[no-untyped-def]
    token = Token.objects.create(user=analyst_a)
    client = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 201, response.content
