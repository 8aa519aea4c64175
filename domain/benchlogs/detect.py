"""Tell which tool wrote a log from its first few KB.

Detection keys on each tool's own fixed strings (perftest's test title, nccl-tests' ``#
nThread`` header, iperf3's ``[ ID]`` tables and JSON keys), never on the file name, so a
renamed upload is still recognised and a mislabelled one is not misparsed.
"""

from __future__ import annotations

import re

from domain.benchlogs import catalogue
from domain.benchlogs.errors import BenchLogError
from domain.benchlogs.iperf3_text_prefix import head_has_prefixed_iperf_lines
from domain.benchlogs.textio import encoding_of, json_offset, looks_binary

IPERF3_JSON = "iperf3_json"
IPERF3_JSON_STREAM = "iperf3_json_stream"
IPERF3_TEXT = "iperf3_text"
PERFTEST_BW = "perftest_bw"
PERFTEST_LAT = "perftest_lat"
NCCL_TESTS = "nccl_tests"

FORMATS = (IPERF3_JSON, IPERF3_JSON_STREAM, IPERF3_TEXT, PERFTEST_BW, PERFTEST_LAT, NCCL_TESTS)

_JSON_STREAM = re.compile(r'^\s*\{\s*"event"\s*:\s*"(start|interval|end|error)"')
_IPERF_KEYS = re.compile(r'"(start|intervals|end|error)"\s*:')
# Also behind Open MPI's "[1,0]<stdout>:" tag (perftest started by mpirun in a script).
_MPI_TAG = r"(?:\[\d+,\d+\]<std\w+>:)?"
_PERFTEST_TITLE = re.compile(
    rf"^{_MPI_TAG}\s*(RDMA_Write|RDMA_Read|Send|Atomic)\b.*\b(BW|Latency) Test\s*$", re.MULTILINE
)
_PERFTEST_TABLE = re.compile(rf"^{_MPI_TAG}\s*#bytes\s+(#sl\s+)?#iterations\s+(\S+)", re.MULTILINE)
# A perftest run that died before its title: the socket handshake's own failure lines.
_PERFTEST_FAILURE = re.compile(
    r"^\s*(Couldn't connect to \S+:\d+\s*$|Unable to open file descriptor for socket connection)",
    re.MULTILINE,
)
# nccl-tests header lines, also behind what launchers prepend (indentation, "[1,0]<stdout>:",
# "(head, rank=0, pid=1) ", srun's "0: "): anything but a "#" before the header's own "#".
_NCCL = re.compile(
    r"^[^#\n]{0,120}#\s*(nThread:?\s+\d+|Avg bus bandwidth|\s*size\s+count\s+type"
    r"|Collective test starting:|[nr]ccl-tests version)",
    re.MULTILINE,
)
_IPERF_TEXT = re.compile(
    r"^(\[\s*(\d+|SUM|ID)\s*\]|iperf3?: (error|interrupt)|Connecting to host \S+, port \d+"
    r"|Server listening on \d+|iperf Done\.)",
    re.MULTILINE,
)


def detect(head: bytes, filename: str = "") -> str:
    """Return the format key (one of FORMATS) of a log, given its first bytes.

    ``filename`` only refines the error for unrecognised content: a ``*.json`` upload is
    reported as unsupported JSON rather than as an unknown tool.
    """
    if not head.strip():
        raise BenchLogError(catalogue.empty_file())
    if looks_binary(head):
        raise BenchLogError(catalogue.binary_file())
    text = head.decode(encoding_of(head), errors="replace").lstrip("\ufeff")
    if text.lstrip().startswith("{"):
        return _detect_json(text)
    found = _detect_text(text)
    if found:
        return found
    # `iperf3 -V -J > f 2>&1`: a few plain-text lines, then the document (textio.json_offset).
    start = json_offset(text)
    if start:
        return _detect_json(text[start:])
    # iperf3 text lines also start with "[", so a JSON array is only recognised as a fallback.
    if filename.lower().endswith(".json") or text.lstrip().startswith("["):
        raise BenchLogError(catalogue.unsupported_json())
    raise BenchLogError(catalogue.unsupported_tool())


def _detect_json(text: str) -> str:
    if _JSON_STREAM.match(text):
        return IPERF3_JSON_STREAM
    if _IPERF_KEYS.search(text):
        return IPERF3_JSON
    raise BenchLogError(catalogue.unsupported_json())


def _detect_text(text: str) -> str | None:
    title = _PERFTEST_TITLE.search(text)
    if title:
        return PERFTEST_LAT if title.group(2) == "Latency" else PERFTEST_BW
    table = _PERFTEST_TABLE.search(text)
    if table:
        return PERFTEST_LAT if table.group(2).startswith("t_") else PERFTEST_BW
    if _NCCL.search(text):
        return NCCL_TESTS
    if _PERFTEST_FAILURE.search(text):
        return PERFTEST_BW
    if _IPERF_TEXT.search(text) or head_has_prefixed_iperf_lines(text):
        return IPERF3_TEXT
    return None
