"""A forged, a loopback and a re-used log are set aside: shown with the reason on the run page
and the quote page, and the quote's figure and the run's tail are what the clean logs give.

Real logs (recorded between network namespaces, and the corpus' loopback iperf3) and copies
doctored here: one interval's rate multiplied by 1.6; a newline added."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks.models import BenchmarkLog, TestRun
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as run_create
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[1] / "domain" / "data"
CLEAN = [DATA / "recorded" / f"sequential_pair0_run{k}.json" for k in (1, 2)]
LOOPBACK = DATA / "corpus" / "iperf3-json" / "local_3.12_tcp_single.json"


def forged() -> bytes:
    doc = json.loads((DATA / "recorded" / "sequential_pair0_run3.json").read_bytes())
    doc["intervals"][2]["sum"]["bits_per_second"] *= 1.6
    for stream in doc["intervals"][2]["streams"]:
        stream["bits_per_second"] *= 1.6
    return json.dumps(doc, indent="\t").encode()


def _quote(team, user, label: str) -> Quote:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team, f"TCP vendor {label}", fabric="tcp", gbps=2)
    return make_quote(
        team, user, vendor, gpu=GpuModel.objects.get(key="H100-SXM"), nodes=4, label=label,
        nic_gbps=2.0, nics_per_node=1, fabric="tcp", price_per_node_month=Decimal("50000"),
    )  # fmt: skip


def _upload(team, user, quote, files: list[tuple[str, bytes]], capture) -> TestRun:  # type: ignore[no-untyped-def]
    run = run_create(team=team, user=user, vendor=quote.vendor, quote=quote, name="evidence")
    for name, raw in files:
        with capture(execute=True):
            benchmark_ingest(
                team=team, user=user, test_run=run, upload=SimpleUploadedFile(name, raw)
            )
    return TestRun.objects.get(pk=run.pk)


def test_set_aside_logs_change_nothing_and_are_shown(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    clean_files = [(p.name, p.read_bytes()) for p in CLEAN]
    reference = _quote(team_a, analyst_a, "reference")
    ref_run = _upload(team_a, analyst_a, reference, clean_files, capture)
    reference.refresh_from_db()

    quote = _quote(team_a, analyst_a, "with extras")
    copy = CLEAN[0].read_bytes().replace(b"{", b"{\n", 1)  # re-used: a newline added
    run = _upload(
        team_a, analyst_a, quote,
        [("forged.json", forged()), ("loopback.json", LOOPBACK.read_bytes()),
         ("witnessed-copy.json", copy)],
        capture,
    )  # fmt: skip
    quote.refresh_from_db()
    assert quote.measured_typical_gbps is None  # nothing admitted on this quote
    reasons = {
        log.original_name: [r["code"] for r in log.admission["reasons"]]
        for log in BenchmarkLog.objects.filter(test_run=run)
    }
    assert reasons["forged.json"] == ["admission.inconsistent"]
    # 16 Gbit/s over loopback on a 2G offer: also more than the port carries.
    assert reasons["loopback.json"] == ["admission.loopback", "admission.above_line_rate"]
    assert reasons["witnessed-copy.json"] == ["admission.reused"]
    assert run.tail_p5_gbps is None  # the forged interval never reaches the run's tail

    # The same extras beside the clean logs: the figure is the clean logs' own.
    _upload(team_a, analyst_a, quote, clean_files[1:], capture)
    quote.refresh_from_db()
    assert reference.measured_typical_gbps is not None
    second = _quote(team_a, analyst_a, "clean second only")
    _upload(
        team_a, analyst_a, second, [(CLEAN[1].name + ".copy", CLEAN[1].read_bytes() + b" ")],
        capture,
    )  # fmt: skip
    second.refresh_from_db()
    assert second.measured_typical_gbps is None  # a re-typed copy of the reference's log
    assert quote.measured_typical_gbps is None  # its clean log is the reference's: re-used too
    assert ref_run.tail_p5_gbps is not None

    client = client_as(analyst_a)
    for lang, words in (
        ("en", ["Set aside", "contradict each other", "loopback", "already held"]),
        ("zh-hans", ["互相矛盾", "回环", "另一报价"]),
    ):
        client.cookies["django_language"] = lang
        page = client.get(reverse("benchmarks:run", args=[run.pk])).content.decode()
        for word in words:
            assert word in page, (lang, word)


def test_quote_page_prints_the_sentence_and_the_set_aside_logs(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, django_capture_on_commit_callbacks
):
    quote = _quote(team_a, analyst_a, "mixed")
    files = [(p.name, p.read_bytes()) for p in CLEAN]
    files += [("forged.json", forged()), ("loopback.json", LOOPBACK.read_bytes())]
    run = _upload(team_a, analyst_a, quote, files, django_capture_on_commit_callbacks)
    quote.refresh_from_db()
    clean_only = _quote(team_a, analyst_a, "clean")
    # The figure equals that of the two clean logs alone (derived by the same rule).
    from benchmarks.admission import offer_ports, records_of
    from domain.evidence.admission import offer_evidence

    clean_logs = [
        log for log in BenchmarkLog.objects.filter(test_run=run) if "run" in log.original_name
    ]
    alone = offer_evidence(records_of(clean_logs), offer_ports(clean_only))
    assert alone.figure is not None
    assert quote.measured_typical_gbps == pytest.approx(alone.figure.gbps)
    assert quote.measured_low_gbps == pytest.approx(alone.figure.low_gbps)
    assert quote.measured_worst_gbps == pytest.approx(alone.figure.worst_gbps)
    assert quote.measured_gbps == quote.measured_typical_gbps  # the former name still reads
    assert quote.measured_p50_gbps == quote.measured_high_gbps
    sentence = quote.measured_derivation["sentence"]
    assert "Figure from 2 of 4 logs" in sentence["en"]
    assert "forged.json (arithmetic does not add up)" in sentence["en"]
    assert "loopback.json（回环或单机、超出线路速率）" in sentence["zh"]
    client = client_as(analyst_a)
    for lang in ("en", "zh-hans"):
        client.cookies["django_language"] = lang
        key = "en" if lang == "en" else "zh"
        for url in (
            reverse("quotes:detail", args=[quote.pk]),
            reverse("benchmarks:run", args=[run.pk]),
        ):
            page = client.get(url).content.decode()
            assert sentence[key].split(":")[0].split("：")[0] in page, (lang, url)
            assert 'id="set-aside"' in page and "forged.json" in page

    # The stored checks round-trip through the database unchanged.
    from domain.evidence.record import Checks

    for log in BenchmarkLog.objects.filter(test_run=run):
        assert Checks.from_dict(log.checks).as_dict() == log.checks
    api = client.get(f"/api/v1/quotes/{quote.pk}/")
    if api.status_code == 200:
        body = api.json()
        assert body["measured_typical_gbps"] == pytest.approx(quote.measured_typical_gbps)
        assert body["measured_derivation"]["sentence"] == sentence
