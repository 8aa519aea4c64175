"""Browser: the contract page with its breach, credit and claim pack, in Chinese and English, on
a desktop (1440 px) and a phone (390 px): the claim pack is built by its job and downloaded."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
SCROLL = "() => document.scrollingElement.scrollWidth"


@pytest.fixture
def breached(transactional_db, django_user_model):  # type: ignore[no-untyped-def]
    """A team, its analyst and a contract evaluated over kit windows with a 3-hour shortfall."""
    from accounts.choices import Role
    from accounts.models import Membership, Team
    from contracts.models import DeliveryEvaluation
    from contracts.services import contract_create, contract_servers_set, incident_create
    from core import jobs
    from quotes.testing import make_vendor
    from tests.contracts.conftest import HOSTS, T0, contract_data, kit_windows

    team = Team.objects.create(name="E2E 团队", slug="e2e")
    user = django_user_model.objects.create_user(username="eve", password="eve-pass-1")
    Membership.objects.create(user=user, team=team, role=Role.ANALYST)
    vendor = make_vendor(team, "Rack Co 机房")
    contract = contract_create(team=team, user=user, vendor=vendor, data=contract_data())
    contract_servers_set(contract=contract, servers=[{"hostname": h} for h in HOSTS])
    kit_windows(contract, low={"gpu-02": (10, 3, 50.0)})
    incident_create(contract=contract, data={
        "started_at": T0 + timedelta(hours=30), "ended_at": T0 + timedelta(hours=35),
        "vendor_ticket": "INC-1"})  # fmt: skip
    evaluation = DeliveryEvaluation.objects.create(contract=contract)
    jobs.run("delivery_evaluate", evaluation.pk)
    return contract


def test_contract_page_breach_credit_and_claim_pack(page, live_server, breached, shot, login):  # type: ignore[no-untyped-def]
    login(page, live_server, "eve", "eve-pass-1")
    url = f"{live_server.url}/contracts/{breached.pk}/"
    built = False
    for lang, width in (("zh-hans", 1440), ("en", 1440), ("en", 390), ("zh-hans", 390)):
        page.context.add_cookies([{"name": "django_language", "value": lang,
                                   "url": live_server.url}])  # fmt: skip
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        page.wait_for_selector(".chart-figure .main-svg", timeout=15_000)  # plotly drew it
        breach = page.locator("#breaches tr.episode-bandwidth")
        assert breach.count() == 1 and "gpu-02" in breach.inner_text()
        credit = page.locator("#credits tr.credit .amount").first.inner_text()
        assert ("元" if lang == "zh-hans" else "CNY") in credit
        assert ("应得赔付" if lang == "zh-hans" else "Credits due") in page.content()
        assert page.evaluate(SCROLL) <= width + 1, "the page scrolls sideways"
        if not built:
            page.click("#claim-packs form button[type=submit]")  # the job runs (eager in tests)
            page.wait_for_load_state("networkidle")
            built = True
        pdf = page.locator("p.claim-pack a", has_text="PDF").first
        with page.expect_download() as download:
            pdf.click()
        path = download.value.path()
        assert path is not None and Path(path).read_bytes()[:5] == b"%PDF-"
        shot(page, f"contract-{lang}-{width}")
