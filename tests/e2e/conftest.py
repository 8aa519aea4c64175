"""Browser tests: Playwright driving Debian's headless Chromium against a live server."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# Playwright's sync API keeps an event loop in the test thread; the ORM calls made by fixtures
# are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser():  # type: ignore[no-untyped-def]
    if not CHROMIUM:
        pytest.skip("Debian chromium is not installed (make sysdeps installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def shot():  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name: str) -> Path:  # type: ignore[no-untyped-def]
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


@pytest.fixture
def demo_team(transactional_db, settings):  # type: ignore[no-untyped-def]
    from django.core.management import call_command

    settings.DEBUG = True
    call_command("demo_setup", "--reset")
    from accounts.models import Team

    return Team.objects.get(slug="demo")


@pytest.fixture
def login():  # type: ignore[no-untyped-def]
    return _login


def _login(page, live_server, username: str = "demo", password: str = "demo") -> None:  # type: ignore[no-untyped-def]  # noqa: S107
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")
