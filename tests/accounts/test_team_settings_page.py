"""The team settings page: a team admin sets the standing rule for inviting vendors (minimum
delivered ÷ committed, warn or refuse) and the tax basis; bad values are refused in the reader's
language with nothing saved (never a 500); other roles read it and cannot change it; the change
is logged; the menu links to it for admins only."""

from __future__ import annotations

import re

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from accounts.choices import Role
from accounts.models import Team

pytestmark = pytest.mark.django_db
URL = reverse("team-settings")


@pytest.fixture
def admin_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("adele", team_a, Role.ADMIN)


def _post(client, lang: str, **data):  # type: ignore[no-untyped-def]
    form = {"min_delivered_ratio": "0.8", "standing_rule_mode": "block",
            "tax_basis": "excl_vat", **data}  # fmt: skip
    return client.post(URL, form, HTTP_ACCEPT_LANGUAGE=lang)


def _errors(html: str) -> str:
    return " ".join(re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', html, re.S))


@pytest.mark.parametrize(
    ("lang", "title", "saved"),
    [
        ("en", "Team settings", "settings are saved; the next"),
        ("zh-hans", "团队设置", "团队设置已保存"),
    ],
)
def test_an_admin_sets_the_standing_rule_in_both_languages(  # type: ignore[no-untyped-def]
    admin_a, team_a, client_as, lang, title, saved
):
    client = client_as(admin_a)
    page = client.get(URL, HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert f"<h1>{title}</h1>" in page and 'id="team-settings-link"' in page
    assert 'name="min_delivered_ratio"' in page and "<fieldset disabled" not in page
    r = _post(client, lang, tax_basis="incl_vat")
    assert r.status_code == 302 and r["Location"] == URL
    team = Team.objects.get(pk=team_a.pk)
    assert (team.min_delivered_ratio, team.standing_rule_mode, team.tax_basis) == (
        0.8, "block", "incl_vat")  # fmt: skip
    assert saved in client.get(URL, HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    entry = LogEntry.objects.get(object_id=str(team_a.pk))
    assert "min_delivered_ratio" in entry.change_message and entry.user_id == admin_a.pk
    r = _post(client, lang, min_delivered_ratio="")  # empty: no rule
    assert r.status_code == 302 and Team.objects.get(pk=team_a.pk).min_delivered_ratio is None


@pytest.mark.parametrize(
    ("value", "lang", "message"),
    [
        ("0", "en", "a fraction above 0 and at most 1"),
        ("-0.5", "en", "a fraction above 0 and at most 1"),
        ("1.01", "zh-hans", "大于 0 且不超过 1 的小数"),
        ("80", "zh-hans", "大于 0 且不超过 1 的小数"),
        ("nan", "en", "Enter a number"),
        ("inf", "en", "Enter a number"),
        ("0,8", "en", "Enter a number"),
        ("abc", "zh-hans", "请输入数字"),
        ("1e400", "en", "Enter a number"),
    ],
)
def test_a_bad_ratio_is_refused_in_the_readers_language_and_nothing_is_saved(  # type: ignore[no-untyped-def]
    admin_a, team_a, client_as, value, lang, message
):
    r = _post(client_as(admin_a), lang, min_delivered_ratio=value, standing_rule_mode="block")
    assert r.status_code == 400
    assert message in _errors(r.content.decode())
    team = Team.objects.get(pk=team_a.pk)
    assert (team.min_delivered_ratio, team.standing_rule_mode) == (None, "warn")
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("standing_rule_mode", "ignore"),
        ("tax_basis", "gross"),
        ("standing_rule_mode", ""),
    ],  # fmt: skip
)
def test_an_unknown_choice_is_refused(admin_a, team_a, client_as, field, value):  # type: ignore[no-untyped-def]
    r = _post(client_as(admin_a), "zh-hans", **{field: value})
    assert r.status_code == 400 and _errors(r.content.decode())
    assert Team.objects.get(pk=team_a.pk).min_delivered_ratio is None


@pytest.mark.parametrize("role", [Role.ANALYST, Role.VIEWER])
def test_other_roles_read_the_rule_but_cannot_change_it(  # type: ignore[no-untyped-def]
    make_user, team_a, client_as, role
):
    client = client_as(make_user("someone", team_a, role))
    page = client.get(URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<fieldset disabled>" in page and 'id="team-settings-link"' not in page
    assert "Only a team admin can change the team" in page
    assert _post(client, "en").status_code == 403
    assert Team.objects.get(pk=team_a.pk).min_delivered_ratio is None


def test_one_teams_admin_changes_only_its_own_team(admin_a, team_a, team_b, client_as):  # type: ignore[no-untyped-def]
    assert _post(client_as(admin_a), "en").status_code == 302
    assert Team.objects.get(pk=team_b.pk).min_delivered_ratio is None


def test_without_a_team_or_a_login_there_is_no_settings_page(make_user, client, client_as):  # type: ignore[no-untyped-def]
    assert client.get(URL).status_code == 302  # to the login page
    assert client.post(URL, {}).status_code == 302
    loner = client_as(make_user("loner", None))
    assert loner.get(URL).status_code == 403 and loner.post(URL, {}).status_code == 403
