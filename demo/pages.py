"""Every HTML page of the demo, as URLs built from the demo team's data (tests and checks).

`page_urls()` walks the URL configuration: each named route outside the API and the admin that
answers GET with a page gets the demo's objects as its arguments. A route this module cannot
fill fails `unfilled_routes()`, so a new page is walked (or listed in SKIP with a reason) from
the day it is added. Used by the language, number-format and phone-width checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver, reverse

from benchmarks.models import BenchmarkLog, TestRun
from contracts.models import Contract
from quotes.models import Quote, WorkloadProfile
from rankings.models import RankingRun
from serving.models import MixedPlan, ServingWorkload
from sourcing.models import Rfq
from vendors.models import Certification, DataCentre, IcpFiling, Licence, SlaTerms, Vendor

# Routes that are no HTML page to read: actions (POST only), downloads, JSON/partials, logins.
SKIP = {
    "health": "JSON health check", "ping": "JSON", "ping-page": "latency probe",
    "logout": "POST only", "set_language": "POST only", "javascript-catalog": "JavaScript",
    "vendors:evidence": "file download", "benchmarks:download": "file download",
    "benchmarks:run_status": "partial polled by the page", "rankings:status": "partial",
    "reports:status": "partial", "reports:download": "file download",
    "reports:ranking-file": "file download (202 and a progress page until built)",
    "sourcing:action": "POST only", "sourcing:award-action": "POST only",
    "sourcing:supplier-upload": "POST only", "sourcing:invite": "needs a one-time token",
    "serving:workload_traffic": "POST only", "serving:plan_traffic": "POST only",
    "rankings:whatif": "partial (JSON)", "rankings:whatif_save": "POST only",
    "rankings:recompute": "POST only",
    "rankings:rerank": "POST only",
    "benchmarks:run_together": "POST only (the declaration form is on the run page)",
    "contracts:prometheus-set": "POST only (its form is on the contract page)",
    "contracts:maintenance-create": "POST only (its form is on the contract page)",
    "contracts:maintenance-delete": "POST only",
    "sourcing:supplier-kit-script": "file download (a shell script for one host role)",
    "vendors-export": "file download (its language: tests/quotes/test_lists_shared_filters.py)",
    "quotes-export": "file download (its language: tests/quotes/test_lists_shared_filters.py)",
    "quotes:import_template": "file download (bilingual help sheet by design)",
    "contracts:from-quote": "POST only", "contracts:from-award": "POST only",
    "contracts:incident-create": "POST only", "contracts:upload-create": "POST only",
    "contracts:evaluate": "POST only",
    "contracts:kit-token-renew": "POST only", "contracts:claim-create": "POST only",
    "contracts:kit": "file download (shell script)", "contracts:claim-file": "file download",
}  # fmt: skip
SUPPLIER_ROUTES = {"sourcing:supplier-home", "sourcing:supplier-rfq"}
CHILD_KINDS = ("licence", "icp", "certification", "datacentre", "sla")


def _walk(resolver: URLResolver, prefix: str = "", ns: str = "") -> Iterator[tuple[str, str]]:
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            if str(p.pattern).startswith(("admin/", "api/")):
                continue
            sub = f"{ns}:{p.namespace}" if ns and p.namespace else (p.namespace or ns)
            yield from _walk(p, prefix + str(p.pattern), sub)
        elif isinstance(p, URLPattern) and p.name:
            pattern = prefix + str(p.pattern)
            if pattern.startswith(("admin/", "api/")):
                continue
            yield (f"{ns}:{p.name}" if ns else p.name), pattern


def page_routes() -> dict[str, str]:
    return {name: pattern for name, pattern in _walk(get_resolver()) if name not in SKIP}


def demo_objects(team) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """The demo team's first object of each kind a page needs."""
    vendors = Vendor.objects.filter(team=team)
    dc = DataCentre.objects.filter(vendor__in=vendors, network__isnull=False).order_by("pk").first()
    vendor = dc.vendor if dc else vendors.order_by("pk").first()
    return {
        "vendor": vendor, "dc": dc,
        "licence": Licence.objects.filter(vendor__in=vendors).order_by("pk").first(),
        "icp": IcpFiling.objects.filter(vendor__in=vendors).order_by("pk").first(),
        "certification": Certification.objects.filter(vendor__in=vendors).order_by("pk").first(),
        "sla": SlaTerms.objects.filter(vendor__in=vendors).order_by("pk").first(),
        "quote": Quote.objects.filter(team=team).order_by("pk").first(),
        "workload": WorkloadProfile.objects.filter(team=team).order_by("pk").first(),
        "test_run": TestRun.objects.filter(team=team).order_by("pk").first(),
        "log": BenchmarkLog.objects.filter(test_run__team=team).order_by("pk").first(),
        "ranking": RankingRun.objects.filter(team=team).order_by("pk").first(),
        "rfq": Rfq.objects.filter(team=team).order_by("pk").first(),
        "serving_workload": ServingWorkload.objects.filter(team=team).order_by("pk").first(),
        "plan": MixedPlan.objects.filter(team=team).order_by("pk").first(),
        "contract": Contract.objects.filter(team=team).order_by("pk").first(),
    }  # fmt: skip


def _kwargs(name: str, o: dict[str, Any]) -> list[dict[str, Any]]:
    """URL arguments of a route from the demo objects ([] when the route is not known here)."""
    pk = {
        "vendors:detail": "vendor", "vendors:edit": "vendor", "quotes:detail": "quote",
        "quotes:edit": "quote", "quotes:workload_edit": "workload", "benchmarks:run": "test_run",
        "benchmarks:log": "log",
        "rankings:detail": "ranking", "reports:ranking": "ranking", "sourcing:detail": "rfq",
        "sourcing:edit": "rfq", "sourcing:supplier-rfq": "rfq",
        "serving:workload": "serving_workload", "serving:workload_edit": "serving_workload",
        "serving:plan": "plan", "serving:plan_edit": "plan",
        "contracts:detail": "contract", "contracts:edit": "contract",
    }  # fmt: skip
    if name in pk:
        return [{"pk": o[pk[name]].pk}] if o.get(pk[name]) else []
    if name == "vendors:child_create":
        return [{"vendor_pk": o["vendor"].pk, "kind": kind} for kind in CHILD_KINDS]
    if name == "vendors:child_edit":  # each kind's first object, under its own vendor
        pairs = (("licence", "licence"), ("icp", "icp"), ("certification", "certification"),
                 ("datacentre", "dc"), ("sla", "sla"))  # fmt: skip
        return [{"vendor_pk": o[attr].vendor_id, "kind": kind, "pk": o[attr].pk}
                for kind, attr in pairs if o.get(attr)]  # fmt: skip
    if name == "vendors:sla":
        return [{"vendor_pk": o["vendor"].pk}]
    if name == "vendors:network":
        return [{"dc_pk": o["dc"].pk}] if o.get("dc") else []
    return []


def page_urls(team) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str]]:  # type: ignore[no-untyped-def]
    """(team member pages, supplier pages, routes that could not be filled) as (name, url)."""
    objects = demo_objects(team)
    member: list[tuple[str, str]] = []
    supplier: list[tuple[str, str]] = []
    unfilled: list[str] = []
    for name, pattern in page_routes().items():
        if "<" not in pattern:
            urls = [reverse(name)]
        else:
            urls = [reverse(name, kwargs=kw) for kw in _kwargs(name, objects)]
        if not urls:
            unfilled.append(name)
        for url in urls:
            (supplier if name in SUPPLIER_ROUTES else member).append((name, url))
    return member, supplier, unfilled
