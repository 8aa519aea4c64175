"""Copies of one test are one test: never summed as tests run together, never counted twice.

The corpus' real iperf3 3.0.11 log (0.93 Gbit/s, 13 intervals) copied the ways a reviewer did on
a running portal: only ``start.cookie`` changed in 12 copies; re-indented and minified with the
same cookie; and copies whose clock was also moved by a second each, so that they look like
12 tests sharing one link at once and add up to more than a 10G port carries.
"""

from __future__ import annotations

import json
from pathlib import Path

from domain.evidence.admission import offer_evidence
from domain.evidence.offer import OfferPorts
from domain.evidence.reuse import series_fingerprint
from tests.domain.evidence.test_evidence_admission import CORPUS, record

REAL = CORPUS / "iperf3-json" / "iperf3-python_results_tcp_3.0.11.json"
OTHER = CORPUS / "iperf3-json" / "local_3.12_tcp_single.json"
TCP_10G = OfferPorts(ports=1, port_gbps=10.0, gpus_per_server=8, gpu="H100-SXM", fabric="tcp")


def _copy(
    path: Path, *, cookie: str | None = None, shift_s: int = 0, indent: int | None = 4
) -> bytes:
    doc = json.loads(path.read_bytes())
    if cookie is not None:
        doc["start"]["cookie"] = cookie
    doc["start"]["timestamp"]["timesecs"] += shift_s
    if indent is None:
        return json.dumps(doc, separators=(",", ":")).encode()
    return json.dumps(doc, indent=indent).encode()


def test_copies_with_only_the_cookie_changed_count_once() -> None:
    original = REAL.read_bytes()
    records = [record(original, "real.json", 1)]
    records += [
        record(_copy(REAL, cookie=f"forged{k:030d}"), f"copy_{k:02d}.json", k + 2)
        for k in range(11)
    ]
    found = offer_evidence(records, TCP_10G)
    assert [a.log_id for a in found.admitted] == [1]
    for aside in found.set_aside:
        assert aside.codes == ("reused",)
        assert "same test as “real.json”" in aside.reasons[0].en
        assert "同一次测试" in aside.reasons[0].zh
    assert found.figure is not None
    # The one real test's figure, not 12 tests summed and capped at the 10G line rate (9.41).
    assert 0.9 < found.figure.gbps < 0.95
    assert not found.figure.capped


def test_series_fingerprint_is_the_clock_and_the_intervals_not_the_cookie() -> None:
    real = record(REAL.read_bytes(), "real.json", 1)
    relabelled = record(_copy(REAL, cookie="x" * 36), "copy.json", 2)
    moved = record(_copy(REAL, shift_s=60), "later.json", 3)
    other = record(OTHER.read_bytes(), "other.json", 4)
    assert real.checks.fingerprint != relabelled.checks.fingerprint  # the cookies differ
    prints = [series_fingerprint(r.result) for r in (real, relabelled, moved, other)]
    assert prints[0] is not None and prints[0] == prints[1]
    assert prints[2] != prints[0] and prints[3] != prints[0]


def test_a_re_saved_copy_in_the_same_offer_counts_once() -> None:
    """Re-indented and minified copies keep the cookie: the body digest differs, the test is one."""
    records = [
        record(REAL.read_bytes(), "real.json", 1),
        record(_copy(REAL, indent=1), "indent1.json", 2),
        record(_copy(REAL, indent=None), "minified.json", 3),
    ]
    found = offer_evidence(records, TCP_10G)
    assert [a.log_id for a in found.admitted] == [1]
    assert all(a.codes == ("reused",) for a in found.set_aside)
    assert found.figure is not None and found.figure.gbps < 0.95  # not 1.86 or 2.78


def test_tests_on_one_link_adding_up_above_the_port_are_set_aside_not_capped() -> None:
    """Twelve copies each moved by a second: distinct clocks and cookies, windows overlapping on
    one link, 12 × 0.93 Gbit/s on a 10G port. The set cannot add up: all are set aside."""
    records = [
        record(_copy(REAL, cookie=f"moved{k:031d}", shift_s=k), f"moved_{k:02d}.json", k + 1)
        for k in range(12)
    ]
    found = offer_evidence(records, TCP_10G)
    assert found.admitted == ()
    assert found.figure is None  # never the line rate credited by capping a forged sum
    for aside in found.set_aside:
        assert aside.codes == ("above_line_rate",)
        assert "12 tests that ran at the same time on one link" in aside.reasons[0].en
        assert "同时运行的 12 个测试至少两秒合计" in aside.reasons[0].zh


def test_real_tests_sharing_one_link_below_its_rate_still_add_up() -> None:
    """Four real iperf3 processes on one 1 Gbit/s link: summed, under the port's rate: kept."""
    logs = sorted((CORPUS.parent / "recorded").glob("one_link_port54*.json"))
    records = [record(p.read_bytes(), p.name, k + 1) for k, p in enumerate(logs)]
    offer = OfferPorts(ports=1, port_gbps=1.0, gpus_per_server=8, gpu="H100-SXM", fabric="tcp")
    found = offer_evidence(records, offer)
    assert len(found.admitted) == 4
    assert found.figure is not None and 0.8 < found.figure.gbps <= 0.95
