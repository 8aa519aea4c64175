"""The team's risk policy history: every saved version with who, when and each changed field's
value before and after, on a page every member of the team reads (not only the Django admin);
the audit entry keeps the values too; another team sees none of it."""

from __future__ import annotations

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse
from django.utils import translation

from accounts.models import Role
from rankings.models import TeamRiskPolicy

pytestmark = pytest.mark.django_db

URL = reverse("rankings:policy_history")


@pytest.fixture
def admin_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("adam", team_a, Role.ADMIN)


def _label(name: str) -> str:
    return str(TeamRiskPolicy._meta.get_field(name).verbose_name)


def test_each_change_shows_before_and_after_to_every_member(
    admin_a, analyst_a, viewer_a, analyst_b, api_as, client_as
):  # type: ignore[no-untyped-def]
    api = api_as(admin_a)
    r = api.patch("/api/v1/risk-policy/", {"warning_premium_pct": 7}, format="json")
    assert r.status_code == 200
    r = api.patch(
        "/api/v1/risk-policy/", {"warning_premium_pct": 4.5, "critical_action": "premium"},
        format="json",
    )  # fmt: skip
    assert r.status_code == 200
    # the audit entry of the second change keeps its values
    entry = LogEntry.objects.order_by("-pk").first()
    values = json.loads(entry.change_message)[0]["changed"]["values"]
    assert values["warning_premium_pct"] == [7.0, 4.5]
    assert values["critical_action"] == ["exclude", "premium"]
    for user in (analyst_a, viewer_a, admin_a):
        client = client_as(user)
        client.cookies["django_language"] = "en"
        html = client.get(URL).content.decode()
        versions = html.split('class="card policy-version"')[1:]
        assert len(versions) == 2
        newest, first = versions
        assert "adam" in newest and "policy changed" in newest
        row = newest.split(_label("warning_premium_pct").capitalize())[1].split("</tr>")[0]
        assert '"before">7<' in row and '"after">4.5<' in row
        assert _label("critical_action").capitalize() in newest
        # the first version is compared with the default policy (warning premium 2 %)
        row = first.split(_label("warning_premium_pct").capitalize())[1].split("</tr>")[0]
        assert '"before">2<' in row and '"after">7<' in row
    # the policy page links to it; another team sees no version of team A's policy
    assert URL in client_as(viewer_a).get(reverse("rankings:policy")).content.decode()
    other = client_as(analyst_b).get(URL).content.decode()
    assert 'class="card policy-version"' not in other and "adam" not in other


def test_the_history_page_is_in_chinese_and_has_a_pinned_query_count(
    admin_a, viewer_a, api_as, client_as, django_assert_max_num_queries
):  # type: ignore[no-untyped-def]
    api = api_as(admin_a)
    for pct in range(1, 31):
        r = api.patch("/api/v1/risk-policy/", {"info_premium_pct": pct}, format="json")
        assert r.status_code == 200
    client = client_as(viewer_a)
    client.cookies["django_language"] = "zh-hans"
    client.get(URL)
    with django_assert_max_num_queries(9):
        html = client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert html.count('class="card policy-version"') == 25
    with translation.override("zh-hans"):
        assert _label("info_premium_pct") in html
    page2 = client.get(URL, {"page": 2}).content.decode()
    assert page2.count('class="card policy-version"') == 5
    # page 2's oldest version is the first one: compared with the default (0 %)
    assert '"before">0<' in page2.split('class="card policy-version"')[-1]
