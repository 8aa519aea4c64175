"""A failed check prints its two figures with enough digits to differ, and the gap between them
(the reviewer's "222.7 Gbit/s, but … states 222.7 Gbit/s")."""

from __future__ import annotations

from domain.evidence import integrity_messages as msg
from tests.domain.evidence.test_evidence_integrity import PERF, _check


def test_perftest_message_rate_finding_shows_the_gap() -> None:
    # 0.424800 Mpps × 65,536 B = 222.717 Gbit/s; a BW average typed as 222.70
    found = msg.perftest_msgrate(65536, 0.4248, 222.70, 0.4248 * 65536 * 8 / 1e3)
    assert "222.72 Gbit/s, but the average bandwidth states 222.70 Gbit/s" in found.en
    assert "apart" in found.en and "相差" in found.zh
    assert "222.72 Gbit/s" in found.zh and "222.70 Gbit/s" in found.zh


def test_figures_far_apart_keep_the_usual_digits() -> None:
    found = msg.iperf3_interval_rate(0, 0.0, 1.0, 125_000_000, 2.0, 1.0)
    assert "make 1.000 Gbit/s, but the log states 2.000 Gbit/s (50 % apart)" in found.en


def test_a_real_row_edited_by_a_hundredth_reads_as_two_different_numbers() -> None:
    """The corpus ib_write_bw row (0.213070 Mpps × 65,536 B = 111.7099 Gbit/s, average printed
    111.71) with the average typed 111.70: past the tolerance, and 111.7 vs 111.7 at one decimal."""
    raw = PERF.read_text().replace("111.72             111.71", "111.72             111.70")
    findings = list(_check(raw.encode(), PERF.name).findings)
    assert [f.code for f in findings] == ["integrity.perftest_msgrate"]
    assert "is 111.71 Gbit/s, but the average bandwidth states 111.70 Gbit/s" in findings[0].en
