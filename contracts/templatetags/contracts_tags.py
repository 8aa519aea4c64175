"""Template tags other pages use to show contract facts (the vendor page's delivery record).

A tag, not an import in the vendors app: vendors sit below contracts, so the vendor page asks
for this fragment by name and the contracts app answers it from its stored rows."""

from __future__ import annotations

from typing import Any

from django import template

from ..models import Contract, VendorTrackRecord

register = template.Library()


@register.inclusion_tag("contracts/_vendor_delivery.html")
def vendor_delivery(vendor: Any) -> dict[str, Any]:
    record = VendorTrackRecord.objects.filter(team_id=vendor.team_id, vendor=vendor).first()
    contracts = list(Contract.objects.filter(team_id=vendor.team_id, vendor=vendor)
                     .only("pk", "title", "status", "starts_on", "ends_on")[:20])  # fmt: skip
    return {"record": record, "contracts": contracts}
