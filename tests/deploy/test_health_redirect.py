"""The container healthcheck reaches the health view over plain HTTP even with HTTPS redirects."""

import pytest

pytestmark = pytest.mark.django_db


def test_health_is_exempt_from_the_https_redirect_and_pages_are_not(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    health = client.get("/health/")
    assert health.status_code == 200
    page = client.get("/vendors/")
    assert page.status_code == 301 and page["Location"].startswith("https://")
