"""Object permission of nested API resources follows the view's `team_path`.

A licence or a network profile has no team of its own: it belongs to its vendor's (or its data
centre's vendor's) team. Before the fix, `TeamRolePermission` read `obj.team_id`, which such rows
do not have, so their own team got 403 on every detail route.
"""

from __future__ import annotations

from datetime import date

import pytest

from accounts.choices import Role
from quotes.testing import seed_quotes
from vendors.models import Licence


@pytest.fixture
def nested(team_a, analyst_a):  # type: ignore[no-untyped-def]
    tcp, _ = seed_quotes(team_a, analyst_a)
    vendor = tcp.vendor
    dc = vendor.data_centres.first()
    licence = Licence.objects.create(
        vendor=vendor, number="B1-20230001", valid_until=date(2030, 1, 1)
    )
    return {
        "licence": f"/api/v1/vendors/{vendor.pk}/licences/{licence.pk}/",
        "network": f"/api/v1/vendors/{vendor.pk}/data-centres/{dc.pk}/network/{dc.network.pk}/",
    }


@pytest.mark.django_db
def test_own_team_reads_and_writes_nested_rows(nested, analyst_a, api_as):  # type: ignore[no-untyped-def]
    client = api_as(analyst_a)
    for name, url in nested.items():
        assert client.get(url).status_code == 200, name
    response = client.patch(nested["licence"], {"number": "B1-20230002"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["number"] == "B1-20230002"


@pytest.mark.django_db
def test_viewer_reads_but_cannot_write(nested, make_user, team_a, api_as):  # type: ignore[no-untyped-def]
    client = api_as(make_user("vera", team_a, Role.VIEWER))
    assert client.get(nested["licence"]).status_code == 200
    assert client.patch(nested["licence"], {"number": "X"}, format="json").status_code == 403


@pytest.mark.django_db
def test_other_team_gets_404(nested, analyst_b, api_as):  # type: ignore[no-untyped-def]
    client = api_as(analyst_b)
    for name, url in nested.items():
        assert client.get(url).status_code == 404, name
        assert client.delete(url).status_code == 404, name
