"""A Content-Security-Policy header on every answer, scripts from the portal's own files only;
no page holds an inline script or event handler it would refuse (figures are JSON data blocks,
drawn by static/core/figures.js). The browser half is tests/e2e/test_e2e_csp.py."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(team_a, analyst_a):  # type: ignore[no-untyped-def]
    import benchmarks.demo
    import quotes.demo
    import rankings.demo
    import serving.demo
    import vendors.demo
    from benchmarks.models import BenchmarkLog, TestRun
    from rankings.models import RankingRun
    from serving.models import MixedPlan, ServingWorkload

    for module in (vendors.demo, quotes.demo, benchmarks.demo, rankings.demo, serving.demo):
        module.load(team=team_a, user=analyst_a)
    return {
        "ranking": RankingRun.objects.get(team=team_a),
        "run": TestRun.objects.filter(team=team_a, status="done").first(),
        "log": BenchmarkLog.objects.filter(team=team_a, status="done").first(),
        "workload": ServingWorkload.objects.filter(team=team_a).first(),
        "plan": MixedPlan.objects.filter(team=team_a).first(),
    }


def _pages(d):  # type: ignore[no-untyped-def]
    yield reverse("dashboard")
    yield reverse("vendors:list")
    yield "/quotes/"
    yield reverse("rankings:detail", args=[d["ranking"].pk])
    yield reverse("rankings:policy")
    yield reverse("benchmarks:run", args=[d["run"].pk])
    yield reverse("benchmarks:log", args=[d["log"].pk])
    yield reverse("serving:workload", args=[d["workload"].pk])
    if d["plan"] is not None:
        yield reverse("serving:plan", args=[d["plan"].pk])
    yield "/api/v1/docs/"


def test_every_page_has_the_policy_and_runs_no_inline_script(demo, analyst_a, client_as):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    charts = 0
    for url in _pages(demo):
        response = client.get(url)
        assert response.status_code == 200, url
        policy = response["Content-Security-Policy"]
        assert (
            "script-src 'self'" in policy
            and "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        ), url
        html = response.content.decode()
        for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S):
            assert "src=" in attrs or 'type="application/json"' in attrs, (url, body[:80])
        assert not re.search(r"<[^>]+\son[a-z]+=", html), url  # no onchange=, onclick=
        assert "Plotly.newPlot" not in html, url
        charts += html.count("chart-figure")
    assert charts >= 5  # the ranking's, the benchmark's and the serving pages' figures


def test_the_api_and_the_login_page_carry_the_policy(client, analyst_a, api_as):  # type: ignore[no-untyped-def]
    assert "default-src 'self'" in client.get(reverse("login"))["Content-Security-Policy"]
    assert (
        "default-src 'self'" in api_as(analyst_a).get("/api/v1/vendors/")["Content-Security-Policy"]
    )


def test_the_docs_set_up_script_is_a_file_of_the_portal(analyst_a, client_as):  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    html = client.get("/api/v1/docs/").content.decode()
    src = re.search(r'<script src="(/api/v1/docs/\?[^"]*script[^"]*)"', html)
    assert src, "the Swagger UI's set-up script is not served as a file"
    script = client.get(src.group(1).replace("&amp;", "&"))
    assert script.status_code == 200 and "SwaggerUIBundle" in script.content.decode()
