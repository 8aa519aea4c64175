"""In a real browser, both languages, 1440 and 390 px: a forged, a loopback and a re-used log are
each shown set aside with the reason on the run page, the quote page and the ranking, and the
quote's figure is what the clean logs give. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DATA = Path(__file__).resolve().parents[1] / "domain" / "data"
CLEAN = [DATA / "recorded" / f"sequential_pair0_run{k}.json" for k in (1, 2)]
LOOPBACK = DATA / "corpus" / "iperf3-json" / "local_3.12_tcp_single.json"


def _forged() -> bytes:
    doc = json.loads((DATA / "recorded" / "sequential_pair0_run3.json").read_bytes())
    doc["intervals"][2]["sum"]["bits_per_second"] *= 1.6
    for stream in doc["intervals"][2]["streams"]:
        stream["bits_per_second"] *= 1.6
    return json.dumps(doc, indent="\t").encode()


def _ingest(team, user, quote, files):  # type: ignore[no-untyped-def]
    from django.core.files.uploadedfile import SimpleUploadedFile

    from benchmarks.services import benchmark_ingest, benchmark_parse, test_run_summarise
    from benchmarks.services import test_run_create as run_create

    run = run_create(team=team, user=user, vendor=quote.vendor, quote=quote, name=quote.label)
    for name, raw in files:
        outcome = benchmark_ingest(
            team=team, user=user, test_run=run, upload=SimpleUploadedFile(name, raw)
        )
        for log in outcome.created:
            benchmark_parse(log_id=log.pk)
    test_run_summarise(run_id=run.pk)
    return run


def test_set_aside_logs_on_the_run_and_quote_pages(  # type: ignore[no-untyped-def]
    browser, live_server, shot, team_a, analyst_a
):
    from django.urls import reverse

    from quotes.models import GpuModel, Quote
    from quotes.testing import make_quote, make_vendor, make_workload
    from rankings.models import RankingRun
    from rankings.services import ranking_start

    def quote_of(label: str) -> Quote:
        vendor = make_vendor(team_a, f"Vendor {label}", fabric="tcp", gbps=2)
        return make_quote(
            team_a, analyst_a, vendor, gpu=GpuModel.objects.get(key="H100-SXM"), nodes=4,
            label=label, nic_gbps=2.0, nics_per_node=1, fabric="tcp",
            price_per_node_month=Decimal("50000"),
        )  # fmt: skip

    held = quote_of("held elsewhere")
    _ingest(team_a, analyst_a, held, [(CLEAN[0].name, CLEAN[0].read_bytes())])
    quote = quote_of("with set-aside logs")
    run = _ingest(
        team_a, analyst_a, quote,
        [(CLEAN[1].name, CLEAN[1].read_bytes()), ("forged.json", _forged()),
         ("loopback.json", LOOPBACK.read_bytes()),
         ("reused-copy.json", CLEAN[0].read_bytes().replace(b"{", b"{\n", 1))],
    )  # fmt: skip
    quote.refresh_from_db()
    assert quote.measured_typical_gbps is not None
    clean_only = quote.measured_typical_gbps
    workload = make_workload(team_a, nodes=4)
    ranking = ranking_start(team=team_a, user=analyst_a, workload=workload, quotes=[quote, held])
    ranking = RankingRun.objects.get(pk=ranking.pk)
    assert ranking.status == "done", ranking.status
    row = ranking.results.get(quote_version__quote=quote)
    assert "forged.json" in row.model_detail["evidence"]["sentence"]["en"]
    for lang, locale, words in (
        ("en", "en-US", ["forged.json", "loopback.json", "reused-copy.json", "set aside"]),
        ("zh-hans", "zh-CN", ["forged.json", "loopback.json", "reused-copy.json", "未采用"]),
    ):
        for width in (1440, 390):
            context = browser.new_context(locale=locale, viewport={"width": width, "height": 900})
            context.add_cookies(
                [{"name": "django_language", "value": lang, "url": live_server.url}]
            )
            page = context.new_page()
            page.goto(f"{live_server.url}/login/")
            page.fill("input[name=username]", analyst_a.username)
            page.fill("input[name=password]", "pw-" + analyst_a.username)
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            for name, url in (
                ("run", reverse("benchmarks:run", args=[run.pk])),
                ("quote", reverse("quotes:detail", args=[quote.pk])),
                ("ranking", reverse("rankings:detail", args=[ranking.pk])),
            ):
                page.goto(live_server.url + url)
                text = page.inner_text("main") if page.query_selector("main") else page.content()
                for word in words:
                    assert word.lower() in text.lower(), (lang, width, name, word)
                shot(page, f"set_aside_{name}_{lang}_{width}")
            context.close()
    quote.refresh_from_db()
    assert quote.measured_typical_gbps == clean_only
