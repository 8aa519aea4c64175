"""One evidence record per log: its parsed figures and everything the checks found about it.

A log reaches the offer's figure only through this record and ``admission.admit``: the parsed
result (rebuilt from the stored JSON in one place, ``domain.benchlogs.stored``), the integrity
verdict of its arithmetic, who else holds the same test (fingerprint) or the same body, the trust
level and challenge outcome, and the facts read from the raw bytes (addresses and LIDs/GIDs at
both ends, GPU models, the port rates the log prints, the date lines it claims).

``to_stored`` is what the app keeps beside the parsed result; ``from_stored`` reads it back, and
``from_stored(...).to_stored()`` gives the same JSON (a test holds it to that).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from domain.benchlogs.result import BenchResult
from domain.benchlogs.stored import result_from_stored
from domain.evidence.trust_facts import DATE_RE, HOST_RE, TOKEN_RE, RawFacts
from domain.messages import Message

_STRIP = (TOKEN_RE, DATE_RE, HOST_RE)


def body_digest(lines: Iterable[bytes]) -> str:
    """A digest of a log's body that survives re-typing it around the test: each line without
    its surrounding white space, blank lines and the kit's token, date and host lines left out, the
    prefix ``--title`` adds to every line of iperf3 text left out. A copy of a held log with a
    newline added, or a token pasted on top, has the same digest."""
    digest = hashlib.sha256()
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line or any(p.search(line) for p in _STRIP):
            continue
        digest.update(_TITLE_PREFIX.sub("", line).encode())
        digest.update(b"\n")
    return digest.hexdigest()


_TITLE_PREFIX = re.compile(r"^GPK-\S{1,80}:\s*")


@dataclass(frozen=True)
class SiteFacts:
    """What the raw log says about where it ran (``trust_facts.scan``), kept for admission."""

    hosts: tuple[str, ...] = ()
    ends: tuple[tuple[str, str], ...] = ()
    rdma_ends: tuple[tuple[str, str, str], ...] = ()
    gpus: tuple[tuple[str, str], ...] = ()
    port_rates_gbps: tuple[float, ...] = ()
    dates: tuple[float, ...] = ()
    start_epoch_s: float | None = None

    @classmethod
    def of(cls, facts: RawFacts) -> SiteFacts:
        return cls(
            hosts=facts.hosts[:32],
            ends=facts.ends[:16],
            rdma_ends=tuple((s, lid, gid or "") for s, lid, gid in facts.rdma_ends[:16]),
            gpus=facts.gpus[:64],
            port_rates_gbps=facts.port_rates_gbps[:16],
            dates=facts.dates[:8],
            start_epoch_s=facts.start_epoch_s,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "hosts": list(self.hosts),
            "ends": [list(e) for e in self.ends],
            "rdma_ends": [list(e) for e in self.rdma_ends],
            "gpus": [list(g) for g in self.gpus],
            "port_rates_gbps": list(self.port_rates_gbps),
            "dates": list(self.dates),
            "start_epoch_s": self.start_epoch_s,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SiteFacts:
        def pairs(key: str, width: int) -> tuple[Any, ...]:
            return tuple(
                tuple(str(v or "") for v in item)
                for item in data.get(key) or ()
                if isinstance(item, list) and len(item) == width
            )

        start = data.get("start_epoch_s")
        return cls(
            hosts=tuple(str(h) for h in data.get("hosts") or ()),
            ends=pairs("ends", 2),
            rdma_ends=pairs("rdma_ends", 3),
            gpus=pairs("gpus", 2),
            port_rates_gbps=tuple(float(r) for r in data.get("port_rates_gbps") or ()),
            dates=tuple(float(d) for d in data.get("dates") or ()),
            start_epoch_s=float(start) if isinstance(start, int | float) else None,
        )


@dataclass(frozen=True)
class Checks:
    """What the checks found about one log (the stored part of the record)."""

    integrity: str = "unchecked"  # consistent, inconsistent or unchecked
    findings: tuple[Message, ...] = ()
    reused_by: tuple[int, ...] = ()  # logs of other offers holding the same test (fingerprint)
    body_held_by: tuple[int, ...] = ()  # logs of the team whose body is this one's
    fingerprint: str = ""
    # iperf3: the start second with the interval series (``reuse.series_fingerprint``), so a
    # copy with only its cookie changed is still found; "" for other tools.
    series: str = ""
    body: str = ""
    trust: str = "supplied"
    challenge: str | None = None
    challenge_codes: tuple[str, ...] = ()
    site: SiteFacts = field(default_factory=SiteFacts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "integrity": self.integrity,
            "findings": [m.as_dict() for m in self.findings],
            "reused_by": list(self.reused_by),
            "body_held_by": list(self.body_held_by),
            "fingerprint": self.fingerprint,
            "series": self.series,
            "body": self.body,
            "trust": self.trust,
            "challenge": self.challenge,
            "challenge_codes": list(self.challenge_codes),
            "site": self.site.as_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Checks:
        data = data or {}
        return cls(
            integrity=str(data.get("integrity") or "unchecked"),
            findings=tuple(
                Message(str(m.get("code", "")), str(m.get("en", "")), str(m.get("zh", "")))
                for m in data.get("findings") or ()
                if isinstance(m, dict)
            ),
            reused_by=tuple(int(i) for i in data.get("reused_by") or ()),
            body_held_by=tuple(int(i) for i in data.get("body_held_by") or ()),
            fingerprint=str(data.get("fingerprint") or ""),
            series=str(data.get("series") or ""),
            body=str(data.get("body") or ""),
            trust=str(data.get("trust") or "supplied"),
            challenge=data.get("challenge") or None,
            challenge_codes=tuple(str(c) for c in data.get("challenge_codes") or ()),
            site=SiteFacts.from_dict(data.get("site") or {}),
        )


@dataclass(frozen=True)
class EvidenceRecord:
    """One log as evidence: ``log_id`` and ``name`` say which, ``batch`` the test run it came in,
    ``result`` its figures. ``declared_together``: the uploader declared that the run's tests
    were started at the same time (only then are its untimed logs one concurrent set)."""

    log_id: int
    name: str
    batch: str
    result: BenchResult
    checks: Checks
    declared_together: bool = False

    @classmethod
    def from_stored(
        cls,
        *,
        log_id: int,
        name: str,
        batch: str,
        result: dict[str, Any],
        checks: dict[str, Any] | None,
        declared_together: bool = False,
    ) -> EvidenceRecord:
        return cls(
            log_id,
            name,
            batch,
            result_from_stored(result),
            Checks.from_dict(checks),
            declared_together,
        )

    def to_stored(self) -> dict[str, Any]:
        """The checks as the app keeps them (the parsed result is kept on its own)."""
        return self.checks.as_dict()
