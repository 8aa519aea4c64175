"""An existing workload can be edited on its own page, its architecture and layout included;
rankings already run keep the snapshot they were computed with; other teams and viewers cannot."""

from __future__ import annotations

import pytest
from django.urls import reverse

from quotes.models import WorkloadProfile

from .test_workload_architecture import URL, _post

pytestmark = pytest.mark.django_db


def _created(client) -> WorkloadProfile:  # type: ignore[no-untyped-def]
    r = client.post(URL, _post(preset="llama3-70b", tp=8, pp=4, zero_stage="1"))
    assert r.status_code == 302
    return WorkloadProfile.objects.get(name="70B job")


def test_the_edit_page_shows_the_stored_architecture_and_saves_a_new_one(client_as, analyst_a):  # type: ignore[no-untyped-def]
    page = client_as(analyst_a)
    w = _created(page)
    edit = reverse("quotes:workload_edit", args=[w.pk])
    html = page.get(edit).content.decode()
    assert 'name="layers" value="80"' in html and 'name="tp" value="8"' in html
    assert (
        "Edit workload" in html and edit in page.get(reverse("quotes:workloads")).content.decode()
    )
    r = page.post(edit, _post(name="70B job, TP 4", tp=4, pp=8, zero_stage="1", layers=96))
    assert r.status_code == 302
    w.refresh_from_db()
    assert w.name == "70B job, TP 4"
    assert w.architecture["model"]["layers"] == 96
    assert w.architecture["parallel"] == {"tp": 4, "pp": 8, "zero_stage": 1}
    assert WorkloadProfile.objects.count() == 1  # edited in place, not copied


def test_an_impossible_edit_is_a_400_in_the_users_language_and_changes_nothing(
    client_as, analyst_a
):  # type: ignore[no-untyped-def]
    page = client_as(analyst_a)
    w = _created(page)
    edit = reverse("quotes:workload_edit", args=[w.pk])
    r = page.post(edit, _post(tp=3), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400 and "不能整除注意力头数" in r.content.decode()
    w.refresh_from_db()
    assert w.architecture["parallel"] == {"tp": 8, "pp": 4, "zero_stage": 1}


def test_other_teams_and_viewers_cannot_edit(client_as, analyst_a, analyst_b, viewer_a):  # type: ignore[no-untyped-def]
    w = _created(client_as(analyst_a))
    edit = reverse("quotes:workload_edit", args=[w.pk])
    assert client_as(analyst_b).get(edit).status_code == 404
    assert client_as(analyst_b).post(edit, _post(layers=1)).status_code == 404
    assert client_as(viewer_a).get(edit).status_code == 403
    w.refresh_from_db()
    assert w.architecture["model"]["layers"] == 80
