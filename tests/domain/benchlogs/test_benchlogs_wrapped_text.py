"""A text log whose summary rows were wrapped by a mail client is read as iperf3 printed it.

A mail client or a narrow terminal wraps the long summary rows so that the trailing role word
(``sender`` / ``receiver``) stands on a line of its own. The log must then give the same figures
per direction as the unwrapped original, never one stream's figure or a mix of both roles.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from domain.benchlogs import parse_all, result_to_json

DATA = Path(__file__).resolve().parents[1] / "data"
TEXT_LOGS = sorted(
    path
    for path in (DATA / "corpus/iperf3-text").glob("*.txt")
    if re.search(r"(sender|receiver)\s*$", path.read_text(errors="replace"), re.M)
)
ROLE_AT_END = re.compile(r"[ \t]+(sender|receiver)[ \t]*(\r?)$", re.M)


def _figures(data: bytes, name: str) -> list[dict[str, object]]:
    return [result_to_json(result, name) for result in parse_all(io.BytesIO(data), name)]


@pytest.mark.parametrize(
    "wrap",
    [
        r"\2\n\1\2",  # the role word alone on the next line
        r"\2\n        \1 \2",  # indented, with a trailing space (format=flowed)
    ],
    ids=["bare", "indented"],
)
@pytest.mark.parametrize("path", TEXT_LOGS, ids=lambda p: p.name)
def test_a_wrapped_summary_gives_the_figures_of_the_log_as_printed(path: Path, wrap: str) -> None:
    original = path.read_text()
    wrapped = ROLE_AT_END.sub(wrap, original)
    assert wrapped != original
    assert _figures(wrapped.encode(), path.name) == _figures(original.encode(), path.name)


def test_a_wrapped_crlf_log_reads_like_its_original() -> None:
    original = (DATA / "corpus/iperf3-text/local_3.12_tcp_P2.txt").read_text()
    wrapped = ROLE_AT_END.sub(r"\n\1", original).replace("\n", "\r\n")
    result = parse_all(io.BytesIO(wrapped.encode()), "wrapped.txt")[0]
    assert result.streams == 2 and result.throughput_gbps == pytest.approx(21.3)
