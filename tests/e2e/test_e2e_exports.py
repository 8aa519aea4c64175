"""Browser: a download that is not built yet shows its progress page (202, reloading itself),
the report list shows each export's progress, the ranking page links the files; in Chinese and
English, on a desktop and a phone."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_export_progress_pages(page, live_server, demo_team, shot, login):  # type: ignore[no-untyped-def]
    from rankings.models import RankingRun

    run = RankingRun.objects.filter(team=demo_team).order_by("pk").first()
    login(page, live_server)
    for n, (lang, width) in enumerate((("zh-hans", 1440), ("en", 1440), ("en", 390),
                                       ("zh-hans", 390))):  # fmt: skip
        page.context.add_cookies(
            [{"name": "django_language", "value": lang, "url": live_server.url}]
        )
        page.set_viewport_size({"width": width, "height": 900})
        # a list download nobody asked for yet: its job is stored, the page shows the progress
        order = ("label", "-label", "vendor", "-vendor")[n]  # a new file each time
        response = page.goto(f"{live_server.url}/quotes/export.xlsx?sort={order}")
        assert response.status == 202
        text = page.locator("#export-wait").inner_text()
        assert ("页面会自动刷新" if lang == "zh-hans" else "reloads by itself") in text
        assert page.locator("meta[http-equiv=refresh]").count() == 1
        shot(page, f"exports-wait-{lang}-{width}")
        page.goto(f"{live_server.url}/reports/")
        assert page.locator("table tr.export").count() >= 1
        shot(page, f"exports-report-list-{lang}-{width}")
        page.goto(f"{live_server.url}/rankings/{run.pk}/")
        links = page.locator(".exports-links a")
        assert links.count() >= 4  # the exports page and the three files
        page.locator(".exports-links").screenshot(
            path=str(shot(page, f"exports-ranking-links-{lang}-{width}"))
        )
        overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
        assert not overflow or width > 390, "the page scrolls sideways at phone width"
