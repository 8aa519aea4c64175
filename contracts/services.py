"""Write side of contracts: create (from a quote or an RFQ award), update, servers, incidents,
delivery uploads and the jobs that read evidence and evaluate delivery."""

from __future__ import annotations

import contextlib
import hashlib
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import jobs
from sourcing.choices import AwardState

from .choices import BandwidthSource, ContractStatus, UploadKind, UploadOrigin
from .engine import schedule_normalised
from .models import (
    ClaimPack,
    Contract,
    ContractServer,
    DeliveryEvaluation,
    DeliveryUpload,
    Incident,
    MaintenanceWindow,
    PrometheusSource,
)

CONTRACT_FIELDS = (
    "title", "status", "starts_on", "ends_on", "monthly_fee", "currency", "fee_includes_vat",
    "committed_gbps", "committed_gbps_source", "availability_pct", "p99_latency_us",
    "response_minutes", "repair_hours", "schedule", "notes",
)  # fmt: skip


def _save(contract: Contract) -> Contract:
    # the stored shape has every key; a schedule that cannot be read is said by clean()
    with contextlib.suppress(ValueError):
        contract.schedule = schedule_normalised(contract.schedule)
    contract.full_clean()
    with transaction.atomic():
        contract.save()
    return contract


def _quote_prefill(quote) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The contract's figures as the quote (its current version and the vendor's SLA) states
    them; the team reviews and edits them before relying on them."""
    version = quote.current_version
    sla = getattr(quote.vendor, "sla", None)
    data: dict[str, Any] = {"title": f"{quote.vendor} · {quote.label}"[:160]}
    if version is not None:
        data.update(
            monthly_fee=Decimal(version.monthly_rent).quantize(Decimal("0.01")),
            currency=version.currency,
            fee_includes_vat=version.prices_include_vat,
            availability_pct=(Decimal(version.availability) * 100).quantize(Decimal("0.001")),
            committed_gbps=version.nic_gbps * version.nics_per_node,
            committed_gbps_source=BandwidthSource.QUOTE,
            repair_hours=version.repair_hours, term_months=version.term_months,
        )  # fmt: skip
    if quote.measured_gbps:
        data.update(committed_gbps=quote.measured_gbps,
                     committed_gbps_source=BandwidthSource.MEASURED)  # fmt: skip
    if sla is not None:
        if sla.response_minutes:
            data["response_minutes"] = sla.response_minutes
        if data.get("repair_hours") is None and sla.hw_replacement_hours:
            data["repair_hours"] = float(sla.hw_replacement_hours)
        if sla.schedule:
            # the vendor's structured schedule is the starting point; the contract keeps its own
            # copy (a later change to the vendor's SLA does not rewrite a signed contract)
            data["schedule"] = dict(sla.schedule)
    return data


def _term(starts_on: date, months: int) -> date:
    """The same day ``months`` later (the month's last day when that day does not exist)."""
    import calendar

    index = starts_on.month - 1 + months
    year, month = starts_on.year + index // 12, index % 12 + 1
    return starts_on.replace(
        year=year, month=month, day=min(starts_on.day, calendar.monthrange(year, month)[1])
    )


def contract_create_from_quote(  # type: ignore[no-untyped-def]
    *, team, user, quote, starts_on: date | None = None, overrides: dict[str, Any] | None = None
) -> Contract:
    """A contract for a quote the team marks signed, pre-filled from the quote and its SLA."""
    if quote.team_id != team.pk:
        raise ValidationError({"quote": _("Choose one of your team's records.")})
    data = _quote_prefill(quote)
    months = data.pop("term_months", 12) or 12
    starts_on = starts_on or timezone.localdate()
    data.setdefault("committed_gbps", 0)
    data.update(starts_on=starts_on, ends_on=_term(starts_on, months))
    data.update(overrides or {})
    contract = Contract(team=team, vendor=quote.vendor, quote=quote,
                        quote_version=quote.current_version, created_by=user,
                        status=ContractStatus.SIGNED, **data)  # fmt: skip
    return _save(contract)


def contract_create_from_award(  # type: ignore[no-untyped-def]
    *, team, user, award, starts_on: date | None = None, overrides: dict[str, Any] | None = None
) -> Contract:
    """A contract for an approved RFQ award: the winning answer's quote, and the acceptance
    test's slowest pair as the committed figure when the test passed."""

    if award.rfq.team_id != team.pk:
        raise ValidationError({"award": _("Choose one of your team's records.")})
    if award.state not in (AwardState.APPROVED, AwardState.CONFIRMED, AwardState.FLAGGED):
        raise ValidationError({"award": _("Only an approved award can become a contract.")})
    quote = award.answer.quote
    if quote is None:
        raise ValidationError(
            {"award": _("The winning answer has no quote yet (the RFQ is not closed).")}
        )
    evidence = award.acceptance_evidence or {}
    extra: dict[str, Any] = {"title": f"{award.rfq} · {award.answer.vendor}"[:160]}
    if evidence.get("passed") and evidence.get("min_pair_gbps"):
        extra.update(committed_gbps=float(evidence["min_pair_gbps"]),
                     committed_gbps_source=BandwidthSource.ACCEPTANCE)  # fmt: skip
    extra.update(overrides or {})
    contract = contract_create_from_quote(
        team=team, user=user, quote=quote, starts_on=starts_on, overrides=extra
    )
    Contract.objects.filter(pk=contract.pk).update(award=award)
    contract.award = award
    return contract


def contract_create(*, team, user, vendor, data: dict[str, Any]) -> Contract:  # type: ignore[no-untyped-def]
    return _save(Contract(team=team, vendor=vendor, created_by=user, **data))


def contract_update(*, contract: Contract, data: dict[str, Any]) -> Contract:
    for key, value in data.items():
        if key not in CONTRACT_FIELDS:
            raise ValueError(f"not an editable field: {key}")
        setattr(contract, key, value)
    return _save(contract)


def contract_servers_set(*, contract: Contract, servers: list[dict[str, str]]) -> None:
    """Replace the contract's server list (host names unique; rack and leaf optional)."""
    names = [s["hostname"].strip() for s in servers]
    if any(not n for n in names):
        raise ValidationError({"servers": _("Every server needs a host name.")})
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValidationError(
            {"servers": _("Host names repeat: %(names)s") % {"names": ", ".join(dupes)}}
        )
    with transaction.atomic():
        contract.servers.exclude(hostname__in=names).delete()
        for s, name in zip(servers, names, strict=True):
            ContractServer.objects.update_or_create(
                contract=contract, hostname=name,
                defaults={"rack": s.get("rack", "")[:60], "leaf": s.get("leaf", "")[:60]},
            )  # fmt: skip


def contract_kit_token_renew(*, contract: Contract, days: int = 400) -> Contract:
    from .models import new_kit_token

    contract.kit_token = new_kit_token()
    contract.kit_token_expires_at = timezone.now() + timedelta(days=days)
    Contract.objects.filter(pk=contract.pk).update(
        kit_token=contract.kit_token, kit_token_expires_at=contract.kit_token_expires_at
    )
    return contract


def incident_create(*, contract: Contract, data: dict[str, Any]) -> Incident:
    incident = Incident(contract=contract, **data)
    _check_incident(incident)
    with transaction.atomic():
        incident.save()
    return incident


def incident_update(*, incident: Incident, data: dict[str, Any]) -> Incident:
    for key, value in data.items():
        setattr(incident, key, value)
    _check_incident(incident)
    with transaction.atomic():
        incident.save()
    return incident


def _term_bounds(contract: Contract) -> tuple[datetime, datetime]:
    """The term as the engine counts it: from the first day's midnight to the last day's, in the
    portal's time zone (``contracts.evaluation.contract_terms``)."""
    zone = timezone.get_default_timezone()
    return (datetime.combine(contract.starts_on, time(), zone),
            datetime.combine(contract.ends_on, time(), zone))  # fmt: skip


def maintenance_window_create(*, contract: Contract, data: dict[str, Any]) -> MaintenanceWindow:
    """An agreed maintenance window: it must end after it starts and lie inside the term (time
    outside the term is not counted anyway, so a window there is a typing mistake)."""
    from .instants import maintenance_time_errors

    row = MaintenanceWindow(contract=contract, **data)
    errors = maintenance_time_errors(contract, row.starts_at, row.ends_at)
    if errors:
        raise ValidationError(errors)
    row.full_clean()
    with transaction.atomic():
        row.save()
    return row


def maintenance_window_delete(*, contract: Contract, pk: int) -> bool:
    """Remove one of the contract's maintenance windows (False: no such window)."""
    with transaction.atomic():
        deleted, _rows = MaintenanceWindow.objects.filter(contract=contract, pk=pk).delete()
    return deleted > 0


def _check_incident(incident: Incident) -> None:
    from .instants import incident_time_errors

    i = incident
    errors: dict[str, str] = incident_time_errors(i.contract, {
        f: getattr(i, f) for f in ("started_at", "ended_at", "opened_at", "responded_at",
                                   "repaired_at")})  # fmt: skip
    if errors:  # a time outside the term says so; the order of times is judged on sane ones
        raise ValidationError(errors)
    if i.started_at and i.ended_at and i.ended_at <= i.started_at:
        errors["ended_at"] = _("An incident must end after it starts.")
    if i.responded_at and not i.opened_at:
        errors["opened_at"] = _("Give the time the ticket was opened.")
    elif i.responded_at and i.opened_at and i.responded_at < i.opened_at:
        errors["responded_at"] = _("The vendor cannot respond before the ticket was opened.")
    if i.repaired_at and i.started_at and i.repaired_at < i.started_at:
        errors["repaired_at"] = _("A repair cannot end before the incident started.")
    if i.hosts:
        known = set(i.contract.servers.values_list("hostname", flat=True))
        unknown = sorted(set(i.hosts) - known)
        if unknown:
            errors["hosts"] = _("Not a server of this contract: %(hosts)s") % {
                "hosts": ", ".join(unknown)
            }
    if errors:
        raise ValidationError(errors)
    i.full_clean()


# ---------------------------------------------------------------------------------------------
# Delivery evidence

UPLOAD_MAX_BYTES = 512 * 1024 * 1024  # a 64-host month of one-minute samples is ~200 MB of JSON


def _sha256(upload: File) -> str:
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    return digest.hexdigest()


def delivery_upload_create(  # type: ignore[no-untyped-def]
    *, contract: Contract, user, upload: File, kind: str, source_timezone: str = "Asia/Shanghai",
    origin: str = UploadOrigin.USER,
) -> DeliveryUpload:  # fmt: skip
    """Keep the raw file and send it to the reader (a job, after the commit).

    Empty or oversized files are refused before anything is stored; anything else is kept even
    when the reader refuses it later, with the reader's message.
    """
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    size = upload.size or 0
    if size == 0:
        raise ValidationError({"file": _("The file is empty.")}, code="empty")
    if size > UPLOAD_MAX_BYTES:
        limit = {"mb": UPLOAD_MAX_BYTES // (1024 * 1024)}
        raise ValidationError(
            {"file": _("The file is larger than %(mb)s MB; split it by time.") % limit},
            code="too_large",
        )
    if kind not in UploadKind.values:
        raise ValidationError({"kind": _("Unknown kind of evidence.")})
    try:
        ZoneInfo(source_timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError(
            {"source_timezone": _("Unknown time zone: %(tz)s") % {"tz": source_timezone}}
        ) from None
    name = (upload.name or "evidence").replace("\\", "/").rsplit("/", 1)[-1][:255]
    row = DeliveryUpload(contract=contract, kind=kind, origin=origin, original_name=name,
                         size_bytes=size, sha256=_sha256(upload), uploaded_by=user,
                         source_timezone=source_timezone)  # fmt: skip
    with transaction.atomic():
        row.file.save(name, upload, save=False)
        row.save()
        transaction.on_commit(lambda: jobs.submit("delivery_read", row))
    return row


def delivery_evaluate_start(*, contract: Contract, user=None) -> DeliveryEvaluation:  # type: ignore[no-untyped-def]
    """Queue an evaluation of the contract's stored evidence (the job runs the engine)."""
    with transaction.atomic():
        row = DeliveryEvaluation.objects.create(contract=contract, requested_by=user)
        transaction.on_commit(lambda: jobs.submit("delivery_evaluate", row))
    return row


def claim_pack_start(*, contract: Contract, user, language: str) -> ClaimPack:  # type: ignore[no-untyped-def]
    """Queue a claim pack for the latest evaluation (refused when there is none or it found
    nothing to claim)."""
    from .selectors import latest_evaluation

    evaluation = latest_evaluation(contract)
    if evaluation is None:
        raise ValidationError(_("Evaluate the contract first: a claim needs its episodes."))
    if evaluation.breach_count == 0 and evaluation.credit_total == 0:
        raise ValidationError(_("The latest evaluation found nothing to claim."))
    with transaction.atomic():
        pack = ClaimPack.objects.create(
            contract=contract, evaluation=evaluation, requested_by=user,
            language=language or "zh-hans",
        )  # fmt: skip
        transaction.on_commit(lambda: jobs.submit("claim_pack", pack))
    return pack


def prometheus_source_set(  # type: ignore[no-untyped-def]
    *, contract: Contract, url: str, queries: dict[str, str], step_s: int = 60,
    enabled: bool = True,
) -> PrometheusSource:  # fmt: skip
    if (
        not isinstance(queries, dict)
        or not queries
        or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in queries.items()
        )
    ):
        raise ValidationError({"queries": _("Give at least one query, as name: PromQL.")})
    if urlsplit(url or "").scheme.lower() not in ("http", "https"):
        raise ValidationError({"url": _("The Prometheus URL must start with http:// or https://.")})
    source = getattr(contract, "prometheus", None) or PrometheusSource(contract=contract)
    source.url, source.queries, source.step_s, source.enabled = url, queries, step_s, enabled
    source.full_clean()
    with transaction.atomic():
        source.save()
    return source


def prometheus_pull_start(*, source: PrometheusSource) -> None:
    PrometheusSource.objects.filter(pk=source.pk).update(status="pending", progress=0, error="")
    transaction.on_commit(lambda: jobs.submit("prometheus_pull", source, fresh=True))


def prometheus_pull_due() -> int:
    """Beat: send every enabled source of a signed contract that has a window to pull."""
    from .prometheus import pull_due_sources

    due = pull_due_sources()
    for source in due:
        jobs.submit("prometheus_pull", source, fresh=True)
    return len(due)
