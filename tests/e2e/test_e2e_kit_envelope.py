"""In a real browser, both languages, 1440 and 390 px: the envelope grade beside the line-rate
verdict on the run page and the quote page (a real NDR log within Azure's ND H100 v5 floor, a
real RoCE log below it), and the supplier's RFQ page with its kit (the token's parameters, the
scripts per host role), its host list and a typed-token log refused with the reason.
Screenshots go to test-artifacts/."""

from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CORPUS = Path(__file__).resolve().parents[1] / "domain" / "data" / "corpus"
NDR = CORPUS / "ib_send_bw" / "cx7_ndr_session_send_bw_lat_read_write.txt"
ROCE = CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt"


def _ingest(team, user, quote, paths):  # type: ignore[no-untyped-def]
    from django.core.files.uploadedfile import SimpleUploadedFile

    from benchmarks.services import benchmark_ingest, benchmark_parse, test_run_summarise
    from benchmarks.services import test_run_create as run_create

    run = run_create(team=team, user=user, vendor=quote.vendor, quote=quote, name=quote.label)
    for path in paths:
        outcome = benchmark_ingest(
            team=team, user=user, test_run=run,
            upload=SimpleUploadedFile(path.name, path.read_bytes()),
        )  # fmt: skip
        for log in outcome.created:
            benchmark_parse(log_id=log.pk)
    test_run_summarise(run_id=run.pk)
    return run


def _context(browser, live_server, lang: str, width: int):  # type: ignore[no-untyped-def]
    locale = "zh-CN" if lang.startswith("zh") else "en-US"
    context = browser.new_context(locale=locale, viewport={"width": width, "height": 900})
    context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])
    return context


