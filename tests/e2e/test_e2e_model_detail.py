"""The ranking page's per-offer "how this was estimated" block opens in a real browser, on a
wide screen and a phone (screenshots in test-artifacts/)."""

import pytest

from rankings.models import RankingRun

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("width", "lang"), [(1440, "en"), (390, "zh-hans")])
def test_the_estimate_block_opens_with_layout_memory_and_step_split(  # type: ignore[no-untyped-def]
    browser, live_server, demo_team, shot, login, width, lang
):
    run = RankingRun.objects.filter(team=demo_team, status="done").first()
    assert run is not None
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])
    page = context.new_page()
    login(page, live_server)
    page.goto(f"{live_server.url}/rankings/{run.pk}/")
    page.wait_for_load_state("networkidle")
    block = page.locator("details.model-detail").first
    block.locator("summary").click()
    body = block.locator(".model-detail-body")
    assert body.is_visible()
    text = body.inner_text()
    first = run.results.order_by("rank").first().model_detail
    assert f"{first['layout']['tp']}" in text and "GB" in text
    assert ("秒" if lang == "zh-hans" else " s") in text
    block.scroll_into_view_if_needed()
    shot(page, f"model_detail_{lang}_{width}")
    box = block.bounding_box()
    assert box is not None and box["width"] <= width  # readable without scrolling sideways
    block.screenshot(path=str(shot(page, f"model_detail_{lang}_{width}").with_suffix(".block.png")))
    context.close()
