"""One decision in the browser (issue 34): the RFQ whose cheapest bid is knocked out (H100 only
and 1,600 Gbit/s per server, both mandatory; one supplier bids A100 with 800 Gbit/s), a three-way
tie with an excluded cheaper offer, and a ranking whose quote got new terms, in both languages at
1440 and 390 px. Each page names the same recommendation, gives excluded offers no rank, says a
tie has no saving and says a stale ranking is stale. Screenshots go to /tmp/decision-shots."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

pytestmark = pytest.mark.e2e

SHOTS = Path("/tmp/decision-shots")


def _walk(page, live_server, path: str, name: str, check) -> None:  # type: ignore[no-untyped-def]
    """Open `path` in both languages at both widths, screenshot it, run `check(page, lang)` and
    make sure nothing but a table's own scroll box is wider than the screen."""
    SHOTS.mkdir(exist_ok=True)
    for lang in ("en", "zh-hans"):
        page.context.add_cookies([{"name": "django_language", "value": lang,
                                   "url": live_server.url}])  # fmt: skip
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(SHOTS / f"{name}-{lang}-{width}.png"), full_page=True)
            check(page, lang)
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width + 1, (name, lang, width, wide)


def _ranking_checks(run, *, tie: bool, stale: bool = False):  # type: ignore[no-untyped-def]
    recommended = run.results.get(recommended=True)
    excluded = [r.offer_id for r in run.results.filter(eligible=False)]

    def check(page, lang: str) -> None:  # type: ignore[no-untyped-def]
        marked = page.locator("#results-table tr.recommended")
        assert marked.count() == 1
        assert marked.first.get_attribute("data-offer") == recommended.offer_id
        for offer in excluded:
            rank = page.locator(f'#results-table tr[data-offer="{offer}"] td.rank').inner_text()
            assert not re.search(r"\d", rank), (offer, rank)
        runner = page.locator("p.runner-up")
        dearer = "dearer" if lang == "en" else "贵"
        if tie and runner.count():
            assert dearer not in runner.inner_text()
        notice = page.locator("#stale")
        assert notice.count() == (1 if stale else 0)

    return check


