"""Incidents imported from a CSV: outages and their tickets, each row checked and said.

Columns (header line, any order; only ``start`` is required):

    start, end, hosts, opened_at, responded_at, repaired_at, reference

Times are ISO 8601 with or without an offset (without: read in the contract's zone, and a note
says how many), or epoch seconds. ``hosts`` lists host names separated by spaces, ``;`` or ``|``;
empty means every server of the contract. A row that contradicts itself (ends before it starts,
answered before the ticket was opened) is refused with its line number; the other rows still come
in, so the caller can show every problem at once and decide to store nothing.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection, Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import BinaryIO
from zoneinfo import ZoneInfo

from domain.delivery.engine import Incident
from domain.delivery.series import HostMatcher, parse_timestamp
from domain.messages import Message

COLUMNS = ("start", "end", "hosts", "opened_at", "responded_at", "repaired_at", "reference")
_SPLIT = re.compile(r"[\s;|]+")


@dataclass(frozen=True)
class IncidentImport:
    """The incidents read, the rows refused (one message each) and notes about the rest."""

    incidents: tuple[Incident, ...]
    refused: tuple[Message, ...]
    notes: tuple[Message, ...]


class _RowError(ValueError):
    def __init__(self, message: Message) -> None:
        super().__init__(message.en)
        self.message = message


def _row_error(line: int, en: str, zh: str) -> _RowError:
    return _RowError(Message("incident_row_refused", f"Line {line}: {en}", f"第 {line} 行：{zh}"))


class _Reader:
    def __init__(self, zone: ZoneInfo, match: HostMatcher) -> None:
        self.zone = zone
        self.match = match
        self.naive = 0
        self.unknown: set[str] = set()

    def moment(self, text: str, line: int, column: str) -> datetime | None:
        if not text.strip():
            return None
        try:
            seconds, naive = parse_timestamp(text, self.zone)
        except ValueError:
            raise _row_error(
                line,
                f"{column} {text.strip()!r} is not a date and time.",
                f"{column} 的值 {text.strip()!r} 不是日期时间。",
            ) from None
        self.naive += naive
        return datetime.fromtimestamp(seconds, tz=UTC)

    def hosts(self, text: str) -> tuple[str, ...]:
        out = []
        for name in _SPLIT.split(text.strip()):
            if not name:
                continue
            found = self.match(name)
            if found is None:
                self.unknown.add(name)
            else:
                out.append(found)
        return tuple(dict.fromkeys(out))

    def row(self, cells: dict[str, str], line: int) -> Incident:
        start = self.moment(cells.get("start", ""), line, "start")
        if start is None:
            raise _row_error(line, "the outage has no start.", "停机事件缺少开始时间。")
        end = self.moment(cells.get("end", ""), line, "end")
        opened = self.moment(cells.get("opened_at", ""), line, "opened_at")
        responded = self.moment(cells.get("responded_at", ""), line, "responded_at")
        repaired = self.moment(cells.get("repaired_at", ""), line, "repaired_at")
        if end is not None and end <= start:
            raise _row_error(
                line, "the outage ends before it starts.", "停机结束时间早于开始时间。"
            )
        since = opened or start
        for label, zh, moment in (("answered", "响应", responded), ("repaired", "修复", repaired)):
            if moment is not None and moment < since:
                raise _row_error(
                    line,
                    f"the ticket was {label} before it was opened.",
                    f"工单的{zh}时间早于开单时间。",
                )
        raw_hosts = cells.get("hosts", "")
        hosts = self.hosts(raw_hosts)
        if raw_hosts.strip() and not hosts:
            raise _row_error(
                line,
                "none of its hosts is a server of the contract.",
                "所列主机均不是合同中的服务器。",
            )
        return Incident(
            start=start,
            end=end,
            hosts=hosts,
            opened_at=opened,
            responded_at=responded,
            repaired_at=repaired,
            reference=cells.get("reference", "").strip(),
        )


def _rows(stream: BinaryIO) -> Generator[list[str], None, None]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace", newline="")
    try:
        yield from csv.reader(text)
    finally:
        text.detach()


def parse_incidents_csv(
    stream: BinaryIO, *, hosts: Collection[str], default_tz: str
) -> IncidentImport:
    """Read an incidents CSV (see the module doc). Raises ``ValueError`` subclass
    ``IncidentFileError`` when the file has no ``start`` column at all."""
    reader = _Reader(ZoneInfo(default_tz), HostMatcher(hosts))
    rows = _rows(stream)
    try:
        header = [h.strip().lower().lstrip("\ufeff") for h in next(rows, [])]
        if "start" not in header:
            raise IncidentFileError(
                Message(
                    "incidents_no_start_column",
                    "The incidents CSV needs a header line with at least a start column "
                    f"(known columns: {', '.join(COLUMNS)}).",
                    f"事件 CSV 须有表头，且至少包含 start 列（可用列：{', '.join(COLUMNS)}）。",
                )
            )
        incidents: list[Incident] = []
        refused: list[Message] = []
        for line, row in enumerate(rows, start=2):
            if not any(cell.strip() for cell in row):
                continue
            cells = {name: row[i] for i, name in enumerate(header) if i < len(row)}
            try:
                incidents.append(reader.row(cells, line))
            except _RowError as exc:
                refused.append(exc.message)
    finally:
        rows.close()
    return IncidentImport(tuple(incidents), tuple(refused), tuple(_notes(reader, default_tz)))


def _notes(reader: _Reader, default_tz: str) -> list[Message]:
    notes = []
    if reader.naive:
        notes.append(
            Message(
                "naive_timestamps_local",
                f"{reader.naive} time(s) carried no time zone and were read as {default_tz} time.",
                f"有 {reader.naive} 个时间未带时区，已按 {default_tz} 时间读取。",
            )
        )
    if reader.unknown:
        names = ", ".join(sorted(reader.unknown))
        notes.append(
            Message(
                "incident_unknown_hosts",
                f"Host(s) not in the contract were left out of the incidents: {names}.",
                f"事件中不在合同内的主机已略去：{names}。",
            )
        )
    return notes


class IncidentFileError(ValueError):
    """The file is not an incidents CSV at all."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.en)
        self.messages: tuple[Message, ...] = (message,)
