"""Two tabs editing one vendor: the second save, based on the version the first replaced, is
refused with what changed since (409 page with the current values; API 412 when If-Match is
stale), as quotes do; nothing of it is saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

from vendors.models import Vendor

pytestmark = pytest.mark.django_db


@pytest.fixture
def vendor(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="甲厂", name_en="Jia Co", notes="first")


def _posted(form) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """What the browser posts for the form as it was rendered (hidden stamp included)."""
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is None:
            continue
        data[name] = value if isinstance(value, list) else str(value)
    return data


def test_the_second_tab_gets_409_with_what_changed(client_as, analyst_a, vendor):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    url = reverse("vendors:edit", args=[vendor.pk])
    tab1 = _posted(client.get(url).context["form"])
    tab2 = _posted(client.get(url).context["form"])
    assert tab1["based_on"]
    r = client.post(url, {**tab1, "notes": "from tab one"})
    assert r.status_code == 302
    r = client.post(url, {**tab2, "notes": "from tab two", "short_name": "J"},
                    HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert r.status_code == 409
    html = r.content.decode()
    assert "Someone else changed this vendor since you opened it" in html
    rows = r.context["conflict"]["rows"]
    assert [(row["current"], row["yours"]) for row in rows] == [("from tab one", "from tab two")]
    vendor.refresh_from_db()
    assert (vendor.notes, vendor.short_name) == ("from tab one", "")
    # the 409 page's form carries the current stamp: saving it again goes through
    again = _posted(r.context["form"])
    assert client.post(url, {**again, "notes": "merged"}).status_code == 302
    vendor.refresh_from_db()
    assert vendor.notes == "merged"


def test_an_edit_without_the_stamp_is_refused(client_as, analyst_a, vendor):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    url = reverse("vendors:edit", args=[vendor.pk])
    data = _posted(client.get(url).context["form"])
    del data["based_on"]
    r = client.post(url, {**data, "notes": "blind"}, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 400 and "which version of the vendor" in r.content.decode()
    vendor.refresh_from_db()
    assert vendor.notes == "first"


def test_the_api_checks_if_match_against_the_etag(api_as, analyst_a, vendor):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    url = f"/api/v1/vendors/{vendor.pk}/"
    tag = api.get(url).headers["ETag"]
    r = api.patch(url, {"notes": "one"}, format="json", HTTP_IF_MATCH=tag)
    assert r.status_code == 200 and r.headers["ETag"] != tag
    r = api.patch(url, {"notes": "two"}, format="json", HTTP_IF_MATCH=tag,
                  HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert r.status_code == 412
    body = r.json()
    assert body["code"] == "stale_version" and body["changed"] == {"notes": "one"}
    assert r.headers["ETag"] == api.get(url).headers["ETag"]
    vendor.refresh_from_db()
    assert vendor.notes == "one"
    fresh = api.get(url).headers["ETag"]
    assert api.patch(url, {"notes": "three"}, format="json",
                     HTTP_IF_MATCH=fresh).status_code == 200  # fmt: skip
