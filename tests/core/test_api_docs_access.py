"""The API schema and its docs page are for signed-in users only (README, Design)."""

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_anonymous_clients_get_neither_the_schema_nor_the_docs(client):  # type: ignore[no-untyped-def]
    schema = client.get(reverse("schema"), HTTP_ACCEPT="application/json")
    assert schema.status_code in (401, 403)
    assert b"/api/v1/" not in schema.content  # no list of the endpoints
    docs = client.get(reverse("swagger-ui"))
    assert docs.status_code == 302
    assert docs["Location"].startswith(reverse("login") + "?next=")


def test_signed_in_users_and_token_clients_read_them(client_as, analyst_a, make_user):  # type: ignore[no-untyped-def]
    page = client_as(analyst_a)
    schema = page.get(reverse("schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200 and "/api/v1/test-runs/" in schema.json()["paths"]
    assert page.get(reverse("swagger-ui")).status_code == 200
    supplier = make_user("api-reader", None)  # no team: a supplier integrating with its endpoints
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=supplier).key}")
    assert api.get(reverse("schema"), HTTP_ACCEPT="application/json").status_code == 200
