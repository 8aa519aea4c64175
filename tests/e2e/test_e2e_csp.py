"""The Content-Security-Policy in a real browser: the pages with figures (ranking, benchmark
run and log, serving) draw them with no policy violation, the language switch still submits,
and the API docs still load."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

WATCH = (
    "window.__csp = [];"
    "document.addEventListener('securitypolicyviolation',"
    " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
)


def test_pages_draw_their_figures_without_a_policy_violation(page, live_server, demo_team, login):  # type: ignore[no-untyped-def]
    from benchmarks.models import BenchmarkLog, TestRun
    from rankings.models import RankingRun
    from serving.models import ServingWorkload

    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if "Content Security" in m.text else None)
    page.add_init_script(WATCH)
    login(page, live_server)
    ranking = RankingRun.objects.filter(team=demo_team, status="done").order_by("pk").first()
    run = TestRun.objects.filter(team=demo_team, status="done").order_by("pk").first()
    log = BenchmarkLog.objects.filter(team=demo_team, status="done").order_by("pk").first()
    serving = ServingWorkload.objects.filter(team=demo_team).order_by("pk").first()
    for path in (
        f"/rankings/{ranking.pk}/",
        f"/benchmarks/runs/{run.pk}/",
        f"/benchmarks/logs/{log.pk}/",
        f"/serving/workloads/{serving.pk}/",
    ):
        response = page.goto(f"{live_server.url}{path}")
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
        drawn = page.locator(".chart-figure.js-plotly-plot").count()
        assert drawn >= 1 and drawn == page.locator(".chart-figure").count(), path
        assert page.evaluate("window.__csp") == [], (path, page.evaluate("window.__csp"))
    assert errors == []
    # the language switch (no inline onchange) still submits
    with page.expect_navigation():
        page.select_option("select[name=language]", "en")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.lang") == "en"
    page.goto(f"{live_server.url}/api/v1/docs/")
    page.wait_for_selector(".swagger-ui .information-container", timeout=20_000)
    assert page.evaluate("window.__csp") == [] and errors == []
