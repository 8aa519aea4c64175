"""Line prefixes in front of iperf3's text output, such as ``--timestamps``.

``iperf3 --timestamps[=FORMAT]`` puts ``strftime(FORMAT)`` (default ``"%c "``, e.g.
``Fri Dec  4 01:01:00 2026 ``) in front of every line it prints. The format is the user's
choice, so no date pattern is assumed: the prefix is learned from the first line whose
remainder is one of iperf3's own fixed lines (``Connecting to host``, a ``[ ID]`` header, an
interval row, a ``- - -`` separator, ``iperf Done.`` …), generalised (digit runs, letter runs and
blank runs may vary in length; anything else must match exactly) and stripped from every line
that carries it. A log whose first such line starts at the first character has no prefix and
is read unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from domain.benchlogs import iperf3_text_lines as grammar
from domain.benchlogs.errors import BenchLogError

# Lines printed before the first anchor (``-V`` prints version and host lines) wait this long
# for the prefix to be known; past it the log is read unchanged.
_MAX_PENDING = 200
# A prefix is a date or a counter, not a paragraph (the anchor itself may run 40 past it).
_MAX_PREFIX = 80
# Where one of iperf3's fixed lines may start inside a prefixed line.
_ANCHOR = re.compile(
    r"Connecting to host |Server listening on |Accepted connection from |\[\s*(?:\d+|SUM|ID)\s*\]"
    r"|(?:- ){8}|iperf Done\.|iperf3?: (?:error|interrupt) - |Reverse mode, remote host "
)
_SERVER_OUTPUT = "Server output:"  # grammar.SERVER_OUTPUT, checked on every line: kept cheap
_TOKEN = re.compile(r"(?P<digits>\d+)|(?P<letters>[^\W\d_]+)|(?P<blank>\s+)|(?P<other>.)")


def _is_iperf_line(text: str) -> bool:
    """Whether ``text`` is one of iperf3's fixed lines (not just one that starts alike)."""
    for pattern in (
        grammar.CONNECTING,
        grammar.LISTENING,
        grammar.ACCEPTED,
        grammar.REVERSE,
        grammar.CONNECTED,
        grammar.HEADER,
        grammar.SEPARATOR,
        grammar.DONE,
        grammar.ERROR,
        grammar.INTERRUPT,
        grammar.SENT_DATAGRAMS,
    ):
        if pattern.match(text):
            return True
    try:
        return grammar.parse_row(text) is not None
    except BenchLogError:
        return False


def learn_prefix(line: str) -> re.Pattern[str] | None | bool:
    """The prefix pattern of a line that holds an iperf3 line after a prefix.

    Returns False when the line holds no iperf3 line (keep looking), None when it starts with
    one (no prefix), else the compiled pattern.
    """
    text = line.strip()
    for anchor in _ANCHOR.finditer(text, 0, _MAX_PREFIX + 40):
        start = anchor.start()
        if not _is_iperf_line(text[start:]):
            continue
        if start == 0:
            return None
        return _generalise(text[:start])
    return False


def _generalise(prefix: str) -> re.Pattern[str]:
    parts: list[str] = []
    for token in _TOKEN.finditer(prefix):
        if token.group("digits"):
            parts.append(r"\d+")
        elif token.group("letters"):
            parts.append(r"[^\W\d_]+")
        elif token.group("blank"):
            parts.append(r"\s*" if token.end() == len(prefix) else r"\s+")
        else:
            parts.append(re.escape(token.group()))
    return re.compile("".join(parts))


_ROLE_ONLY = frozenset(("sender", "receiver"))


def rejoin_wrapped_roles(lines: Iterable[str]) -> Iterator[str]:
    """The lines with a summary row's role word put back at the end of its row.

    A mail client or a narrow terminal that wraps long lines leaves a summary row's trailing
    ``sender`` / ``receiver`` on a line of its own; read as printed, every summary row would
    lose its role and the sender's and receiver's figures could no longer be told apart. A
    line holding nothing but the role word belongs to the line before it."""
    held: str | None = None
    for line in lines:
        if held is not None and line.strip() in _ROLE_ONLY:
            yield held.rstrip("\r\n") + "  " + line.strip() + "\n"
            held = None
            continue
        if held is not None:
            yield held
        held = line
    if held is not None:
        yield held


def strip_prefixes(lines: Iterable[str]) -> Iterator[str]:
    """The lines with a learned prefix removed from each line that carries it.

    A client's ``--get-server-output`` section is the server's own text, printed with the
    server's ``--timestamps`` format or none: a prefix is learned again after "Server output:",
    and the client's own prefix still applies to the lines after the section.
    """
    prefixes: list[re.Pattern[str]] = []
    pending: list[str] = []
    learning = True
    for line in lines:
        if prefixes:
            line = _strip_any(prefixes, line)
        if learning:
            pending.append(line)
            learned = learn_prefix(line)
            if learned is False and len(pending) < _MAX_PENDING:
                continue
            learning = False
            if isinstance(learned, re.Pattern):
                prefixes.append(learned)
                yield from (_strip(learned, text) for text in pending)
            else:
                yield from pending
            pending = []
        else:
            yield line
            if line.startswith(_SERVER_OUTPUT):
                learning = True
    yield from pending


def _strip_any(prefixes: list[re.Pattern[str]], line: str) -> str:
    for prefix in prefixes:
        found = prefix.match(line)
        if found:
            return line[found.end() :]
    return line


def _strip(prefix: re.Pattern[str], line: str) -> str:
    found = prefix.match(line)
    return line[found.end() :] if found else line


def head_has_prefixed_iperf_lines(text: str) -> bool:
    """Detection: the head's lines, once a learned prefix is removed, hold iperf3 lines.

    Two prefixed iperf3 lines are required, so one stray match in another tool's log does not
    make it an iperf3 log.
    """
    found = 0
    for line in strip_prefixes(text.splitlines()[:_MAX_PENDING]):
        if _is_iperf_line(line.strip()):
            found += 1
            if found >= 2:
                return True
    return False
