"""No user ever sees or changes another team's vendors: pages, API and admin."""

import pytest
from django.urls import reverse

from vendors.models import Licence, Vendor

pytestmark = pytest.mark.django_db


def _child_urls(v):  # type: ignore[no-untyped-def]
    lic = v.licences.first()
    dc = v.data_centres.first()
    return [
        f"/api/v1/vendors/{v.pk}/",
        f"/api/v1/vendors/{v.pk}/licences/",
        f"/api/v1/vendors/{v.pk}/licences/{lic.pk}/",
        f"/api/v1/vendors/{v.pk}/icp-filings/",
        f"/api/v1/vendors/{v.pk}/certifications/",
        f"/api/v1/vendors/{v.pk}/data-centres/",
        f"/api/v1/vendors/{v.pk}/data-centres/{dc.pk}/",
        f"/api/v1/vendors/{v.pk}/data-centres/{dc.pk}/network/",
        f"/api/v1/vendors/{v.pk}/sla/",
    ]


def test_the_api_vendor_list_shows_only_the_callers_team(api_as, analyst_a, vendor_a, vendor_b):
    data = api_as(analyst_a).get("/api/v1/vendors/").json()
    names = [v["name_en"] for v in data["results"]]
    assert names == ["Vendor of A"]


def test_another_teams_vendor_and_children_are_404_over_the_api(api_as, analyst_a, vendor_b):
    client = api_as(analyst_a)
    for url in _child_urls(vendor_b):
        assert client.get(url).status_code == 404, url


def test_writes_into_another_team_are_refused_over_the_api(api_as, analyst_a, vendor_b):
    client = api_as(analyst_a)
    lic = vendor_b.licences.first()
    assert (
        client.patch(
            f"/api/v1/vendors/{vendor_b.pk}/", {"name_en": "hacked"}, format="json"
        ).status_code
        == 404
    )
    assert client.delete(f"/api/v1/vendors/{vendor_b.pk}/").status_code == 404
    assert (
        client.patch(
            f"/api/v1/vendors/{vendor_b.pk}/licences/{lic.pk}/",
            {"number": "B1-20180001"},
            format="json",
        ).status_code
        == 404
    )
    created = client.post(
        f"/api/v1/vendors/{vendor_b.pk}/licences/", {"number": "B1-20180001"}, format="json"
    )
    assert created.status_code == 404
    vendor_b.refresh_from_db()
    assert vendor_b.name_en == "Secret vendor of B"
    assert Licence.objects.filter(vendor=vendor_b).count() == 1


def test_a_viewer_reads_but_cannot_write(api_as, client_as, viewer_a, vendor_a):
    api = api_as(viewer_a)
    assert api.get("/api/v1/vendors/").status_code == 200
    assert api.post("/api/v1/vendors/", {"name_zh": "新厂商"}, format="json").status_code == 403
    assert (
        api.patch(f"/api/v1/vendors/{vendor_a.pk}/", {"name_en": "x"}, format="json").status_code
        == 403
    )
    page = client_as(viewer_a)
    assert page.get(reverse("vendors:edit", args=[vendor_a.pk])).status_code == 403
    assert page.post(reverse("vendors:create"), {"name_zh": "新"}).status_code == 403


def test_pages_never_show_another_teams_vendor(client_as, analyst_a, vendor_a, vendor_b):
    client = client_as(analyst_a)
    listing = client.get(reverse("vendors:list")).content.decode()
    assert "甲方厂商" in listing and "乙方秘密厂商" not in listing
    assert client.get(reverse("vendors:detail", args=[vendor_b.pk])).status_code == 404
    assert client.get(reverse("vendors:edit", args=[vendor_b.pk])).status_code == 404
    lic = vendor_b.licences.first()
    assert (
        client.get(reverse("vendors:child_edit", args=[vendor_b.pk, "licence", lic.pk])).status_code
        == 404
    )
    assert (
        client.post(
            reverse("vendors:child_create", args=[vendor_b.pk, "licence"]),
            {"number": "B1-20180001"},
        ).status_code
        == 404
    )
    dc = vendor_b.data_centres.first()
    assert client.get(reverse("vendors:network", args=[dc.pk])).status_code == 404
    assert (
        client.post(reverse("vendors:edit", args=[vendor_b.pk]), {"name_zh": "x"}).status_code
        == 404
    )
    vendor_b.refresh_from_db()
    assert vendor_b.name_zh == "乙方秘密厂商"


def test_the_admin_shows_staff_only_their_team(client_as, make_user, team_a, vendor_a, vendor_b):
    staff = make_user("staffer", team_a, "admin", is_staff=True)
    from django.contrib.auth.models import Permission

    staff.user_permissions.set(Permission.objects.filter(content_type__app_label="vendors"))
    client = client_as(staff)
    page = client.get("/admin/vendors/vendor/").content.decode()
    assert "甲方厂商" in page and "乙方秘密厂商" not in page
    assert client.get(f"/admin/vendors/vendor/{vendor_b.pk}/change/").status_code in (302, 404)
    lic_page = client.get("/admin/vendors/licence/").content.decode()
    assert "20190001" in lic_page and "20190002" not in lic_page


def test_a_user_without_a_team_sees_nothing(api_as, client_as, make_user, vendor_a):
    loner = make_user("loner", None)
    assert api_as(loner).get("/api/v1/vendors/").status_code == 403
    assert client_as(loner).get(reverse("vendors:list")).status_code == 403


def test_anonymous_users_are_sent_to_login(client, vendor_a):
    response = client.get(reverse("vendors:detail", args=[vendor_a.pk]))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert Vendor.objects.count() == 1


def test_the_vendor_list_api_pins_its_query_count(
    api_as, analyst_a, team_a, django_assert_max_num_queries
):
    for i in range(30):
        Vendor.objects.create(team=team_a, name_zh=f"厂商{i}")
    client = api_as(analyst_a)
    with django_assert_max_num_queries(6):
        assert client.get("/api/v1/vendors/").status_code == 200


def test_the_vendor_list_page_pins_its_query_count(
    client_as, analyst_a, team_a, django_assert_max_num_queries
):
    from vendors.models import DataCentre, NetworkProfile

    for i in range(20):
        v = Vendor.objects.create(team=team_a, name_zh=f"厂商{i}")
        dc = DataCentre.objects.create(vendor=v, name=f"DC{i}", province="GD")
        NetworkProfile.objects.create(data_centre=dc, fabric="ib")
    client = client_as(analyst_a)
    with django_assert_max_num_queries(10):
        assert client.get(reverse("vendors:list")).status_code == 200


def test_the_vendor_list_page_queries_do_not_grow_with_vendors_or_data_centres(
    client_as, analyst_a, team_a, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from vendors.models import DataCentre, NetworkProfile

    def add(n: int, start: int) -> None:
        for i in range(start, start + n):
            v = Vendor.objects.create(team=team_a, name_zh=f"厂商{i:02d}")
            for j in range(2):
                dc = DataCentre.objects.create(vendor=v, name=f"DC{i}-{j}", city=f"城{i}-{j}")
                if j:
                    NetworkProfile.objects.create(data_centre=dc, fabric="roce")

    add(2, 0)
    client = client_as(analyst_a)
    client.get(reverse("vendors:list"))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("vendors:list"))
    add(23, 2)
    with django_assert_max_num_queries(len(few.captured_queries)):
        html = client.get(reverse("vendors:list")).content.decode()
    assert html.count('<td class="key">') == 25
    assert "城24-0" in html and "城24-1" in html and "RoCE" in html