def _login(page, live_server, username: str, password: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")


def _fits(page) -> None:  # type: ignore[no-untyped-def]
    overflow = page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 1, f"the page is {overflow}px wider than the screen"


def test_envelope_grade_on_the_run_and_quote_pages(  # type: ignore[no-untyped-def]
    browser, live_server, shot, team_a, analyst_a
):
    from django.urls import reverse

    from quotes.models import GpuModel
    from quotes.testing import make_quote, make_vendor

    vendor = make_vendor(team_a, "NDR vendor", fabric="ib", gbps=400)
    quote = make_quote(
        team_a, analyst_a, vendor, gpu=GpuModel.objects.get(key="H100-SXM"), nodes=4,
        label="8×H100 NDR", nic_gbps=400.0, nics_per_node=8, fabric="ib",
        price_per_node_month=Decimal("90000"),
    )  # fmt: skip
    run = _ingest(team_a, analyst_a, quote, [NDR, ROCE])
    for lang, words in (
        ("en", ["Within envelope", "Below envelope", "Azure ND H100 v5 health check"]),
        ("zh-hans", ["达到验收下限", "低于验收下限", "Azure ND H100 v5 健康检查"]),
    ):
        for width in (1440, 390):
            context = _context(browser, live_server, lang, width)
            page = context.new_page()
            _login(page, live_server, analyst_a.username, "pw-" + analyst_a.username)
            for name, url in (
                ("run", reverse("benchmarks:run", args=[run.pk])),
                ("quote", reverse("quotes:detail", args=[quote.pk])),
            ):
                page.goto(live_server.url + url)
                text = page.inner_text("main")
                for word in words[1:] if name == "quote" else words:
                    assert word in text, (lang, width, name, word)
                _fits(page)
                shot(page, f"envelope_{name}_{lang}_{width}")
            context.close()


def test_the_suppliers_kit_host_list_and_a_typed_token_refused(  # type: ignore[no-untyped-def]
    browser, live_server, shot, team_a, analyst_a
):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.utils import timezone

    from benchmarks.models import BenchmarkLog
    from benchmarks.services import benchmark_parse
    from quotes.models import GpuModel
    from quotes.testing import make_vendor, make_workload
    from sourcing.services import (
        answer_submit,
        answer_upload_evidence,
        invitation_accept,
        invitation_create,
        rfq_create,
        rfq_publish,
    )
    from sourcing.testing import answer_terms

    rfq = rfq_create(team=team_a, user=analyst_a, data={
        "title": "8×H100 NDR for pretraining", "workload": make_workload(team_a), "nodes": 8,
        "min_internode_gbps": 400, "fabric": "rdma", "term_months": 12,
        "deadline": timezone.now() + timedelta(days=3), "kit_pairs": 2,
        "acceptance_envelope": "azure-nd-h100-v5",
        "gpu_models": [GpuModel.objects.get(key="H100-SXM")],
    })  # fmt: skip
    rfq_publish(rfq=rfq, user=analyst_a)
    _inv, token = invitation_create(
        rfq=rfq, user=analyst_a, vendor=make_vendor(team_a, "NDR supplier", fabric="ib", gbps=400),
        email="ndr@example.com",
    )  # fmt: skip
    account = invitation_accept(token=token, username="ndr1", password="Sup-pass-12345!")
    terms = answer_terms(gpu="H100-SXM", nic_gbps=400, nics_per_node=8, fabric="ib")
    answer = answer_submit(
        rfq=rfq, account=account, terms=terms,
        hosts="gpu-node-01 0c42:a103:00ab:cdef GPU-5b2e0a1c-9d1f-4c3e-8a7b-1234567890ab\n"
        "gpu-node-02 0c42:a103:00ab:cdf0",
    )  # fmt: skip
    from sourcing.kit import invitation_tokens

    invitation = answer.rfq.invitations.get(vendor=account.vendor)
    bw_token = invitation_tokens(rfq.pk, invitation.pk)["ib_write_bw"]
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    typed = f"GPK-TOKEN {bw_token}\nGPK-DATE {now}\n{ROCE.read_text()}GPK-DATE {now}\n"
    outcome = answer_upload_evidence(
        answer=answer, account=account,
        upload=SimpleUploadedFile("pair1_ib_write_bw.txt", typed.encode()),
    )  # fmt: skip
    for log in outcome.created:
        benchmark_parse(log_id=log.pk)
    log = BenchmarkLog.objects.get(original_name="pair1_ib_write_bw.txt")
    assert log.challenge["findings"][0]["code"] == "challenge.parameters"
    for lang, words in (
        ("en", ["Scripts per host role", "Parameters set by your token", "this token's kit runs",
                "Azure ND H100 v5 health check"]),
        ("zh-hans", ["按主机角色的脚本", "由您的令牌决定的参数", "该令牌对应的测试包参数为",
                     "Azure ND H100 v5 健康检查"]),
    ):  # fmt: skip
        for width in (1440, 390):
            context = _context(browser, live_server, lang, width)
            page = context.new_page()
            _login(page, live_server, "ndr1", "Sup-pass-12345!")
            page.goto(f"{live_server.url}/sourcing/supplier/rfqs/{rfq.pk}/")
            text = page.inner_text("main")
            for word in words:
                assert word in text, (lang, width, word)
            assert "gpu-node-01" in page.input_value("textarea[name=hosts]")
            _fits(page)
            shot(page, f"kit_supplier_rfq_{lang}_{width}")
            context.close()


def test_the_rfq_form_names_an_acceptance_envelope(  # type: ignore[no-untyped-def]
    browser, live_server, shot, team_a, analyst_a
):
    from quotes.testing import make_workload

    make_workload(team_a)
    for lang, words in (
        ("en", ["Acceptance envelope", "Azure ND H100 v5 health check", "nccl-tests all_reduce"]),
        ("zh-hans", ["验收下限", "Azure ND H100 v5 健康检查", "nccl-tests all_reduce"]),
    ):
        for width in (1440, 390):
            context = _context(browser, live_server, lang, width)
            page = context.new_page()
            _login(page, live_server, analyst_a.username, "pw-" + analyst_a.username)
            page.goto(f"{live_server.url}/sourcing/new/")
            text = page.inner_text("main")
            for word in words:
                assert word in text or word in page.content(), (lang, width, word)
            _fits(page)
            shot(page, f"kit_rfq_form_{lang}_{width}")
            context.close()
