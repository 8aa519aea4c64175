"""Fingerprints of a test, re-use between offers, and the RFQ kit's challenge tokens."""

from __future__ import annotations

import io
import json
from pathlib import Path

from domain.benchlogs import parse_stream
from domain.evidence import tokens
from domain.evidence.hosts import BidHost
from domain.evidence.reuse import Holder, fingerprint, reuse_findings
from domain.evidence.trust import KIT_VERIFIED, SUPPLIED, WITNESSED, trust_level
from domain.evidence.trust_facts import scan

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
SECRET = b"test-secret"


def _fp(raw: bytes, name: str) -> str | None:
    return fingerprint(parse_stream(io.BytesIO(raw), name), scan(raw.decode()))


def test_iperf3_fingerprint_survives_reformatting_and_differs_between_tests() -> None:
    p4 = (CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_bytes()
    resaved = json.dumps(json.loads(p4), separators=(",", ":")).encode()
    assert resaved != p4
    assert _fp(p4, "a.json") == _fp(resaved, "b.json") is not None
    single = (CORPUS / "iperf3-json" / "local_3.12_tcp_single.json").read_bytes()
    assert _fp(single, "c.json") not in (None, _fp(p4, "a.json"))


def test_perftest_and_nccl_fingerprints_come_from_queue_pairs_and_ranks() -> None:
    perf = (CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt").read_bytes()
    facts = scan(perf.decode())
    assert "local 0000 0x03ec 0xb680ae" in facts.queue_pairs
    other = perf.replace(b"PSN 0xb680ae", b"PSN 0xb680af")
    assert _fp(perf, "x.txt") != _fp(other, "x.txt")
    nccl = (CORPUS / "nccl-tests" / "pkb_nccl_output.txt").read_bytes()
    assert scan(nccl.decode()).hosts == ("pkb-2b6a393d-2", "pkb-2b6a393d-3")
    assert _fp(nccl, "n.txt") is not None


def test_iperf3_provenance_names_hosts_version_start_and_cookie() -> None:
    facts = scan((CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_text())
    assert facts.cookie == "gwe5jpg66v6jlxo3mypeazhgssjvbg3wpugc"
    assert facts.version == "iperf 3.12"
    assert facts.start_epoch_s == 1796226001
    assert facts.hosts == ("127.0.0.1",)


def test_reuse_is_flagged_for_another_vendor_quote_or_rfq_only() -> None:
    own = Holder(vendor_id=1, quote_id=10, rfq_id=None)
    other_vendor = Holder(2, None, None, "run “B” (vendor Two)", "运行“B”（供应商 Two）")
    same_offer = Holder(1, 10, None, "run “A2”", "运行“A2”")
    other_quote = Holder(1, 11, None, "quote 11", "报价 11")
    other_rfq = Holder(1, None, 7, "RFQ 7", "询价 7")
    found = reuse_findings(own, [other_vendor, same_offer, other_quote])
    assert [f.code for f in found] == ["reused", "reused"]
    assert "vendor Two" in found[0].en and "供应商 Two" in found[0].zh
    assert reuse_findings(Holder(1, None, 3), [other_rfq])[0].code == "reused"
    assert reuse_findings(own, [same_offer]) == ()


def _want(**over: object) -> tokens.Challenge:
    base = {"rfq_id": 5, "invitation_id": 9, "published_at_s": 1000.0, "deadline_s": 5000.0}
    base.update(over)
    return tokens.Challenge(**base)  # type: ignore[arg-type]


def _facts(token: str, start: float = 2000.0, host: str | None = None):  # type: ignore[no-untyped-def]
    """An iperf3 JSON head as the kit's command writes it: the token's own block size, seconds
    and port, the token in the title and the host facts in the extra data."""
    p = tokens.expected_parameters(token) if token.count("-") >= 4 else None
    ts = f'"timestamp": {{"timesecs": {int(start)}}}'
    shaped = (
        f', "connected": [{{"remote_port": {p.port}}}], "test_start": {{"blksize": {p.blksize}}}'
        if p is not None and p.test == "iperf3"
        else ""
    )
    extra = f"{token} GPK-HOST host={host}" if host else token
    text = f'{{"start": {{{ts}{shaped}}}, "title": "{token}", "extra_data": "{extra}"}}'
    return scan(text)


def test_a_kit_token_is_verified_only_for_its_rfq_supplier_test_and_window() -> None:
    good = tokens.issue(SECRET, 5, 9, "iperf3")
    assert tokens.verify(SECRET, _want(), _facts(good), tool="iperf3").status == tokens.VERIFIED
    cases = {
        "challenge.other_rfq": tokens.issue(SECRET, 6, 9, "iperf3"),
        "challenge.other_supplier": tokens.issue(SECRET, 5, 8, "iperf3"),
        "challenge.other_test": tokens.issue(SECRET, 5, 9, "ib_write_bw"),
        "challenge.forged": tokens.issue(b"other secret", 5, 9, "iperf3"),
    }
    for code, token in cases.items():
        outcome = tokens.verify(SECRET, _want(), _facts(token), tool="iperf3")
        assert (outcome.status, outcome.findings[0].code) == (tokens.REFUSED, code)
    early = tokens.verify(SECRET, _want(), _facts(good, start=999), tool="iperf3")
    assert early.findings[0].code == "challenge.before_publication"
    late = tokens.verify(SECRET, _want(), _facts(good, start=4990), tool="iperf3", duration_s=60)
    assert late.findings[0].code == "challenge.after_deadline"
    listed = _want(bid_hosts=(BidHost("node-1"), BidHost("node-2")))
    elsewhere = tokens.verify(SECRET, listed, _facts(good, host="node-9"), tool="iperf3")
    assert elsewhere.findings[0].code == "challenge.other_hosts"
    assert "node-9" in elsewhere.findings[0].en and "node-9" in elsewhere.findings[0].zh
    ok = tokens.verify(SECRET, listed, _facts(good, host="node-2"), tool="iperf3")
    assert ok.status == tokens.VERIFIED


def test_perftest_token_and_date_lines_printed_by_the_kit_are_read() -> None:
    token = tokens.issue(SECRET, 5, 9, "ib_write_bw")
    p = tokens.expected_parameters(token)
    real = (CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt").read_text()
    # The kit's run of the same test: its row carries the token's size and iteration count
    # (perftest -q 4 prints the iterations of all four queue pairs), MsgRate to match.
    rate = 111.71e9 / (p.message_bytes * 8) / 1e6
    row = (
        f" {p.message_bytes}      {p.iterations * 4}            111.72             111.71"
        f"             {rate:.6f}"
    )
    kit_run = real.replace(
        " 65536      20000            111.72             111.71             0.213070", row
    )
    assert kit_run != real
    framed = "GPK-TOKEN {t}\nGPK-DATE 1970-01-01T00:33:20Z\n{body}GPK-DATE 1970-01-01T00:34:00Z\n"
    facts = scan(framed.format(t=token, body=kit_run))
    assert facts.dates == (2000.0, 2040.0)
    assert tokens.verify(SECRET, _want(), facts, tool="ib_write_bw").status == tokens.VERIFIED
    absent = tokens.verify(SECRET, _want(), scan("no token here"), tool="ib_write_bw")
    assert absent.status == tokens.ABSENT


def test_a_huge_or_garbled_token_is_refused_not_matched() -> None:
    facts = scan('{"title": "' + "GPK-" + "9" * 5000 + '"}')
    outcome = tokens.verify(SECRET, _want(), facts, tool="iperf3")
    assert outcome.status in (tokens.REFUSED, tokens.ABSENT)


def test_trust_level_prefers_witnessed_then_kit_verified() -> None:
    assert trust_level(witnessed=True, challenge_status=None) == WITNESSED
    assert trust_level(witnessed=False, challenge_status=tokens.VERIFIED) == KIT_VERIFIED
    assert trust_level(witnessed=False, challenge_status=tokens.REFUSED) == SUPPLIED


def test_a_pooled_figure_is_as_trusted_as_its_least_trusted_log() -> None:
    from domain.evidence.trust import weakest

    assert weakest([WITNESSED, KIT_VERIFIED]) == KIT_VERIFIED
    assert weakest([WITNESSED, SUPPLIED, KIT_VERIFIED]) == SUPPLIED
    assert weakest([]) is None
