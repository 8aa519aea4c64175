"""The team's risk policy page and API: a team admin sets each action (exclude, mark, premium),
the next ranking follows it and the page links to it; bad values are refused in both languages
with nothing saved; every change is audited; analysts read but cannot change it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.admin.models import LogEntry
from django.forms.models import model_to_dict
from django.urls import reverse

from accounts.choices import Role
from core.models import JobStatus
from quotes.models import WorkloadProfile
from quotes.testing import make_quote
from rankings.forms import RiskPolicyForm
from rankings.models import RankingRun, TeamRiskPolicy
from rankings.tasks import run_job
from vendors.models import DataCentre, NetworkProfile, Vendor
from vendors.services import vendor_refresh_findings

pytestmark = pytest.mark.django_db
URL = reverse("rankings:policy")


@pytest.fixture
def admin_a(make_user, team_a):  # type: ignore[no-untyped-def]
    return make_user("adele", team_a, Role.ADMIN)


@pytest.fixture
def hostile(team_a, analyst_a):  # type: ignore[no-untyped-def]
    """The demo quotes plus the cheapest quote of all from a vendor with no telecom licence."""
    import quotes.demo
    import vendors.demo

    vendors.demo.load(team=team_a, user=analyst_a)
    quotes.demo.load(team=team_a, user=analyst_a)
    vendor = Vendor.objects.create(team=team_a, name_en="No Licence Co", name_zh="无证公司",
                                   services=["gpu_rental", "idc"])  # fmt: skip
    dc = DataCentre.objects.create(vendor=vendor, name="无证机房", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="ib", nic_gbps=Decimal("400"))
    vendor_refresh_findings(vendor=vendor)
    quote = make_quote(team_a, analyst_a, vendor, label="unlicensed", fabric="ib", nic_gbps=400.0,
                       nics_per_node=4, price_per_node_month=Decimal("30000"))  # fmt: skip
    return quote


def _form(**over):  # type: ignore[no-untyped-def]
    """The default policy as the page posts it, with some values changed."""
    data = model_to_dict(TeamRiskPolicy(), fields=RiskPolicyForm._meta.fields)
    return {**{k: str(v) for k, v in data.items()}, **over}


def _rank(team, user):  # type: ignore[no-untyped-def]
    workload = WorkloadProfile.objects.for_team(team).get(preset="pretrain-7b")
    run = RankingRun.objects.create(team=team, created_by=user, workload=workload)
    run_job(run.pk)
    run.refresh_from_db()
    assert run.status == JobStatus.DONE, run.error
    return run


@pytest.mark.parametrize(
    ("action", "eligible", "premium"),
    [("exclude", False, 0.0), ("mark", True, 0.0), ("premium", True, 15.0)],
)
def test_each_action_set_on_the_page_is_what_the_next_ranking_does(
    action, eligible, premium, hostile, admin_a, analyst_a, client_as, team_a
):  # type: ignore[no-untyped-def]
    client = client_as(admin_a)
    # only the critical finding counts here: the other severities are ignored
    form = _form(
        critical_action=action, critical_premium_pct=str(premium),
        warning_action="ignore", info_action="ignore", unverified_bandwidth="none",
    )  # fmt: skip
    assert client.post(URL, form).status_code == 302
    run = _rank(team_a, analyst_a)
    result = run.results.get(label="unlicensed")
    assert result.eligible is eligible
    assert result.risk_action == action
    assert result.risk_premium_pct == pytest.approx(premium)
    if action == "exclude":
        assert not result.recommended and result.decision_rank is None
    else:
        assert result.risk_marks  # ranked, with its finding visible
    if action == "premium":
        assert result.risk_adjusted_cost_per_eth == pytest.approx(
            result.cost_per_eth * 1.15, rel=1e-6
        )  # fmt: skip
    # the run page names the policy it used and links to this page
    client.cookies["django_language"] = "en"
    html = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert f'href="{URL}"' in html and "Policy used:" in html
    entry = LogEntry.objects.get()
    assert entry.user == admin_a and entry.object_id == str(TeamRiskPolicy.objects.get().pk)


def test_a_policy_excluding_every_offer_says_so_on_the_page_with_the_default_s_choice(
    hostile, admin_a, analyst_a, client_as, team_a
):  # type: ignore[no-untyped-def]
    client = client_as(admin_a)
    form = _form(warning_action="exclude", info_action="exclude", unverified_bandwidth="critical")
    assert client.post(URL, form).status_code == 302
    run = _rank(team_a, analyst_a)
    assert not run.results.filter(eligible=True).exists()
    client.cookies["django_language"] = "en"
    html = client.get(reverse("rankings:detail", args=[run.pk])).content.decode()
    assert "No offer is eligible under the team" in html
    assert "Eligible under the default policy:" in html
    assert html.count('class="excluded') == run.results.count()


@pytest.mark.parametrize(
    ("lang", "text"),
    [("en", "Give a percentage from 0 to 100."), ("zh-hans", "有效的选项")],  # Django's own zh text
)
def test_bad_values_are_refused_in_the_user_s_language_and_nothing_is_saved(
    lang, text, admin_a, client_as
):  # type: ignore[no-untyped-def]
    client = client_as(admin_a)
    client.cookies["django_language"] = lang
    page = client.post(URL, _form(warning_premium_pct="150", critical_action="explode"))
    assert page.status_code == 400 and text in page.content.decode()
    assert not TeamRiskPolicy.objects.exists() and not LogEntry.objects.exists()


def test_analysts_read_the_policy_but_only_an_admin_changes_it(
    analyst_a, admin_a, client_as, team_a
):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    page = client.get(URL)
    assert page.status_code == 200 and "disabled" in page.content.decode()
    assert client.post(URL, _form()).status_code == 403
    assert not TeamRiskPolicy.objects.exists()


def test_the_api_reads_and_patches_the_policy_with_the_same_checks(
    api_as, admin_a, analyst_a, team_a, team_b
):  # type: ignore[no-untyped-def]
    api = api_as(admin_a)
    body = api.get("/api/v1/risk-policy/").json()
    assert body["is_default"] and body["critical_action"] == "exclude"
    r = api.patch("/api/v1/risk-policy/", {"warning_premium_pct": 7}, format="json")
    assert r.status_code == 200 and r.json()["warning_premium_pct"] == 7.0
    assert TeamRiskPolicy.objects.get(team=team_a).warning_premium_pct == 7.0
    bad = api.patch("/api/v1/risk-policy/", {"info_action": "explode"}, format="json")
    assert bad.status_code == 400 and "info_action" in bad.json()
    assert api_as(analyst_a).patch(
        "/api/v1/risk-policy/", {"warning_premium_pct": 1}, format="json"
    ).status_code == 403  # fmt: skip
    assert LogEntry.objects.count() == 1
    assert not TeamRiskPolicy.objects.filter(team=team_b).exists()
