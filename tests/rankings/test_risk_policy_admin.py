"""A team admin edits the team's risk policy in the admin; another team's policy stays out of
reach, and an impossible policy is refused with a message, never a 500."""

import pytest
from django.contrib.auth.models import Permission

from rankings.models import TeamRiskPolicy
from rankings.selectors import team_risk_policy

pytestmark = pytest.mark.django_db

URL = "/admin/rankings/teamriskpolicy/"


@pytest.fixture
def staff(make_user, team_a):  # type: ignore[no-untyped-def]
    user = make_user("staffer", team_a, "admin", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="rankings"))
    return user


def _form(**over):  # type: ignore[no-untyped-def]
    data = {
        "critical_action": "exclude", "critical_premium_pct": "0",
        "critical_premium_cny_month": "0", "warning_action": "premium",
        "warning_premium_pct": "5", "warning_premium_cny_month": "0", "info_action": "mark",
        "info_premium_pct": "0", "info_premium_cny_month": "0",
        "unverified_bandwidth": "critical", "premium_cap_pct": "20",
    }  # fmt: skip
    data.update(over)
    return data


def test_a_team_admin_sets_the_policy_the_next_ranking_uses(client_as, staff, team_a):
    from domain.eligibility import DEFAULT_POLICY

    assert team_risk_policy(team=team_a) == DEFAULT_POLICY
    client = client_as(staff)
    assert client.post(URL + "add/", _form()).status_code == 302
    policy = team_risk_policy(team=team_a)
    assert policy.warning.premium_pct == 5.0 and policy.unverified_bandwidth == "critical"
    assert TeamRiskPolicy.objects.get().team == team_a  # the team comes from the staff user


def test_an_impossible_policy_is_refused_with_a_message(client_as, staff):
    client = client_as(staff)
    client.cookies["django_language"] = "en"
    page = client.post(URL + "add/", _form(warning_premium_pct="150"))
    assert page.status_code == 200 and "premium must be 0-100" in page.content.decode()
    assert not TeamRiskPolicy.objects.exists()


def test_another_team_s_policy_is_out_of_reach(client_as, staff, team_a, team_b):
    other = TeamRiskPolicy.objects.create(team=team_b, warning_action="exclude")
    TeamRiskPolicy.objects.create(team=team_a)
    client = client_as(staff)
    page = client.get(URL).content.decode()
    assert "Team A 甲" in page and "Team B 乙" not in page
    assert client.get(f"{URL}{other.pk}/change/").status_code in (302, 404)
