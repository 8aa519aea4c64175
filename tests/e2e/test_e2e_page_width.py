"""Every page of the demo on a phone (390 px) and a desktop (1440 px) in real Chromium: the page
never scrolls sideways (wide tables scroll inside their own box), even with a vendor whose name
is 200 characters long. One browser and one session per width."""

from __future__ import annotations

import os

import pytest

from demo.pages import page_urls

pytestmark = pytest.mark.e2e

WIDTHS = (390, 1440)
LONG_NAME = ("超长名称测试供应商" * 12 + "Extremely-Long-Vendor-Name-Without-Spaces-" * 3)[:200]
SCROLL_WIDTH = "() => document.scrollingElement.scrollWidth"


@pytest.fixture
def long_named_vendor(demo_team):  # type: ignore[no-untyped-def]
    from vendors.models import Vendor

    vendor = Vendor.objects.filter(team=demo_team).order_by("pk").first()
    Vendor.objects.filter(pk=vendor.pk).update(name_zh=LONG_NAME, name_en=LONG_NAME)
    return vendor


def _overflowing(page) -> str:  # type: ignore[no-untyped-def]
    """The widest elements that stick out of the viewport (what to fix), as a short text."""
    return page.evaluate(
        """() => {
          const w = document.documentElement.clientWidth, out = [];
          for (const el of document.querySelectorAll('body *')) {
            const r = el.getBoundingClientRect();
            if (r.right > w + 1 && r.width > 0) {
              let p = el.parentElement, inside = false;  // inside a box that scrolls is fine
              while (p) { const o = getComputedStyle(p).overflowX;
                if (o === 'auto' || o === 'scroll' || o === 'hidden') { inside = true; break; }
                p = p.parentElement; }
              if (!inside) out.push(`${el.tagName.toLowerCase()}.${el.className}`
                + ` right=${Math.round(r.right)}`);
            }
          }
          return out.slice(0, 6).join('; ');
        }"""
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways(browser, live_server, demo_team, long_named_vendor, login,
                                  width):  # type: ignore[no-untyped-def]  # fmt: skip
    member, supplier, unfilled = page_urls(demo_team)
    assert not unfilled
    context = browser.new_context(locale="zh-CN", viewport={"width": width, "height": 900})
    page = context.new_page()
    too_wide = {}
    try:
        for who, urls in (("demo", member), ("supplier1", supplier)):
            login(page, live_server, who, "demo" if who == "demo" else who)
            for name, url in urls:
                page.goto(live_server.url + url, wait_until="load")
                scroll = page.evaluate(SCROLL_WIDTH)
                if scroll > width:
                    too_wide[f"{name} {url}"] = f"{scroll} px: {_overflowing(page)}"
                if os.environ.get("WIDTH_SHOTS"):
                    page.screenshot(path=f"{os.environ['WIDTH_SHOTS']}/{width}-{name}.png",
                                    full_page=True)  # fmt: skip
            page.context.clear_cookies()
    finally:
        context.close()
    if too_wide and os.environ.get("WIDTH_SHOTS"):
        with open(f"{os.environ['WIDTH_SHOTS']}/too-wide-{width}.txt", "w") as fh:
            fh.write("\n".join(f"{k}: {v}" for k, v in too_wide.items()))
    assert too_wide == {}


LANGS = (("zh-CN", "zh"), ("en-US", "en"))


def _in_view(page, selector: str, width: int) -> bool:  # type: ignore[no-untyped-def]
    box = page.locator(selector).first.bounding_box()
    return (
        box is not None and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= width
    )


@pytest.mark.parametrize(("locale", "lang"), LANGS)
def test_the_navigation_folds_into_a_menu_on_a_phone_and_the_rent_stays_in_view(
    browser, live_server, demo_team, login, shot, locale, lang
):  # type: ignore[no-untyped-def]
    """390 px: the links are behind "Menu" (none scrolls off sideways); tapped, every link is
    within the screen. The quote list shows the rent without scrolling. 1440 px: the links
    are in the bar, no menu button. Screenshots of each, in both languages."""
    links = ("/serving/", "/sourcing/", "/api/v1/docs/", "/quotes/")
    for width in WIDTHS:
        context = browser.new_context(locale=locale, viewport={"width": width, "height": 900})
        page = context.new_page()
        try:
            login(page, live_server)
            page.goto(live_server.url + "/quotes/", wait_until="load")
            assert page.evaluate(SCROLL_WIDTH) <= width
            assert _in_view(page, "table.quotes tbody td.rent", width), "rent off-screen"
            nav = [f'#main-nav a[href="{href}"]' for href in links]
            if width < 600:
                assert page.locator(".nav-button").is_visible()
                assert not any(page.locator(s).is_visible() for s in nav)
                shot(page, f"nav-{width}-{lang}-closed")
                page.click(".nav-button")
                assert all(page.locator(s).is_visible() and _in_view(page, s, width) for s in nav)
                shot(page, f"nav-{width}-{lang}-open")
                page.click('#main-nav a[href="/serving/"]')
                page.wait_for_load_state("load")
                assert page.url.endswith("/serving/")
            else:
                assert not page.locator(".nav-button").is_visible()
                assert all(_in_view(page, s, width) for s in nav)
                shot(page, f"nav-{width}-{lang}")
        finally:
            context.close()


@pytest.mark.parametrize(("locale", "lang"), LANGS)
def test_the_ranking_table_fits_its_card_on_a_desktop(
    browser, live_server, demo_team, login, shot, locale, lang
):  # type: ignore[no-untyped-def]
    """1440 px: the ranking table was 1,807 px wide in a 1,168 px card (Bandwidth and Job
    hours / cost off-screen); every column now fits, the warnings wrap under their row."""
    from rankings.models import RankingRun

    run = RankingRun.objects.filter(team=demo_team, status="done").order_by("pk").first()
    context = browser.new_context(locale=locale, viewport={"width": 1440, "height": 900})
    page = context.new_page()
    try:
        login(page, live_server)
        page.goto(f"{live_server.url}/rankings/{run.pk}/", wait_until="load")
        page.wait_for_selector("#results-table")
        widths = page.evaluate(
            """() => { const t = document.querySelector('#results-table');
                       const box = t.closest('.table-scroll') || t.parentElement;
                       return [t.scrollWidth, box.clientWidth]; }"""
        )
        shot(page, f"ranking-1440-{lang}")
        assert widths[0] <= widths[1] + 1, widths
    finally:
        context.close()
