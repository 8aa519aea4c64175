"""A kit a supplier cannot fake by typing (tokens.py, trust_facts.py, hosts.py): the token
shapes the test, the log's own printed parameters must be the token's, and the hosts it ran on
must be the bid's. Real corpus logs, and copies doctored the way a supplier would."""

from __future__ import annotations

import io
import json
from pathlib import Path

from domain.benchlogs import parse_stream
from domain.evidence import tokens
from domain.evidence.envelopes import BELOW, NOT_COVERED, WITHIN, by_key, grade_logs, summary
from domain.evidence.hosts import BidHost, parse_lines
from domain.evidence.record import body_digest
from domain.evidence.trust_facts import normal_id, scan

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"
SECRET = b"kit-secret"
DGX_ROW = " 65536      20000            111.72             111.71             0.213070"


def _want(**over: object) -> tokens.Challenge:
    base: dict[str, object] = {
        "rfq_id": 7, "invitation_id": 3, "published_at_s": 1000.0, "deadline_s": 9000.0,
        "kit_duration_s": 60, "kit_pairs": 4,
    }  # fmt: skip
    base.update(over)
    return tokens.Challenge(**base)  # type: ignore[arg-type]


def _frame(token: str, body: str, *, host: str = "") -> str:
    """The kit's framing of a perftest or nccl-tests run: token, date lines, host facts."""
    facts = f"{host}\n" if host else ""
    return (
        f"GPK-TOKEN {token}\nGPK-DATE 1970-01-01T00:33:20Z\n{facts}{body}"
        "GPK-DATE 1970-01-01T00:34:00Z\n"
    )


