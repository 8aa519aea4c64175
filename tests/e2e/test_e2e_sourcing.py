"""A whole sourcing event in the browser: publish, invite, answer, seal, close, rank, propose,
approve, accept, with the two demo suppliers (supplier1, supplier2) and the demo team (demo)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core import mail
from django.utils import timezone

from accounts.choices import Role
from accounts.models import Membership
from quotes.models import GpuModel
from sourcing.choices import AwardState, RfqState
from sourcing.models import Answer, Award, Rfq
from sourcing.tasks import close_due_rfqs
from vendors.models import Vendor

pytestmark = pytest.mark.e2e

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
TITLE = "E2E 32×H800 RFQ"
# Distinct prices, so their absence from a page proves something: (first answer, revision).
PRICES = {1: ("41234", "40987"), 2: ("38765", "38555")}
EVIDENCE = {  # real tool output from the corpus, none of it already in the demo team's data
    1: ("ib_write_bw/dgx_spark_roce_q4_gbits.txt", "iperf3-json/local_3.12_tcp_bidir.json"),
    2: ("ib_write_bw/cx3_ib_a_MBsec.txt", "iperf3-json/iperf3-python_results_tcp_3.0.11.json"),
}
ACCEPTANCE_PASS = (  # 201.8 and 195.0 Gbit/s on a 200 Gbit/s line: ≥ 97 %
    "ib_write_bw/superbench_ib_loopback_8M_size.log",
    "ib_write_bw/superbench_ib_loopback_all_sizes.log",
)
ACCEPTANCE_FAIL = "ib_write_bw/perftest_issue273_postlist_duration_gbits.txt"  # 0.48 Gbit/s


def _logout(page) -> None:  # type: ignore[no-untyped-def]
    page.click("form[action='/logout/'] button")
    page.wait_for_load_state("networkidle")


def _messages(page) -> str:  # type: ignore[no-untyped-def]
    box = page.locator("ul.messages")
    return box.inner_text() if box.count() else ""


def _answer(page, *, price: str, nic_gbps: int, fabric: str, gpu_pk: int, notes: str) -> None:  # type: ignore[no-untyped-def]
    page.select_option("#id_gpu", str(gpu_pk))
    for name, value in {
        "gpus_per_node": "8", "nodes": "4", "price_per_node_month": price,
        "monthly_fees": "2000", "nic_gbps": str(nic_gbps), "nics_per_node": "1",
        "availability": "0.995", "term_months": "12", "trial_days": "7",
        "supplier_notes": notes,
    }.items():  # fmt: skip
        page.fill(f"#id_{name}", value)
    page.select_option("#id_currency", "CNY")
    page.select_option("#id_fabric", fabric)
    page.click("form.answer button[type=submit]")
    page.wait_for_load_state("networkidle")


def _upload(page, form_selector: str, relative: str) -> None:  # type: ignore[no-untyped-def]
    page.set_input_files(f"{form_selector} input[type=file]", str(CORPUS / relative))
    page.click(f"{form_selector} button[type=submit]")
    page.wait_for_load_state("networkidle")


def test_a_whole_sourcing_event_in_the_browser(page, live_server, demo_team, shot, login):
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.set_default_timeout(20_000)
    vendors = list(Vendor.objects.filter(team=demo_team).order_by("pk")[:2])
    names = {i: (v.name_en, v.name_zh) for i, v in enumerate(vendors, start=1)}
    gpu = GpuModel.objects.get(key="H800-SXM5-80GB")
    approver = Membership.objects.create(
        team=demo_team, role=Role.ANALYST,
        user=__import__("django.contrib.auth", fromlist=["get_user_model"]).get_user_model()
        .objects.create_user(username="approver", password="Approver-pass-2026"),
    ).user  # fmt: skip

    # --- the team creates and publishes the RFQ (first seen in Chinese, then in English) --------
    login(page, live_server)
    page.goto(f"{live_server.url}/sourcing/new/")
    shot(page, "sourcing-01-new-rfq-zh")
    page.select_option("select[name=language]", "en")
    page.wait_for_load_state("networkidle")
    page.fill("#id_title", TITLE)
    page.select_option("#id_workload", index=1)
    page.fill("#id_nodes", "4")
    page.fill("#id_min_internode_gbps", "100")
    page.select_option("#id_fabric", "rdma")
    page.check("#id_require_pfc")
    page.fill("#id_term_months", "12")
    page.fill("#id_kit_pairs", "2")
    deadline = timezone.localtime(timezone.now() + timedelta(days=3))
    page.fill("#id_deadline", deadline.strftime("%Y-%m-%dT%H:%M"))
    page.check(f"input[name=gpu_models][value='{gpu.pk}']")
    page.fill("#id_notes", "PRIVATE budget ceiling 45k")
    shot(page, "sourcing-02-new-rfq-filled")
    page.click("form.rfq button[type=submit]")
    page.wait_for_load_state("networkidle")
    rfq = Rfq.objects.get(team=demo_team, title=TITLE)
    assert rfq.state == RfqState.DRAFT and page.url.endswith(f"/sourcing/{rfq.pk}/")
    shot(page, "sourcing-03-draft")
    page.click("form.publish button")
    page.wait_for_load_state("networkidle")
    rfq.refresh_from_db()
    assert rfq.state == RfqState.PUBLISHED and "published" in _messages(page)

    # --- invitations by e-mail; a duplicate is refused with a message --------------------------
    for index, vendor in enumerate(vendors, start=1):
        page.select_option("form.invite select[name=vendor]", str(vendor.pk))
        page.fill("form.invite input[name=email]", f"supplier{index}@example.com")
        page.click("form.invite button")
        page.wait_for_load_state("networkidle")
        assert "Invitation sent" in _messages(page)
    page.select_option("form.invite select[name=vendor]", str(vendors[0].pk))
    page.fill("form.invite input[name=email]", "other@example.com")
    page.click("form.invite button")
    page.wait_for_load_state("networkidle")
    assert "already invited" in _messages(page)
    shot(page, "sourcing-04-published-invited")
    links = {}
    for message in mail.outbox:
        if TITLE in message.subject:
            index = int(message.to[0][len("supplier")])
            links[index] = re.search(r"https?://\S+/sourcing/invite/\S+/", message.body).group(0)
    assert set(links) == {1, 2} and all(u.startswith(live_server.url) for u in links.values())
    _logout(page)

    # --- each supplier accepts, answers, uploads its kit logs and revises once -----------------
    for index in (1, 2):
        login(page, live_server, f"supplier{index}", f"supplier{index}")
        page.goto(links[index])
        shot(page, f"sourcing-05-invitation-supplier{index}")
        page.click("form.accept button[type=submit]")
        page.wait_for_load_state("networkidle")
        assert page.url.endswith(f"/sourcing/supplier/rfqs/{rfq.pk}/")
        first, revised = PRICES[index]
        fabric, nic = ("ib", 200) if index == 1 else ("roce", 100)
        _answer(page, price=first, nic_gbps=nic, fabric=fabric, gpu_pk=gpu.pk, notes="first")
        assert "Your answer is saved" in _messages(page)
        for relative in EVIDENCE[index]:
            _upload(page, "form.evidence", relative)
            assert "Log uploaded" in _messages(page)
        _answer(page, price=revised, nic_gbps=nic, fabric=fabric, gpu_pk=gpu.pk, notes="revised")
        shot(page, f"sourcing-06-answer-supplier{index}")
        answer = Answer.objects.get(rfq=rfq, vendor=vendors[index - 1])
        assert answer.revision == 2 and answer.terms["price_per_node_month"] == revised
        assert answer.evidence_run.logs.count() == 2
        assert page.locator("table.logs tbody tr").count() == 2
        if index == 2:  # supplier2 never sees supplier1's prices or name, on any of its pages
            for url in ("/sourcing/supplier/", f"/sourcing/supplier/rfqs/{rfq.pk}/"):
                page.goto(f"{live_server.url}{url}")
                html = page.content()
                assert not any(p in html for p in PRICES[1]), url
                assert names[1][0] not in html and names[1][1] not in html, url
            shot(page, "sourcing-07-supplier2-home")
        _logout(page)

    # --- the team sees who answered, but no prices while sealed --------------------------------
    login(page, live_server)
    page.goto(f"{live_server.url}/sourcing/{rfq.pk}/")
    html = page.content()
    assert names[1][0] in html and names[2][0] in html
    assert not any(p in html for pair in PRICES.values() for p in pair)
    assert page.locator("table.answers tbody tr").count() == 2
    shot(page, "sourcing-08-team-sealed")

    # --- the deadline passes: the beat job closes the RFQ and the ranking runs -----------------
    Rfq.objects.filter(pk=rfq.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert close_due_rfqs() == [rfq.pk]
    rfq.refresh_from_db()
    assert rfq.state == RfqState.CLOSED and rfq.ranking_run.status == "done"
    page.reload()
    page.wait_for_load_state("networkidle")
    html = page.content()
    assert PRICES[1][1] in html and PRICES[2][1] in html  # unsealed: the revised prices
    assert page.locator("table.evaluation tbody tr").count() == 2
    shot(page, "sourcing-09-closed-ranked")

    # --- demo proposes an award to supplier1; demo cannot approve it --------------------------
    page.select_option("form.propose select[name=answer]", str(answer_of(rfq, vendors[0])))
    page.fill("form.propose textarea[name=rationale]", "Best network evidence, 200G IB")
    page.fill("form.propose input[name=min_pairs]", "2")
    page.click("form.propose button")
    page.wait_for_load_state("networkidle")
    award = Award.objects.get(rfq=rfq)
    assert award.state == AwardState.PROPOSED and award.proposed_by.username == "demo"
    assert page.locator("form.decide").count() == 0  # not offered to the proposer …
    page.evaluate(  # … and refused when posted anyway
        """([url, token]) => { const f = document.createElement('form'); f.method = 'post';
        f.action = url; for (const [k, v] of [['csrfmiddlewaretoken', token],
        ['decision', 'approve'], ['comment', 'mine']]) { const i = document.createElement('input');
        i.name = k; i.value = v; f.appendChild(i); } document.body.appendChild(f); f.submit(); }""",
        [f"/sourcing/awards/{award.pk}/decide/",
         page.locator("input[name=csrfmiddlewaretoken]").first.input_value()],
    )  # fmt: skip
    page.wait_for_load_state("networkidle")
    assert "another analyst or admin must decide" in _messages(page)
    award.refresh_from_db()
    assert award.state == AwardState.PROPOSED
    shot(page, "sourcing-10-self-approval-refused")
    _logout(page)

    # --- the approver approves with a comment --------------------------------------------------
    login(page, live_server, "approver", "Approver-pass-2026")
    page.goto(f"{live_server.url}/sourcing/{rfq.pk}/")
    page.select_option("form.decide select[name=decision]", "approve")
    page.fill("form.decide textarea[name=comment]", "Agreed: price and fabric fit")
    page.click("form.decide button")
    page.wait_for_load_state("networkidle")
    award.refresh_from_db()
    assert award.state == AwardState.APPROVED and award.decided_by == approver
    assert "Agreed: price and fabric fit" in page.content()
    shot(page, "sourcing-11-approved")

    # --- acceptance logs at line rate confirm the award; a slow log flags it -------------------
    for relative in ACCEPTANCE_PASS:
        _upload(page, "form.acceptance", relative)
    award.refresh_from_db()
    assert award.state == AwardState.CONFIRMED, award.acceptance_evidence
    assert award.acceptance_evidence["pairs"] == 2
    assert "All criteria met" in page.content()
    shot(page, "sourcing-12-confirmed")
    _upload(page, "form.acceptance", ACCEPTANCE_FAIL)
    award.refresh_from_db()
    assert award.state == AwardState.FLAGGED
    assert any("slowest pair" in r for r in award.acceptance_evidence["reasons"])
    assert "slowest pair reached" in page.content()
    shot(page, "sourcing-13-flagged")
    page.locator("#audit").scroll_into_view_if_needed()
    verbs = list(rfq.audit_events.values_list("verb", flat=True))
    for verb in ("published", "invited", "answer_revised", "closed", "ranking_started",
                 "award_proposed", "award_approved", "acceptance_confirmed",
                 "acceptance_flagged"):  # fmt: skip
        assert verb in verbs, verb
    assert not [u for u in failed if not u.startswith(live_server.url)]


def answer_of(rfq: Rfq, vendor: Vendor) -> int:
    return Answer.objects.get(rfq=rfq, vendor=vendor).pk
