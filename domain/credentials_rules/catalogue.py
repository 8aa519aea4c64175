"""Severity and wording of every finding code, merged from one module per area.

The areas follow the rule modules: the vendor entity, licences and ICP filings, and the
facilities (certifications, data centres, networks, SLA). Merging keeps every area's codes in
their listed order, areas in the order above.
"""

from __future__ import annotations

from domain.credentials import Severity
from domain.credentials_rules.catalogue_entity import ENTITY_CATALOGUE
from domain.credentials_rules.catalogue_facilities import FACILITY_CATALOGUE
from domain.credentials_rules.catalogue_licences import LICENCE_CATALOGUE

# --- catalogue: severity and wording of every finding code --------------------------------------

CATALOGUE: dict[str, tuple[Severity, str, str]] = {
    **ENTITY_CATALOGUE,
    **LICENCE_CATALOGUE,
    **FACILITY_CATALOGUE,
}