def test_the_rfq_the_tie_and_the_stale_ranking_in_the_browser(  # type: ignore[no-untyped-def]
    page, live_server, demo_team, login, django_capture_on_commit_callbacks
):
    from django.contrib.auth import get_user_model

    from quotes.models import GpuModel
    from quotes.services import quote_update
    from quotes.testing import make_quote, make_vendor, make_workload
    from rankings.models import RankingRun
    from rankings.services import ranking_start
    from sourcing.services import (
        answer_submit,
        invitation_accept,
        invitation_create,
        rfq_create,
        rfq_publish,
    )
    from sourcing.tasks import close_due_rfqs
    from sourcing.testing import answer_terms, pass_deadline
    from vendors.models import DataCentre, NetworkProfile, Vendor
    from vendors.services import vendor_refresh_findings

    user = get_user_model().objects.get(username="demo")
    workload = make_workload(demo_team, name="E2E 7B decision")

    # the RFQ: H100 only and 1,600 Gbit/s per server, both mandatory knock-outs
    h100 = GpuModel.objects.get(key="H100-SXM")
    rfq = rfq_create(team=demo_team, user=user, data={
        "title": "E2E H100 · 1.6T per server", "workload": workload, "nodes": 8,
        "min_internode_gbps": 1600, "fabric": "rdma", "term_months": 12,
        "deadline": timezone.now() + timedelta(days=3), "sealed": True, "kit_pairs": 2,
        "gpu_models": [h100], "mandatory": ["gpu", "bandwidth"]})  # fmt: skip
    rfq_publish(rfq=rfq, user=user)
    bids = (("E2E Supplier One", {"gpu": "A100-SXM4-80GB", "nic_gbps": 100, "nics_per_node": 8,
                                  "price_per_node_month": "30000"}),
            ("E2E Supplier Two", {"gpu": "H100-SXM", "nic_gbps": 200, "nics_per_node": 8,
                                  "price_per_node_month": "90000"}))  # fmt: skip
    for n, (name, terms) in enumerate(bids):
        vendor = make_vendor(demo_team, name, fabric="roce", gbps=100)
        with django_capture_on_commit_callbacks(execute=True):
            _inv, token = invitation_create(rfq=rfq, user=user, vendor=vendor,
                                            email=f"e2e-sup{n}@example.com")  # fmt: skip
        account = invitation_accept(token=token, username=f"e2e-sup{n}",
                                    password="Sup-pass-12345!")  # fmt: skip
        answer_submit(rfq=rfq, account=account, terms=answer_terms(**terms))
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    rfq.refresh_from_db()
    rfq_run = rfq.ranking_run
    assert rfq_run is not None and rfq_run.status == "done"
    knocked = rfq_run.results.get(vendor_name__contains="One")
    assert not knocked.eligible and not knocked.recommended

    # a three-way tie, and a much cheaper offer of an unlicensed vendor (excluded)
    tied = []
    for name, price in (("Alpha", 40000), ("Beta", 40300), ("Gamma", 40600)):
        tied.append(make_quote(demo_team, user, make_vendor(demo_team, f"E2E {name} Compute"),
                               label=f"E2E {name} 8×A100",
                               price_per_node_month=Decimal(price)))  # fmt: skip
    bad = Vendor.objects.create(team=demo_team, name_en="E2E No Licence Co",
                                name_zh="无证公司", services=["gpu_rental", "idc"])  # fmt: skip
    dc = DataCentre.objects.create(vendor=bad, name="无证机房", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="roce", nic_gbps=Decimal("100"))
    cheap = make_quote(
        demo_team,
        user,
        vendor_refresh_findings(vendor=bad),
        label="E2E unlicensed 8×A100",
        price_per_node_month=Decimal("9000"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        tie_run = ranking_start(team=demo_team, user=user, workload=workload,
                                quotes=[*tied, cheap], label="E2E tie")  # fmt: skip
    tie_run.refresh_from_db()
    assert tie_run.status == "done" and tie_run.decision["tie"]

    # a ranking whose quote then gets new terms
    later = [make_quote(demo_team, user, make_vendor(demo_team, f"E2E {name} Cloud"),
                        label=f"E2E {name} 8×A100", price_per_node_month=Decimal(price))
             for name, price in (("Delta", 45000), ("Epsilon", 52000))]  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        stale_run = ranking_start(team=demo_team, user=user, workload=workload,
                                  quotes=later, label="E2E stale")  # fmt: skip
    stale_run.refresh_from_db()
    quote_update(quote=later[0], user=user, data={"price_per_node_month": Decimal("30000")})

    login(page, live_server)
    _walk(page, live_server, f"/sourcing/{rfq.pk}/", "rfq", lambda p, lang: None)
    _walk(page, live_server, f"/rankings/{rfq_run.pk}/", "rfq-ranking",
          _ranking_checks(rfq_run, tie=False))  # fmt: skip
    _walk(page, live_server, f"/rankings/{tie_run.pk}/", "tie", _ranking_checks(tie_run, tie=True))
    _walk(
        page,
        live_server,
        f"/rankings/{stale_run.pk}/",
        "stale",
        _ranking_checks(RankingRun.objects.get(pk=stale_run.pk), tie=False, stale=True),
    )

    def exports_check(page, lang: str) -> None:  # type: ignore[no-untyped-def]
        assert "E2E Delta" in page.locator("#stale").inner_text()

    _walk(page, live_server, f"/reports/ranking/{stale_run.pk}/", "stale-exports", exports_check)

    def board_check(page, lang: str) -> None:  # type: ignore[no-untyped-def]
        line = page.locator(f'#leaders li.leader[data-run="{rfq_run.pk}"]')
        if line.count():
            assert line.get_attribute("data-offer") == rfq_run.results.get(
                recommended=True).offer_id  # fmt: skip
        stale_line = page.locator(f'#leaders li.leader[data-run="{stale_run.pk}"] a.stale')
        latest_for_workload = RankingRun.objects.filter(workload=workload).order_by(
            "-created_at", "-pk").first()  # fmt: skip
        if latest_for_workload.pk == stale_run.pk:
            assert stale_line.count() == 1

    _walk(page, live_server, "/", "dashboard", board_check)
