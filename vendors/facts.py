"""Map vendor models onto the pure domain facts that domain.credentials checks."""

from __future__ import annotations

from domain.credentials import (
    CertificationFacts,
    DataCentreFacts,
    IcpFilingFacts,
    LicenceFacts,
    NetworkFacts,
    SlaFacts,
    VendorFacts,
)

from .choices import IssuerScope
from .models import Certification, DataCentre, IcpFiling, Licence, SlaTerms, Vendor
from .schemas import stored_codes


def _f(value) -> float | None:  # type: ignore[no-untyped-def]
    return None if value is None else float(value)


def licence_facts(lic: Licence) -> LicenceFacts:
    scope = (
        "national" if lic.issuer_scope == IssuerScope.NATIONAL else (lic.issuer_province or None)
    )
    return LicenceFacts(
        ref=f"licence:{lic.pk}",
        number=lic.number,
        business_codes=frozenset(stored_codes(lic.business_codes)),
        issuer_scope=scope,
        coverage_regions=frozenset(stored_codes(lic.coverage_regions)),
        valid_from=lic.valid_from,
        valid_until=lic.valid_until,
        state=lic.state,
    )


def icp_facts(icp: IcpFiling) -> IcpFilingFacts:
    return IcpFilingFacts(ref=f"icp:{icp.pk}", number=icp.number, state=icp.state)


def cert_facts(cert: Certification) -> CertificationFacts:
    return CertificationFacts(
        ref=f"certification:{cert.pk}",
        kind=cert.kind,
        name=cert.name or str(cert),
        number=cert.number,
        issuer=cert.issuer,
        valid_until=cert.valid_until,
        state=cert.state,
    )


def dc_facts(dc: DataCentre) -> DataCentreFacts:
    net = getattr(dc, "network", None)
    network = None
    if net is not None:
        network = NetworkFacts(
            fabric=net.fabric,
            pfc=net.pfc,
            ecn=net.ecn,
            dcqcn=net.dcqcn,
            topology=net.topology,
            mgmt_separated=net.mgmt_separated,
            nic_gbps=_f(net.nic_gbps),
            dedicated_cross_site=net.dedicated_cross_site,
            state=net.state,
        )
    return DataCentreFacts(
        ref=f"datacentre:{dc.pk}",
        name=dc.name,
        city=dc.city,
        province=dc.province or None,
        ownership=dc.ownership,
        power_per_rack_kw=_f(dc.power_per_rack_kw),
        state=dc.state,
        network=network,
    )


def sla_facts(sla: SlaTerms | None) -> SlaFacts | None:
    if sla is None:
        return None
    return SlaFacts(
        availability=_f(sla.availability),
        response_minutes=sla.response_minutes,
        hw_replacement_hours=_f(sla.hw_replacement_hours),
        bandwidth_in_contract=sla.bandwidth_in_contract,
        compensation_clause=sla.compensation_clause,
        state=sla.state,
    )


def vendor_facts(vendor: Vendor) -> VendorFacts:
    """Facts of a vendor whose relations were prefetched (see selectors.vendor_prefetch)."""
    try:
        sla = vendor.sla
    except SlaTerms.DoesNotExist:
        sla = None
    return VendorFacts(
        name_zh=vendor.name_zh,
        name_en=vendor.name_en,
        credit_code=vendor.credit_code or None,
        registered_capital_cny=vendor.registered_capital_cny,
        founded_year=vendor.founded_year,
        services=frozenset(stored_codes(vendor.services)),
        licences=tuple(licence_facts(x) for x in vendor.licences.all()),
        icp_filings=tuple(icp_facts(x) for x in vendor.icp_filings.all()),
        certifications=tuple(cert_facts(x) for x in vendor.certifications.all()),
        data_centres=tuple(dc_facts(x) for x in vendor.data_centres.all()),
        sla=sla_facts(sla),
    )
