"""Error pages: the portal's layout and a reason in the user's language, never Django's bare
"403 Forbidden" or a traceback."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import path, reverse

from accounts.choices import Role

pytestmark = pytest.mark.django_db


def _boom(request):  # type: ignore[no-untyped-def]
    raise RuntimeError("secret internal detail 42")


urlpatterns = [path("boom/", _boom)]


def test_a_viewer_refused_a_write_page_sees_why_in_chinese(make_user, team_a, client_as):  # type: ignore[no-untyped-def]
    viewer = make_user("vera", team_a, Role.VIEWER)
    client = client_as(viewer)
    response = client.get(reverse("quotes:create"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = response.content.decode()
    assert response.status_code == 403
    assert "无权访问" in text and "只能查看" in text  # title and the reason (viewer role)
    assert 'class="topbar"' in text and reverse("dashboard") in text  # the portal's layout


def test_a_user_without_a_team_is_told_so_in_english(make_user, client_as):  # type: ignore[no-untyped-def]
    loner = make_user("lone", None)
    response = client_as(loner).get(reverse("vendors:list"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403
    assert "does not belong to any team" in response.content.decode()


def test_another_teams_record_is_a_404_page_that_reveals_nothing(  # type: ignore[no-untyped-def]
    analyst_a, analyst_b, client_as
):
    from vendors.models import Vendor

    vendor = Vendor.objects.create(team=analyst_a.membership.team, name_en="Hidden Co")
    client = client_as(analyst_b)
    response = client.get(reverse("vendors:detail", args=[vendor.pk]), HTTP_ACCEPT_LANGUAGE="en")
    text = response.content.decode()
    assert response.status_code == 404
    assert "not one your team can see" in text and "Hidden Co" not in text
    assert 'class="topbar"' in text


@pytest.mark.urls(__name__)
def test_a_crash_is_a_500_page_without_the_traceback() -> None:
    client = Client(raise_request_exception=False)
    response = client.get("/boom/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = response.content.decode()
    assert response.status_code == 500
    assert "出错了" in text and "secret internal detail" not in text
    assert "/static/" in text and "portal.css" in text  # styled, from the portal itself


def test_a_bad_request_is_a_styled_400_page() -> None:
    from django.test import RequestFactory
    from django.utils import translation
    from django.views.defaults import bad_request

    with translation.override("en"):
        response = bad_request(RequestFactory().get("/"), Exception("bad header"))
    text = response.content.decode()
    assert response.status_code == 400
    assert "<title>Bad request · Procurement portal</title>" in text and "portal.css" in text
    assert "Back to the dashboard" in text and "bad header" not in text
