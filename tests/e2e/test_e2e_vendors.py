"""A newcomer logs in as demo/demo, sees the vendors with badges and a seed vendor's red flags."""

import pytest

from domain.seed_vendor_claims import DEMO_ICP_AS_LICENCE
from vendors.models import Vendor

pytestmark = pytest.mark.e2e


def test_demo_user_sees_vendor_badges_and_seed_red_flags(page, live_server, demo_team, shot, login):
    failed_requests: list[str] = []
    page.on("requestfailed", lambda r: failed_requests.append(r.url))
    login(page, live_server)
    page.goto(f"{live_server.url}/vendors/")
    assert page.locator("table.vendors tbody tr").count() >= 5
    assert page.locator("table.vendors .badge.critical").count() >= 3
    shot(page, "vendor-list-zh")

    # the seed articles' claims, on a fictional look-alike (its "licence" is an ICP filing)
    seed = Vendor.objects.filter(
        team=demo_team, findings_critical__gt=0, name_zh=DEMO_ICP_AS_LICENCE.name_zh
    ).first()
    assert seed is not None, "a demo vendor with the seed articles' red flags is expected"
    page.goto(f"{live_server.url}/vendors/{seed.pk}/")
    findings = page.locator("#findings .finding.critical")
    assert findings.count() >= 1
    assert findings.first.inner_text().strip()
    shot(page, "seed-vendor-zh")

    page.select_option("select[name=language]", "en")
    page.wait_for_load_state("networkidle")
    # the language switch reloads the page: wait for the English text, not for a quiet network
    page.get_by_text("Due-diligence findings").first.wait_for()
    shot(page, "seed-vendor-en")
    # every asset came from the portal itself
    assert not [u for u in failed_requests if not u.startswith(live_server.url)]
