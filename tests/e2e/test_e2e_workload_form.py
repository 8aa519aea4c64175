"""The workload form with a real model's preset, a bad layout's messages, on a wide screen and a
phone in both languages (screenshots in test-artifacts/)."""

import pytest

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_the_workload_form_fills_a_preset_and_explains_a_bad_layout(  # type: ignore[no-untyped-def]
    browser, live_server, demo_team, shot, login, lang
):
    for width in (1440, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])
        page = context.new_page()
        login(page, live_server)
        page.goto(f"{live_server.url}/quotes/workloads/new/?preset=llama3-70b")
        assert page.input_value("input[name=layers]") == "80"
        page.fill("input[name=tp]", "3")
        page.click("button.primary")
        page.wait_for_load_state("networkidle")
        errors = page.locator(".errorlist").all_inner_texts()
        assert any(("不能整除" if lang == "zh-hans" else "does not divide") in e for e in errors)
        shot(page, f"workload_form_{lang}_{width}")
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, scroll  # nothing scrolls sideways
        context.close()