def _perftest_kit_run(token: str) -> str:
    """The real RoCE ib_write_bw log as the kit's own command would print it: the token's size
    and iterations in its row (-q 4: perftest prints the four queue pairs' iterations)."""
    p = tokens.expected_parameters(token)
    rate = 111.71e9 / (p.message_bytes * 8) / 1e6
    row = (
        f" {p.message_bytes}      {p.iterations * 4}            111.72             111.71"
        f"             {rate:.6f}"
    )
    real = (CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt").read_text()
    assert DGX_ROW in real
    return real.replace(DGX_ROW, row)


def test_the_token_derives_the_parameters_deterministically_and_per_token() -> None:
    seen = set()
    for invitation in range(1, 41):
        for test in ("iperf3", "ib_write_bw", "ib_write_lat", "nccl"):
            token = tokens.issue(SECRET, 7, invitation, test)
            p = tokens.expected_parameters(token, duration_s=60)
            assert p == tokens.expected_parameters(token, duration_s=60)  # deterministic
            seen.add((test, p))
            if test == "iperf3":
                assert 10000 <= p.port < 19000 and 60 <= p.seconds < 70
                assert p.blksize % 4096 == 0 and 131072 <= p.blksize < 131072 + 32 * 4096
            elif test == "nccl":
                assert 1024 <= p.message_bytes <= 131072 and 20 <= p.iterations <= 50
                assert p.max_bytes in (2**30, 2**31, 2**32)
            elif test == "ib_write_bw":
                assert 65536 <= p.message_bytes <= 1048576 and 20000 <= p.iterations < 50000
                assert 20000 <= p.port < 24000
            else:
                assert 2 <= p.message_bytes <= 64 and 25000 <= p.port < 29000
    assert len(seen) == 160  # no two tokens of these 160 shaped the same test


def test_a_public_perftest_log_with_a_typed_token_and_date_lines_does_not_match() -> None:
    token = tokens.issue(SECRET, 7, 3, "ib_write_bw")
    public = (CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt").read_text()
    outcome = tokens.verify(SECRET, _want(), scan(_frame(token, public)), tool="ib_write_bw")
    assert outcome.status == tokens.REFUSED
    finding = outcome.findings[0]
    p = tokens.expected_parameters(token)
    assert finding.code == "challenge.parameters"
    assert "-s 65536 -n 20000" in finding.en and "-s 65536 -n 20000" in finding.zh
    assert f"-s {p.message_bytes} -n {p.iterations}" in finding.en
    assert "测试包参数" in finding.zh
    # The same test run with the kit's own parameters is verified.
    honest = scan(_frame(token, _perftest_kit_run(token)))
    assert tokens.verify(SECRET, _want(), honest, tool="ib_write_bw").status == tokens.VERIFIED
    # Another supplier's parameters on this supplier's token do not match either.
    other = tokens.issue(SECRET, 7, 4, "ib_write_bw")
    moved = scan(_frame(token, _perftest_kit_run(other)))
    assert tokens.verify(SECRET, _want(), moved, tool="ib_write_bw").findings[0].code == (
        "challenge.parameters"
    )


def test_an_all_sizes_perftest_sweep_never_matches_a_single_size_challenge() -> None:
    token = tokens.issue(SECRET, 7, 3, "ib_write_bw")
    sweep = (CORPUS / "ib_write_bw" / "cx3_ib_a_MBsec.txt").read_text()
    outcome = tokens.verify(SECRET, _want(), scan(_frame(token, sweep)), tool="ib_write_bw")
    assert outcome.findings[0].code == "challenge.parameters"
    assert "…" in outcome.findings[0].en  # 23 sizes: the first three are named


def test_iperf3_json_with_a_typed_title_does_not_match_its_challenge() -> None:
    token = tokens.issue(SECRET, 7, 3, "iperf3")
    doc = json.loads((CORPUS / "iperf3-json" / "local_3.12_tcp_P4.json").read_bytes())
    doc["start"]["timestamp"]["timesecs"] = 2000
    doc["title"] = doc["extra_data"] = token
    typed = scan(json.dumps(doc, indent=1))
    outcome = tokens.verify(SECRET, _want(), typed, tool="iperf3")
    assert outcome.findings[0].code == "challenge.parameters"
    assert "-l 131072 -t 3 -p 5399" in outcome.findings[0].en
    # The kit's run: its block size, seconds and a port of the pairs' range.
    p = tokens.expected_parameters(token, duration_s=60)
    doc["start"]["test_start"].update(blksize=p.blksize, duration=p.seconds)
    for i, stream in enumerate(doc["start"]["connected"]):
        stream["remote_port"] = p.port + i % 4
    shaped = scan(json.dumps(doc, indent=1))
    assert tokens.verify(SECRET, _want(), shaped, tool="iperf3").status == tokens.VERIFIED
    # One pair beyond the RFQ's four is not the kit's port range.
    doc["start"]["connected"][0]["remote_port"] = p.port + 4
    beyond = tokens.verify(SECRET, _want(), scan(json.dumps(doc)), tool="iperf3")
    assert beyond.findings[0].code == "challenge.parameters"


def test_nccl_tests_header_parameters_are_checked() -> None:
    token = tokens.issue(SECRET, 7, 3, "nccl")
    real = (CORPUS / "nccl-tests" / "superbench_nccl_allreduce.log").read_text()
    typed = tokens.verify(SECRET, _want(), scan(_frame(token, real)), tool="all_reduce_perf")
    assert typed.findings[0].code == "challenge.parameters"
    assert "-b 1 -e 8589934592 -n 20" in typed.findings[0].en
    p = tokens.expected_parameters(token)
    header = "minBytes 1 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20"
    assert header in real
    kit = real.replace(
        header,
        f"minBytes {p.message_bytes} maxBytes {p.max_bytes} step: 2(factor) warmup iters: 5 "
        f"iters: {p.iterations}",
    )
    honest = tokens.verify(SECRET, _want(), scan(_frame(token, kit)), tool="all_reduce_perf")
    assert honest.status == tokens.VERIFIED


def test_host_facts_are_read_and_checked_against_the_bid_host_list() -> None:
    token = tokens.issue(SECRET, 7, 3, "ib_write_bw")
    body = _perftest_kit_run(token)
    line = (
        "GPK-HOST host=gpu-node-01 guid=0x0c42a10300abcdef,b8ce:f603:0001:0002 "
        "mac=B8:CE:F6:01:02:03"
    )
    facts = scan(_frame(token, body, host=line))
    assert facts.host_facts == (
        ("gpu-node-01", ("0c42a10300abcdef", "b8cef60300010002", "b8cef6010203")),
    )
    hosts, errors = parse_lines(
        "# offered servers\ngpu-node-01 0c42:a103:00ab:cdef b8ce:f603:0001:0002 b8:ce:f6:01:02:03\n"
        "gpu-node-02\n"
    )
    assert errors == () and [h.name for h in hosts] == ["gpu-node-01", "gpu-node-02"]
    listed = _want(bid_hosts=hosts)
    assert tokens.verify(SECRET, listed, facts, tool="ib_write_bw").status == tokens.VERIFIED
    # Another host, a NIC the bid does not list for the host, no host line at all.
    other = scan(_frame(token, body, host="GPK-HOST host=rented-elsewhere"))
    found = tokens.verify(SECRET, listed, other, tool="ib_write_bw").findings[0]
    assert found.code == "challenge.other_hosts" and "rented-elsewhere" in found.zh
    swapped = scan(_frame(token, body, host="GPK-HOST host=gpu-node-01 guid=0x1111222233334444"))
    found = tokens.verify(SECRET, listed, swapped, tool="ib_write_bw").findings[0]
    assert found.code == "challenge.other_hardware" and "0c42a10300abcdef" in found.en
    bare = scan(_frame(token, body))
    found = tokens.verify(SECRET, listed, bare, tool="ib_write_bw").findings[0]
    assert found.code == "challenge.no_hosts" and "GPK-HOST" in found.zh
    # A host without listed ids accepts any hardware; no host list: no host check.
    plain = scan(_frame(token, body, host="GPK-HOST host=gpu-node-02 guid=0xabc0abc0abc0abc0"))
    assert tokens.verify(SECRET, listed, plain, tool="ib_write_bw").status == tokens.VERIFIED
    assert tokens.verify(SECRET, _want(), bare, tool="ib_write_bw").status == tokens.VERIFIED


def test_nccl_rank_host_names_are_checked_against_the_host_list() -> None:
    token = tokens.issue(SECRET, 7, 3, "nccl")
    real = (CORPUS / "nccl-tests" / "pkb_nccl_output.txt").read_text()
    p = tokens.expected_parameters(token)
    kit = real.replace(
        "minBytes 1048576 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 1",
        f"minBytes {p.message_bytes} maxBytes {p.max_bytes} step: 2(factor) warmup iters: 5 "
        f"iters: {p.iterations}",
    )
    facts = scan(_frame(token, kit))
    both = _want(bid_hosts=(BidHost("pkb-2b6a393d-2"), BidHost("pkb-2b6a393d-3")))
    assert tokens.verify(SECRET, both, facts, tool="all_reduce_perf").status == tokens.VERIFIED
    one = _want(bid_hosts=(BidHost("pkb-2b6a393d-2"),))
    found = tokens.verify(SECRET, one, facts, tool="all_reduce_perf").findings[0]
    assert found.code == "challenge.other_hosts" and "pkb-2b6a393d-3" in found.en


def test_a_host_list_with_bad_lines_is_refused_line_by_line() -> None:
    hosts, errors = parse_lines("good-1\n-bad name\ngood-1\ngood-2 x\n" + "h\n" * 2)
    assert [h.name for h in hosts] == ["good-1", "h"]
    codes = [e.code for e in errors]
    assert codes == ["hosts.bad_name", "hosts.duplicate", "hosts.bad_id", "hosts.duplicate"]
    assert "Line 2" in errors[0].en and "第 2 行" in errors[0].zh
    assert normal_id("0C:42:A1:03:00:AB:CD:EF") == normal_id("0x0c42a10300abcdef")
    assert normal_id("GPU-5B2E0A1C-1111") == "gpu-5b2e0a1c-1111"


def test_host_and_token_lines_do_not_change_a_body_digest() -> None:
    token = tokens.issue(SECRET, 7, 3, "ib_write_bw")
    public = (CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt").read_bytes()
    framed = _frame(token, public.decode(), host="GPK-HOST host=a guid=0x01").encode()
    assert body_digest(io.BytesIO(public)) == body_digest(io.BytesIO(framed))


def test_an_rfq_can_name_the_envelope_its_acceptance_logs_are_judged_against() -> None:
    ndr = (CORPUS / "ib_send_bw" / "cx7_ndr_session_send_bw_lat_read_write.txt").read_bytes()
    roce = (CORPUS / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt").read_bytes()
    logs = [
        (1, "ndr.txt", parse_stream(io.BytesIO(ndr), "ndr.txt"), ()),
        (2, "roce.txt", parse_stream(io.BytesIO(roce), "roce.txt"), ()),
        (3, "forged.txt", parse_stream(io.BytesIO(ndr), "forged.txt"), ("inconsistent",)),
    ]
    # An A100 card has no published envelope; the RFQ names Azure's ND H100 v5 one.
    assert grade_logs(logs, "A100-SXM4-80GB", 200.0)[1] is None
    grades, env = grade_logs(logs, "A100-SXM4-80GB", 200.0, named="azure-nd-h100-v5")
    assert env is by_key("azure-nd-h100-v5") and env is not None
    assert [g.grade.status for g in grades] == [WITHIN, BELOW, NOT_COVERED]
    found = summary(grades, env)
    assert found is not None and found["status"] == BELOW
    assert "roce.txt" in found["en"] and "Azure ND H100 v5" in found["zh"]
    assert "health check" in found["en"] and "健康检查" in found["zh"]
    within = summary(grades[:1], env)
    assert within is not None and within["status"] == WITHIN
    assert summary(grades[2:], env) is None  # only a set-aside log: nothing graded
