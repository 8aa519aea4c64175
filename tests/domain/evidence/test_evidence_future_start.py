"""A log whose tool clock says the test started after the log was uploaded is not admitted
(DOMAIN.md §9: a log outside the window it claims): an integrity failure, said in both
languages with the times formatted, not as raw ISO strings."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

from domain.benchlogs import parse_stream
from domain.evidence.integrity import FUTURE_SLACK_S, check_integrity
from tests.domain.evidence.test_evidence_admission import CORPUS

REAL = CORPUS / "iperf3-json" / "iperf3-python_results_tcp_3.0.11.json"
UPLOADED = datetime(2026, 12, 6, 10, 0, tzinfo=UTC).timestamp()


def _started_at(epoch_s: int) -> bytes:
    doc = json.loads(REAL.read_bytes())
    doc["start"]["timestamp"]["timesecs"] = epoch_s
    doc["start"]["timestamp"]["time"] = "whatever the forger typed"
    return json.dumps(doc).encode()


def _check(raw: bytes):  # type: ignore[no-untyped-def]
    result = parse_stream(io.BytesIO(raw), "log.json")
    return check_integrity(result, exact=True, uploaded_s=UPLOADED)


def test_a_start_in_2031_is_an_integrity_failure_with_formatted_times() -> None:
    future = int(datetime(2031, 6, 28, 15, 31, 28, tzinfo=UTC).timestamp())
    outcome = _check(_started_at(future))
    assert outcome.status == "inconsistent"
    finding = next(f for f in outcome.findings if f.code == "integrity.started_after_upload")
    assert "2031-06-28 15:31 UTC" in finding.en and "2026-12-06 10:00 UTC" in finding.en
    assert "2031-06-28 15:31 UTC" in finding.zh and "晚于日志上传时间" in finding.zh
    assert "T15:31" not in finding.en


def test_a_real_start_or_a_clock_a_little_ahead_passes() -> None:
    assert _check(REAL.read_bytes()).status == "consistent"  # 2017, before the upload
    ahead = int(UPLOADED + FUTURE_SLACK_S - 10)  # a test host's clock minutes ahead
    assert _check(_started_at(ahead)).status == "consistent"
    assert _check(_started_at(int(UPLOADED + FUTURE_SLACK_S + 60))).status == "inconsistent"


def test_without_an_upload_time_nothing_is_assumed() -> None:
    result = parse_stream(io.BytesIO(_started_at(1_940_000_000)), "log.json")
    assert check_integrity(result, exact=True).status == "consistent"
