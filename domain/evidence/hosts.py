"""A bid's host list: the servers a supplier offers, each with the identifiers it may name.

One host per line: its host name, then any of its NIC GUIDs, MAC addresses and GPU UUIDs
(``ibv_devinfo``'s ``node_guid``, ``ibstat``'s ``Port GUID``, ``ip link``'s ``link/ether``,
``nvidia-smi -L``'s ``UUID``), separated by spaces or commas::

    gpu-node-01 0c42:a103:00ab:cdef b8:ce:f6:01:02:03 GPU-5b2e…
    gpu-node-02

A kit log's ``GPK-HOST`` lines (and nccl-tests' rank lines) must name hosts of the list, and a
host's ``GPK-HOST`` line must report every identifier listed for it (it may report more: bridges,
management ports).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from domain.evidence.trust_facts import normal_id
from domain.messages import Message

MAX_HOSTS = 256
MAX_IDS = 64
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_ID = re.compile(r"[A-Za-z0-9:._-]{4,80}")


@dataclass(frozen=True)
class BidHost:
    name: str
    ids: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ids": list(self.ids)}

    def as_line(self) -> str:
        return " ".join((self.name, *self.ids))


def _error(code: str, en: str, zh: str) -> Message:
    return Message(f"hosts.{code}", en, zh)


def parse_lines(text: str) -> tuple[tuple[BidHost, ...], tuple[Message, ...]]:
    """The host list typed one host per line; the errors name the line."""
    hosts: dict[str, BidHost] = {}
    errors: list[Message] = []
    lines = [line.strip() for line in (text or "").splitlines()]
    for number, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        if len(hosts) >= MAX_HOSTS:
            errors.append(
                _error("too_many", f"At most {MAX_HOSTS} hosts.", f"最多 {MAX_HOSTS} 台主机。")
            )
            break
        words = [w for w in re.split(r"[\s,;]+", line) if w]
        name, ids = words[0], words[1:]
        if not _NAME.fullmatch(name):
            errors.append(
                _error(
                    "bad_name",
                    f"Line {number}: “{name[:40]}” is not a host name.",
                    f"第 {number} 行：“{name[:40]}”不是主机名。",
                )
            )
            continue
        bad = [i for i in ids if not _ID.fullmatch(i)]
        if bad or len(ids) > MAX_IDS:
            shown = bad[0][:40] if bad else f"{len(ids)}"
            errors.append(
                _error(
                    "bad_id",
                    f"Line {number}: “{shown}” is not a NIC GUID, MAC address or GPU UUID "
                    f"(at most {MAX_IDS} per host).",
                    f"第 {number} 行：“{shown}”不是网卡 GUID、MAC 地址或 GPU UUID"
                    f"（每台主机最多 {MAX_IDS} 个）。",
                )
            )
            continue
        if name in hosts:
            errors.append(
                _error(
                    "duplicate",
                    f"Line {number}: the host {name} is listed twice.",
                    f"第 {number} 行：主机 {name} 重复列出。",
                )
            )
            continue
        hosts[name] = BidHost(name, tuple(dict.fromkeys(normal_id(i) for i in ids)))
    return tuple(hosts.values()), tuple(errors)


def from_stored(data: Iterable[Any] | None) -> tuple[BidHost, ...]:
    """The stored list (``[{"name", "ids"}]``; a bare name string is a host without ids)."""
    found: list[BidHost] = []
    for item in list(data or ())[:MAX_HOSTS]:
        if isinstance(item, str) and item:
            found.append(BidHost(item[:100]))
        elif isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]:
            raw = item.get("ids")
            ids: list[Any] = raw if isinstance(raw, list) else []
            found.append(
                BidHost(item["name"][:100], tuple(normal_id(str(i)) for i in ids[:MAX_IDS]))
            )
    return tuple(found)


def as_text(hosts: Iterable[BidHost]) -> str:
    return "\n".join(h.as_line() for h in hosts)
