"""Rules on certifications, data centres and their networks, and the SLA."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from domain.credentials import (
    REJECTED,
    VENDOR,
    CertificationFacts,
    DataCentreFacts,
    Finding,
    NetworkFacts,
    SlaFacts,
)
from domain.credentials_rules.context import (
    EXPIRY_WARNING_DAYS,
    NIC_8GPU_GBPS,
    NIC_FLOOR_GBPS,
    RACK_POWER_MIN_KW,
    SLA_MAX_HW_REPLACEMENT_HOURS,
    SLA_MAX_RESPONSE_MINUTES,
    SLA_MIN_AVAILABILITY_PERCENT,
    _Context,
    _state,
    flag,
)

# --- certifications -----------------------------------------------------------------------------

_CERT_EXPIRY: dict[str, tuple[str, str | None]] = {
    "iso27001": ("iso27001_expired", "iso27001_expiring"),
    "iso9001": ("iso9001_expired", "iso9001_expiring"),
    "other": ("certificate_expired", None),
}


def _certificate(cert: CertificationFacts, today: date) -> Iterator[Finding]:
    if not cert.number.strip() or not cert.issuer.strip():
        yield flag("certificate_details_missing", cert.ref, name=cert.name)
    expired, expiring = _CERT_EXPIRY.get(cert.kind, _CERT_EXPIRY["other"])
    until = cert.valid_until
    if until is None:
        yield flag("certificate_validity_unknown", cert.ref, name=cert.name)
    elif until < today:
        yield flag(expired, cert.ref, name=cert.name, until=until)
    elif expiring and (until - today).days <= EXPIRY_WARNING_DAYS:
        yield flag(expiring, cert.ref, name=cert.name, until=until, days=(until - today).days)


def _certifications(ctx: _Context) -> Iterator[Finding]:
    held: set[str] = set()
    for cert in ctx.facts.certifications:
        yield from _state("certification", cert.ref, cert.state, cert.name)
        if cert.state == REJECTED:
            continue
        held.add(cert.kind)
        yield from _certificate(cert, ctx.today)
    for kind in ("iso27001", "iso9001"):
        if kind not in held:
            yield flag(f"{kind}_missing", VENDOR)


# --- data centres and networks ------------------------------------------------------------------

_OWNERSHIP_FLAGS = {
    "re_leased": "data_centre_re_leased",
    "leased": "data_centre_leased",
    "unknown": "data_centre_ownership_unknown",
}


def _data_centre(dc: DataCentreFacts) -> Iterator[Finding]:
    if dc.ownership != "self_operated":
        code = _OWNERSHIP_FLAGS.get(dc.ownership, "data_centre_ownership_unknown")
        yield flag(code, dc.ref, name=dc.name)
    if not dc.province:
        yield flag("data_centre_province_unknown", dc.ref, name=dc.name)
    power = dc.power_per_rack_kw
    if power is None:
        yield flag("data_centre_power_unknown", dc.ref, name=dc.name)
    elif power < RACK_POWER_MIN_KW:
        yield flag(
            "data_centre_power_low", dc.ref, name=dc.name, kw=power, min_kw=RACK_POWER_MIN_KW
        )
    if dc.network is None:
        yield flag("network_profile_missing", dc.ref, name=dc.name)


def _data_centres(ctx: _Context) -> Iterator[Finding]:
    for dc in ctx.facts.data_centres:
        yield from _state("data_centre", dc.ref, dc.state, dc.name)
        if dc.state == REJECTED:
            continue
        yield from _data_centre(dc)
        if dc.network is not None:
            yield from _state("network", dc.ref, dc.network.state, dc.name)
            if dc.network.state != REJECTED:
                yield from _network(dc.ref, dc.network)


# Each lossless-Ethernet feature: the code when the vendor says it is off, and when nobody knows.
_ROCE_FEATURES = (
    ("pfc", "roce_without_pfc", "roce_pfc_unknown"),
    ("ecn", "roce_without_ecn", "roce_ecn_unknown"),
    ("dcqcn", "roce_without_dcqcn", "roce_dcqcn_unknown"),
)
_FABRIC_FLAGS = {"tcp": "network_tcp_only"}
_TOPOLOGY_FLAGS = {"three_tier": "network_three_tier", "unknown": "network_topology_unknown"}


def _network(ref: str, net: NetworkFacts) -> Iterator[Finding]:
    if net.fabric == "roce":
        for attr, off_code, unknown_code in _ROCE_FEATURES:
            value = getattr(net, attr)
            if value is not True:
                yield flag(off_code if value is False else unknown_code, ref)
    elif net.fabric not in ("ib", "roce", "tcp"):
        yield flag("network_fabric_unknown", ref, fabric=net.fabric)
    if net.fabric in _FABRIC_FLAGS:
        yield flag(_FABRIC_FLAGS[net.fabric], ref)
    if net.topology != "spine_leaf":
        yield flag(_TOPOLOGY_FLAGS.get(net.topology, "network_topology_unknown"), ref)
    if net.mgmt_separated is not True:
        code = (
            "network_mgmt_not_separated" if net.mgmt_separated is False else "network_mgmt_unknown"
        )
        yield flag(code, ref)
    yield from _nic_speed(ref, net.nic_gbps)


def _nic_speed(ref: str, gbps: float | None) -> Iterator[Finding]:
    if gbps is None:
        yield flag("network_nic_unknown", ref)
    elif gbps < NIC_FLOOR_GBPS:
        yield flag("network_nic_below_training_floor", ref, gbps=gbps, floor=NIC_FLOOR_GBPS)
    elif gbps < NIC_8GPU_GBPS:
        yield flag("network_nic_below_8gpu", ref, gbps=gbps, recommended=NIC_8GPU_GBPS)


def _cross_site(ctx: _Context) -> Iterator[Finding]:
    if len(ctx.data_centres) < 2:
        return
    networks = [dc.network for dc in ctx.data_centres if dc.network is not None]
    if not any(net.dedicated_cross_site is True for net in networks):
        yield flag("cross_site_links_missing", VENDOR, sites=len(ctx.data_centres))


# --- SLA ----------------------------------------------------------------------------------------

# Contract clauses: the code when the clause is known to be absent, and when nobody has checked.
_SLA_CLAUSES = (
    ("bandwidth_in_contract", "sla_bandwidth_not_in_contract", "sla_bandwidth_unknown"),
    ("compensation_clause", "sla_no_compensation", "sla_compensation_unknown"),
)


def _sla_figures(sla: SlaFacts) -> Iterator[Finding]:
    if sla.availability is None:
        yield flag("sla_availability_unknown", VENDOR)
    else:
        percent = sla.availability * 100 if sla.availability <= 1 else sla.availability
        if percent < SLA_MIN_AVAILABILITY_PERCENT:
            minimum = SLA_MIN_AVAILABILITY_PERCENT
            yield flag("sla_availability_low", VENDOR, value=percent, minimum=minimum)
    hours = sla.hw_replacement_hours
    if hours is None:
        yield flag("sla_hw_replacement_unknown", VENDOR)
    elif hours > SLA_MAX_HW_REPLACEMENT_HOURS:
        yield flag("sla_hw_replacement_slow", VENDOR, hours=hours, max=SLA_MAX_HW_REPLACEMENT_HOURS)
    minutes = sla.response_minutes
    if minutes is None:
        yield flag("sla_response_unknown", VENDOR)
    elif minutes > SLA_MAX_RESPONSE_MINUTES:
        yield flag("sla_response_slow", VENDOR, minutes=minutes, max=SLA_MAX_RESPONSE_MINUTES)


def _sla(ctx: _Context) -> Iterator[Finding]:
    sla = ctx.facts.sla
    if sla is None:
        yield flag("sla_missing", VENDOR)
        return
    yield from _state("sla", VENDOR, sla.state)
    if sla.state == REJECTED:
        return
    for attr, absent_code, unknown_code in _SLA_CLAUSES:
        value = getattr(sla, attr)
        if value is not True:
            yield flag(absent_code if value is False else unknown_code, VENDOR)
    yield from _sla_figures(sla)
