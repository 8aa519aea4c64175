"""Ingest-time trust of a log: how it came in, its integrity, fingerprint, provenance, re-use
and challenge token. The rules are in ``domain/evidence``; this module only gathers their inputs
from the database and the stored file, and is called by the parse service."""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db.models import Q

from accounts.models import Membership
from domain.benchlogs.result import BenchResult
from domain.evidence import hosts, tokens
from domain.evidence.integrity import check_integrity
from domain.evidence.record import Checks, SiteFacts, body_digest
from domain.evidence.reuse import (
    Holder,
    fingerprint,
    is_other_offer,
    reuse_findings,
    series_fingerprint,
)
from domain.evidence.trust import describe, trust_level, weakest
from domain.evidence.trust_facts import RawFacts, read_head_tail, scan
from domain.messages import Message

from .models import BenchmarkLog

logger = logging.getLogger(__name__)

_OTHERS_LIMIT = 20  # enough to name every other offer holding the test


def challenge_secret() -> bytes:
    """The key of the RFQ kits' challenge tokens, derived from (never equal to) SECRET_KEY."""
    return hashlib.sha256(b"portal-challenge-token:" + settings.SECRET_KEY.encode()).digest()


def run_trust_label(levels: list[str]) -> dict[str, str] | None:
    """The trust of a run's pooled figure (its least trusted log), for the run page."""
    level = weakest(levels)
    return None if level is None else {"level": level, **describe(level).as_dict()}


def origin_for(user, *, via: str, **extra: Any) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """How a log came in: who (and in which role) uploaded it, through which path."""
    role = ""
    if user is not None and getattr(user, "pk", None):
        role = Membership.objects.filter(user=user).values_list("role", flat=True).first() or ""
        if not role and hasattr(user, "supplier_account"):
            role = "supplier"
    return {"via": via, "user": getattr(user, "username", "") or "", "role": role, **extra}


