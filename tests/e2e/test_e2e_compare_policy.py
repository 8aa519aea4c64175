"""The compare view and the risk-policy page in a real browser, both languages, desk and phone."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_compare_and_policy_pages_render_in_both_languages(
    page, live_server, demo_team, shot, login
):  # type: ignore[no-untyped-def]
    login(page, live_server)
    for lang in ("zh-hans", "en"):
        if lang == "en":
            page.select_option("select[name=language]", "en")
            page.wait_for_load_state("networkidle")
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/quotes/compare/")
            assert page.locator("table.compare td.best").count() >= 2
            assert page.locator("tr[data-row=cost_per_eth] td").count() >= 3
            assert "? ?" not in page.inner_text("table.compare")
            shot(page, f"compare-{lang}-{width}")
            page.goto(f"{live_server.url}/rankings/risk-policy/")
            assert page.locator("#policy-form select").count() >= 4
            shot(page, f"policy-{lang}-{width}")
