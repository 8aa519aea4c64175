"""Browser: the quote form asks to confirm unusual values, and the quote list states the tax
basis, in Chinese and English, on a desktop and a phone."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_unusual_values_need_the_confirmation_checkbox(page, live_server, demo_team, shot, login):  # type: ignore[no-untyped-def]
    login(page, live_server)
    for lang, width in (("zh-hans", 1440), ("en", 1440), ("en", 390), ("zh-hans", 390)):
        page.context.add_cookies(
            [{"name": "django_language", "value": lang, "url": live_server.url}]
        )
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/quotes/")
        basis = page.locator(".tax-basis").inner_text()
        assert ("不含税口径" if lang == "zh-hans" else "excluding VAT") in basis
        shot(page, f"money-quote-list-{lang}-{width}")
        page.goto(f"{live_server.url}/quotes/new/")
        page.select_option("select[name=vendor]", index=1)
        page.fill("input[name=label]", "unusual")
        page.select_option("select[name=gpu]", "A100-SXM4-80GB")
        for name, value in (("gpus_per_node", "8"), ("nodes", "8"),
                            ("price_per_node_month", "400"), ("nic_gbps", "100")):  # fmt: skip
            page.fill(f"input[name={name}]", value)
        page.select_option("select[name=fabric]", "roce")
        page.select_option("select[name=prices_include_vat]", "true")
        page.select_option("select[name=vat_rate]", "6")
        page.select_option("select[name=invoice_type]", "special")
        page.click("form.card button[type=submit]")
        box = page.locator("input[type=checkbox][name=confirm_outliers]")
        assert box.is_visible()
        assert ("常见范围" if lang == "zh-hans" else "usual range") in page.content()
        shot(page, f"money-confirm-{lang}-{width}")