def _epoch_iso(value: float | None) -> str | None:
    if value is None:
        return None
    try:
        return datetime.fromtimestamp(value, tz=UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def _facts(log: BenchmarkLog) -> RawFacts:
    try:
        with log.file.open("rb") as fh:
            return scan(read_head_tail(fh, log.size_bytes))
    except OSError:
        return RawFacts()


def _holder(log: BenchmarkLog) -> Holder:
    run = log.test_run
    rfq = (log.origin or {}).get("rfq")
    quote = f", quote {run.quote_id}" if run.quote_id else ""
    rfq_en = f", RFQ {rfq}" if rfq else ""
    rfq_zh = f"，询价 {rfq}" if rfq else ""
    quote_zh = f"，报价 {run.quote_id}" if run.quote_id else ""
    vendor_en = run.vendor.name_en or run.vendor.name_zh
    vendor_zh = run.vendor.name_zh or run.vendor.name_en
    return Holder(
        vendor_id=run.vendor_id,
        quote_id=run.quote_id,
        rfq_id=rfq if isinstance(rfq, int) else None,
        where_en=f"“{log.original_name}” in the run “{run.name}” of {vendor_en}{quote}{rfq_en}",
        where_zh=f"“{vendor_zh}”的测试“{run.name}”中的“{log.original_name}”{quote_zh}{rfq_zh}",
    )


def _reuse(
    log: BenchmarkLog, print_: str, series: str = ""
) -> tuple[list[dict[str, str]], list[int]]:
    """Findings for other offers of the same team holding this test (never other teams): the
    same fingerprint, or (iperf3) the same start second and interval series under any cookie."""
    same = Q(fingerprint=print_) if print_ else Q(pk__in=[])
    if series:
        same |= Q(fingerprint=series) | Q(checks__series=series)
    others = list(
        BenchmarkLog.objects.filter(same, team_id=log.team_id)
        .exclude(pk=log.pk)
        .select_related("test_run__vendor")
        .defer("result", "summary")
        .order_by("pk")[:_OTHERS_LIMIT]
    )
    own = _holder(log)
    flagged = [o for o in others if is_other_offer(own, _holder(o))]
    findings = reuse_findings(own, [_holder(o) for o in flagged])
    return [m.as_dict() for m in findings], [o.pk for o in flagged]


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _challenge(
    log: BenchmarkLog, result: BenchResult | None, facts: RawFacts
) -> dict[str, Any] | None:
    origin = log.origin or {}
    if not origin.get("rfq") or not origin.get("invitation") or result is None:
        return None
    want = tokens.Challenge(
        rfq_id=int(origin["rfq"]),
        invitation_id=int(origin["invitation"]),
        published_at_s=origin.get("published_at"),
        deadline_s=float(origin.get("deadline") or 0),
        bid_hosts=hosts.from_stored(origin.get("bid_hosts")),
        kit_duration_s=_int_or_none(origin.get("kit_duration_s")),
        kit_pairs=_int_or_none(origin.get("kit_pairs")),
    )
    outcome = tokens.verify(
        challenge_secret(),
        want,
        facts,
        tool=result.tool,
        start_s=result.start_time_s,
        duration_s=result.duration_s,
    )
    return outcome.as_dict()


def after_parse(log: BenchmarkLog, result: BenchResult | None) -> dict[str, Any]:
    """The trust fields of a parsed (or unparseable) log; never raises."""
    try:
        return _after_parse(log, result)
    except Exception:  # trust is an addition to the parse: its failure must not fail the log
        logger.exception("trust checks failed for benchmark log %s", log.pk)
        return {}


def _body(log: BenchmarkLog) -> str:
    try:
        with log.file.open("rb") as fh:
            return body_digest(fh)
    except OSError:
        return ""


def _body_held_by(log: BenchmarkLog, body: str) -> list[int]:
    """The team's other logs with this body, uploaded before it (the first one counts)."""
    if not body:
        return []
    held = BenchmarkLog.objects.filter(team_id=log.team_id, body_sha256=body, pk__lt=log.pk)
    return list(held.order_by("pk").values_list("pk", flat=True)[:_OTHERS_LIMIT])


def _after_parse(log: BenchmarkLog, result: BenchResult | None) -> dict[str, Any]:
    facts = _facts(log)
    body = _body(log)
    held = _body_held_by(log, body)
    integrity = check_integrity(
        result,
        exact=facts.is_json,
        start_s=facts.start_epoch_s,
        uploaded_s=log.uploaded_at.timestamp() if log.uploaded_at else None,
    ).as_dict()
    print_ = fingerprint(result, facts) or ""
    series = series_fingerprint(result, facts.start_epoch_s) or ""
    reused, reused_ids = _reuse(log, print_, series) if print_ or series else ([], [])
    integrity["reused"] = reused_ids
    integrity["findings"] = [*integrity["findings"], *reused]  # type: ignore[misc]
    challenge = _challenge(log, result, facts)
    origin = log.origin or {}
    provenance = {
        "hosts": list(facts.hosts[:32]),
        "host_facts": [[name, list(ids[:16])] for name, ids in facts.host_facts[:32]],
        "tool": result.tool if result else log.tool,
        "version": facts.version or (result.version if result else None),
        "system_info": facts.system_info,
        "start_time": _epoch_iso(
            facts.start_epoch_s
            or (result.start_time_s if result else None)
            or (facts.dates[0] if facts.dates else None)
        ),
        "cookie": facts.cookie,
        "uploaded_by": origin.get("user") or (log.uploaded_by.username if log.uploaded_by else ""),
        "role": origin.get("role", ""),
        "via": origin.get("via", ""),
        "rfq": origin.get("rfq"),
        "uploaded_at": log.uploaded_at.isoformat() if log.uploaded_at else None,
    }
    status = (challenge or {}).get("status")
    # "Kit-verified" is never granted to a test already held (by body or fingerprint): a token
    # typed on top of a public log proves nothing about who ran it.
    if held or reused_ids:
        status = None if status == "verified" else status
    level = trust_level(witnessed=log.witnessed, challenge_status=status)
    checks = Checks(
        integrity=str(integrity["status"]),
        findings=tuple(
            Message(str(m.get("code", "")), str(m.get("en", "")), str(m.get("zh", "")))
            for m in integrity["findings"]  # type: ignore[attr-defined]
        ),
        reused_by=tuple(reused_ids),
        body_held_by=tuple(held),
        fingerprint=print_,
        series=series,
        body=body,
        trust=level,
        challenge=status,
        challenge_codes=tuple(
            str(f.get("code", "")) for f in (challenge or {}).get("findings") or ()
        ),
        site=SiteFacts.of(facts),
    )
    return {
        "integrity": integrity,
        "provenance": provenance,
        "challenge": challenge,
        "fingerprint": print_,
        "trust_level": level,
        "checks": checks.as_dict(),
        "body_sha256": body,
    }
