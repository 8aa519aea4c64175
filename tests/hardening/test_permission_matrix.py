"""Permission matrix: every route of the portal × every kind of actor.

One data set for the module (team A and team B with one object of every kind, suppliers invited to
A's and to B's RFQ, a user without a team). ``ROUTES`` classifies every route the URL resolver
knows; ``test_every_route_is_classified`` fails when a route is added without an entry. Each
actor's test walks all routes and methods, rolls every request back, and reports all wrong cells
in one message (route, actor, method, expected, got).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from http.cookies import SimpleCookie
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.db import transaction
from django.test import Client, TestCase, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from accounts.choices import Role
from accounts.models import Membership, Team

pytestmark = pytest.mark.django_db  # each test in a savepoint inside the module's data set

# ---------------------------------------------------------------------------------------------
# Access classes of one method of one route.
PUBLIC = "public"  # anyone, no login: GET answers 200, other methods never 401/403/5xx
READ = "read"  # any member of the owning team
WRITE = "write"  # analyst or admin of the owning team; viewer 403
ADMIN = "admin"  # the owning team's admin only; analyst and viewer 403
SUP = "sup"  # only the supplier invited to that RFQ (object of A's RFQ); others 403/404
SUP_ANY = "sup-any"  # any supplier (a list of its own invitations/answers); team users 403
TOKEN = "token"  # the invitation link: anyone with the token, no 5xx; a bogus token 404
NOT_FOUND = "404"  # an API catch-all: JSON 404 for everyone
SIGNED_IN = "signed-in"  # any logged-in user (team member, supplier, no team); anonymous refused
KIT = "kit"  # a contract's delivery-kit token only: no session counts, so without it 401 for all

# Each route: {method: access class}, the URL kwargs (a function of the data set, giving team A's
# objects), whether those kwargs name a team-A object (other team → 404), and whether it is a
# file download (owners must get the file: exactly 200).


@dataclass(frozen=True)
class R:
    methods: dict[str, str]
    kwargs: Callable[[Any], dict[str, Any]] | None = None
    obj: bool = False
    download: bool = False
    path: Callable[[Any], str] | None = None  # for unnamed patterns (catch-alls)
    supplier_home: bool = False  # a supplier is sent to the supplier portal instead of a 403
    variants: tuple[Callable[[Any], dict[str, Any]], ...] = ()  # more kwargs: each slug value
    login_page: bool = False  # an HTML page under /api/: anonymous is sent to the login page


def k(**names: str) -> Callable[[Any], dict[str, Any]]:
    """kwargs from one team's objects: k(pk="vendor") → {"pk": side.vendor.pk}; "=x" is "x"."""

    def build(side: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, attr in names.items():
            value = getattr(side, attr) if not attr.startswith("=") else attr[1:]
            out[key] = value.pk if hasattr(value, "pk") else value
        return out

    return build


G_READ = {"GET": READ}
CHILD_KINDS = ("licence", "icp", "certification", "datacentre", "sla")
CHILD_OBJECTS = {"licence": "licence", "icp": "icp", "certification": "cert", "datacentre": "dc"}
EVIDENCE_OBJECTS = {**CHILD_OBJECTS, "network": "network", "sla": "sla"}
PAGE_FORM = {"GET": WRITE, "POST": WRITE}  # a TeamWriteMixin page
API_LIST = {"GET": READ, "POST": WRITE}
API_DETAIL = {"GET": READ, "PATCH": WRITE, "DELETE": WRITE}
TRAFFIC = {"GET": READ, "POST": WRITE, "DELETE": WRITE}  # a target's measured traffic samples


def catch_all(prefix: str) -> R:
    return R({"GET": NOT_FOUND, "DELETE": NOT_FOUND}, path=lambda w: f"/api/v1/{prefix}/1.5/")


ROUTES: dict[str, R] = {
    # core, accounts, i18n
    "dashboard": R(G_READ, supplier_home=True),
    "health": R({"GET": PUBLIC}),
    "ping": R({"GET": PUBLIC}),
    "ping-page": R(G_READ),
    "login": R({"GET": PUBLIC, "POST": PUBLIC}),
    "logout": R({"POST": PUBLIC}),
    "set_language": R({"POST": PUBLIC}),
    "javascript-catalog": R({"GET": PUBLIC}),
    # vendors pages
    "vendors:list": R(G_READ),
    "vendors:create": R(PAGE_FORM),
    "vendors:detail": R(G_READ, k(pk="vendor"), obj=True),
    "vendors:edit": R(PAGE_FORM, k(pk="vendor"), obj=True),
    "vendors:child_create": R(
        PAGE_FORM,
        k(vendor_pk="vendor", kind="=licence"),
        obj=True,
        variants=tuple(k(vendor_pk="vendor", kind=f"={kind}") for kind in CHILD_KINDS[1:]),
    ),
    "vendors:child_edit": R(
        PAGE_FORM,
        k(vendor_pk="vendor", kind="=licence", pk="licence"),
        obj=True,
        variants=tuple(
            k(vendor_pk="vendor", kind=f"={kind}", pk=attr)
            for kind, attr in CHILD_OBJECTS.items()
            if kind != "licence"
        ),
    ),
    "vendors:sla": R(PAGE_FORM, k(vendor_pk="vendor"), obj=True),
    "vendors:network": R(PAGE_FORM, k(dc_pk="dc"), obj=True),
    "vendors:evidence": R(
        G_READ,
        k(vendor_pk="vendor", kind="=licence", pk="licence"),
        obj=True,
        download=True,
        variants=tuple(
            k(vendor_pk="vendor", kind=f"={kind}", pk=attr)
            for kind, attr in EVIDENCE_OBJECTS.items()
            if kind != "licence"
        ),
    ),
    # quotes pages
    "quotes:list": R(G_READ),
    # list downloads (reports.lists): a job, 202 until the file is built; POST starts a failed
    # one again
    "quotes-export": R(
        {"GET": READ, "POST": READ}, kwargs=k(fmt="=csv"), variants=(k(fmt="=xlsx"),)
    ),
    "vendors-export": R(
        {"GET": READ, "POST": READ}, kwargs=k(fmt="=csv"), variants=(k(fmt="=xlsx"),)
    ),
    "quotes:import_template": R(G_READ, kwargs=k(fmt="=csv"), variants=(k(fmt="=xlsx"),)),
    "quotes:create": R(PAGE_FORM),
    "quotes:detail": R(G_READ, k(pk="quote"), obj=True),
    "quotes:edit": R(PAGE_FORM, k(pk="quote"), obj=True),
    "quotes:import": R(PAGE_FORM),
    "quotes:compare": R(G_READ),
    "quotes:workloads": R(G_READ),
    "quotes:workload_create": R(PAGE_FORM),
    "quotes:workload_edit": R(PAGE_FORM, k(pk="workload"), obj=True),
    # benchmarks pages
    "benchmarks:list": R(G_READ),
    "benchmarks:upload": R(PAGE_FORM),
    "benchmarks:thresholds": R({"GET": READ, "POST": WRITE}),
    "benchmarks:run": R(G_READ, k(pk="test_run"), obj=True),
    "benchmarks:run_status": R(G_READ, k(pk="test_run"), obj=True),
    "benchmarks:run_together": R({"POST": WRITE}, k(pk="test_run"), obj=True),
    "benchmarks:log": R(G_READ, k(pk="log"), obj=True),
    "benchmarks:download": R(G_READ, k(pk="log"), obj=True, download=True),
    # rankings pages
    "rankings:list": R(G_READ),
    "rankings:glossary": R(G_READ),
    "rankings:start": R(PAGE_FORM),
    "rankings:detail": R(G_READ, k(pk="ranking"), obj=True),
    "rankings:status": R(G_READ, k(pk="ranking"), obj=True),
    "rankings:whatif": R(G_READ, k(pk="ranking"), obj=True),
    "rankings:whatif_save": R({"POST": WRITE}, k(pk="ranking"), obj=True),
    "rankings:recompute": R({"POST": WRITE}, k(pk="ranking"), obj=True),
    "rankings:rerank": R({"POST": WRITE}, k(pk="ranking"), obj=True),
    "rankings:policy": R({"GET": READ, "POST": ADMIN}),
    "rankings:policy_history": R(G_READ),
    "team-settings": R({"GET": READ, "POST": ADMIN}),
    # reports pages
    "reports:list": R(G_READ),
    "reports:dashboard": R(G_READ, supplier_home=True),  # the home page under its other name
    "reports:ranking": R({"GET": READ, "POST": WRITE}, k(pk="ranking"), obj=True),
    "reports:status": R(G_READ, k(pk="report"), obj=True),
    "reports:download": R(G_READ, k(pk="report"), obj=True, download=True),
    "reports:ranking-file": R(
        {"GET": READ, "POST": WRITE},
        k(pk="ranking", kind="=pdf"),
        obj=True,
        variants=(k(pk="ranking", kind="=xlsx"), k(pk="ranking", kind="=csv")),
    ),
    # sourcing: team pages
    "sourcing:list": R(G_READ),
    "sourcing:create": R(PAGE_FORM),
    "sourcing:detail": R(G_READ, k(pk="rfq"), obj=True),
    "sourcing:edit": R(PAGE_FORM, k(pk="draft_rfq"), obj=True),
    "sourcing:action": R(
        {"POST": WRITE},
        k(pk="rfq", op="=publish"),
        obj=True,
        variants=tuple(
            k(pk="rfq", op=f"={op}")
            for op in ("invite", "propose", "resend", "extend", "extension-decide")
        ),
    ),
    "sourcing:award-action": R(
        {"POST": WRITE},
        k(pk="award", op="=check"),
        obj=True,
        variants=(k(pk="award", op="=decide"), k(pk="award", op="=acceptance")),
    ),
    # sourcing: supplier pages and the invitation link
    "sourcing:supplier-home": R({"GET": SUP_ANY}),
    "sourcing:supplier-rfq": R({"GET": SUP, "POST": SUP}, k(pk="rfq"), obj=True),
    "sourcing:supplier-upload": R({"POST": SUP}, k(pk="answer"), obj=True),
    "sourcing:supplier-kit-script": R(
        {"GET": SUP}, k(pk="rfq", role="=client"), obj=True, download=True
    ),
    "sourcing:invite": R({"GET": TOKEN, "POST": TOKEN}, k(token="invite_token")),
    # serving pages
    "serving:home": R(G_READ),
    "serving:workload_create": R(PAGE_FORM),
    "serving:workload": R(G_READ, k(pk="serving_workload"), obj=True),
    "serving:workload_edit": R(PAGE_FORM, k(pk="serving_workload"), obj=True),
    "serving:workload_traffic": R({"POST": WRITE}, k(pk="serving_workload"), obj=True),
    "serving:plan_traffic": R({"POST": WRITE}, k(pk="plan"), obj=True),
    "serving:plan_create": R(PAGE_FORM),
    "serving:plan": R(G_READ, k(pk="plan"), obj=True),
    "serving:plan_edit": R(PAGE_FORM, k(pk="plan"), obj=True),
    # contracts pages (after the signature): suppliers see nothing of them
    "contracts:list": R(G_READ),
    "contracts:create": R(PAGE_FORM),
    "contracts:from-quote": R({"POST": WRITE}, k(quote_pk="quote"), obj=True),
    "contracts:from-award": R({"POST": WRITE}, k(award_pk="award"), obj=True),
    "contracts:detail": R(G_READ, k(pk="contract"), obj=True),
    "contracts:edit": R(PAGE_FORM, k(pk="contract"), obj=True),
    "contracts:incident-create": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contracts:upload-create": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contracts:evaluate": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contracts:kit-token-renew": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contracts:prometheus-set": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contracts:maintenance-create": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contracts:maintenance-delete": R(
        {"POST": WRITE}, k(pk="contract", window_pk="maintenance"), obj=True
    ),
    # the delivery kit of one host: a script carrying the contract's kit token
    "contracts:kit": R(G_READ, k(pk="contract", host="=gpu-01"), obj=True, download=True),
    "contracts:claim-create": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contracts:claim-file": R(
        G_READ,
        k(pk="contract", pack_pk="claim_pack", part="=pdf"),
        obj=True,
        download=True,
        variants=(k(pk="contract", pack_pk="claim_pack", part="=zip"),),
    ),
    # API: root, schema, docs
    "api-root": R(G_READ),
    "schema": R({"GET": SIGNED_IN}),
    "swagger-ui": R({"GET": SIGNED_IN}, login_page=True),
    # API: vendors
    "vendor-list": R(API_LIST),
    "vendor-detail": R(API_DETAIL, k(pk="vendor"), obj=True),
    "vendor-licence-list": R(API_LIST, k(vendor_pk="vendor"), obj=True),
    "vendor-licence-detail": R(API_DETAIL, k(vendor_pk="vendor", pk="licence"), obj=True),
    "vendor-icp-list": R(API_LIST, k(vendor_pk="vendor"), obj=True),
    "vendor-icp-detail": R(API_DETAIL, k(vendor_pk="vendor", pk="icp"), obj=True),
    "vendor-certification-list": R(API_LIST, k(vendor_pk="vendor"), obj=True),
    "vendor-certification-detail": R(API_DETAIL, k(vendor_pk="vendor", pk="cert"), obj=True),
    "vendor-datacentre-list": R(API_LIST, k(vendor_pk="vendor"), obj=True),
    "vendor-datacentre-detail": R(API_DETAIL, k(vendor_pk="vendor", pk="dc"), obj=True),
    "vendor-sla-list": R(API_LIST, k(vendor_pk="vendor"), obj=True),
    "vendor-sla-detail": R(API_DETAIL, k(vendor_pk="vendor", pk="sla"), obj=True),
    "datacentre-network-list": R(API_LIST, k(vendor_pk="vendor", datacentre_pk="dc"), obj=True),
    "datacentre-network-detail": R(
        API_DETAIL, k(vendor_pk="vendor", datacentre_pk="dc", pk="network"), obj=True
    ),
    # API: quotes, workloads, GPUs (a shared reference table: members of any team read it)
    "quote-list": R(API_LIST),
    "quote-detail": R(API_DETAIL, k(pk="quote"), obj=True),
    "workload-list": R(API_LIST),
    "workload-detail": R(API_DETAIL, k(pk="workload"), obj=True),
    "gpu-list": R(G_READ),
    "gpu-detail": R(G_READ, k(key="=A100-SXM4-80GB")),
    # API: benchmarks
    "benchmark-thresholds": R({"GET": READ, "PUT": WRITE, "PATCH": WRITE}),
    "benchmark-list": R(API_LIST),
    "benchmark-detail": R(G_READ, k(pk="log"), obj=True),
    "benchmark-intervals": R(G_READ, k(pk="log"), obj=True),
    "test-run-list": R(API_LIST),
    "test-run-detail": R(API_DETAIL, k(pk="test_run"), obj=True),
    "test-run-logs": R(G_READ, k(pk="test_run"), obj=True),
    # API: rankings and their report files
    "ranking-list": R(API_LIST),
    "risk-policy": R({"GET": READ, "PUT": ADMIN, "PATCH": ADMIN}),
    "ranking-detail": R(G_READ, k(pk="ranking"), obj=True),
    "ranking-results": R(G_READ, k(pk="ranking"), obj=True),
    "ranking-scenario": R({"POST": WRITE}, k(pk="ranking"), obj=True),
    "ranking-report-pdf": R(G_READ, k(pk="ranking"), obj=True, download=True),
    "ranking-report-xlsx": R(G_READ, k(pk="ranking"), obj=True, download=True),
    "ranking-report-csv": R(G_READ, k(pk="ranking"), obj=True, download=True),
    "report-list": R(API_LIST),
    "report-detail": R(G_READ, k(pk="report"), obj=True),
    # API: sourcing, team side
    "rfq-list": R(API_LIST),
    "rfq-detail": R({"GET": READ, "PATCH": WRITE}, k(pk="rfq"), obj=True),
    "rfq-answers": R(G_READ, k(pk="rfq"), obj=True),
    "rfq-audit": R(G_READ, k(pk="rfq"), obj=True),
    "rfq-awards": R({"POST": WRITE}, k(pk="rfq"), obj=True),
    "rfq-evaluation": R(G_READ, k(pk="rfq"), obj=True),
    "rfq-invitations": R({"GET": READ, "POST": WRITE}, k(pk="rfq"), obj=True),
    "rfq-publish": R({"POST": WRITE}, k(pk="rfq"), obj=True),
    "rfq-invitations-resend": R({"POST": WRITE}, k(pk="rfq"), obj=True),
    "rfq-deadline-extensions": R({"GET": READ, "POST": WRITE}, k(pk="rfq"), obj=True),
    "rfq-deadline-extensions-decide": R({"POST": WRITE}, k(pk="rfq"), obj=True),
    "award-list": R(API_LIST),
    "award-detail": R(G_READ, k(pk="award"), obj=True),
    "award-acceptance-logs": R({"POST": WRITE}, k(pk="award"), obj=True),
    "award-approve": R({"POST": WRITE}, k(pk="award"), obj=True),
    "award-check-acceptance": R({"POST": WRITE}, k(pk="award"), obj=True),
    "award-reject": R({"POST": WRITE}, k(pk="award"), obj=True),
    # API: sourcing, supplier side
    "supplier-rfq-list": R({"GET": SUP_ANY}),
    "supplier-rfq-detail": R({"GET": SUP}, k(pk="rfq"), obj=True),
    "supplier-rfq-answer": R({"GET": SUP, "PUT": SUP}, k(pk="rfq"), obj=True),
    "supplier-answer-list": R({"GET": SUP_ANY}),
    "supplier-answer-detail": R({"GET": SUP}, k(pk="answer"), obj=True),
    "supplier-answer-logs": R({"POST": SUP}, k(pk="answer"), obj=True),
    "invitation-accept-list": R({"POST": PUBLIC}),
    # API: serving
    "serving-workload-list": R(API_LIST),
    "serving-workload-detail": R(API_DETAIL, k(pk="serving_workload"), obj=True),
    "serving-workload-ranking": R(G_READ, k(pk="serving_workload"), obj=True),
    "serving-workload-traffic": R(TRAFFIC, k(pk="serving_workload"), obj=True),
    "mixed-plan-list": R(API_LIST),
    "mixed-plan-detail": R(API_DETAIL, k(pk="plan"), obj=True),
    "mixed-plan-evaluation": R(G_READ, k(pk="plan"), obj=True),
    "mixed-plan-traffic": R(TRAFFIC, k(pk="plan"), obj=True),
    # API: contracts (team-scoped like the other viewsets) and the kit's upload
    "contract-list": R(API_LIST),
    "contract-detail": R({**API_DETAIL, "PUT": WRITE}, k(pk="contract"), obj=True),
    "contract-uploads": R(API_LIST, k(pk="contract"), obj=True),
    "contract-incidents": R(API_LIST, k(pk="contract"), obj=True),
    "contract-maintenance": R(API_LIST, k(pk="contract"), obj=True),
    "contract-breaches": R(G_READ, k(pk="contract"), obj=True),
    "contract-credits": R(G_READ, k(pk="contract"), obj=True),
    "contract-prometheus": R({"GET": READ, "PUT": WRITE}, k(pk="contract"), obj=True),
    "contract-prometheus-pull": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contract-kit-renew": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "contract-evaluate": R({"POST": WRITE}, k(pk="contract"), obj=True),
    "vendor-record-list": R(G_READ),
    "contract-kit-upload": R({"POST": KIT}),
    # API catch-alls: a JSON 404 for paths no route takes
    r"api/v1/^vendors/.*$": catch_all("vendors"),
    r"api/v1/^quotes/.*$": catch_all("quotes"),
    r"api/v1/^workloads/.*$": catch_all("workloads"),
    r"api/v1/^gpus/.*$": catch_all("gpus"),
    r"api/v1/^benchmarks/.*$": catch_all("benchmarks"),
    r"api/v1/^test-runs/.*$": catch_all("test-runs"),
    r"api/v1/^rankings/(?!\d+/report\.).*$": catch_all("rankings"),
    r"api/v1/^reports/.*$": catch_all("reports"),
    r"api/v1/^rfqs/.*$": catch_all("rfqs"),
    r"api/v1/^awards/.*$": catch_all("awards"),
    r"api/v1/^supplier/.*$": catch_all("supplier"),
    r"api/v1/^serving-workloads/.*$": catch_all("serving-workloads"),
    r"api/v1/^mixed-plans/.*$": catch_all("mixed-plans"),
    r"api/v1/^contracts/.*$": catch_all("contracts"),
}

# Cells where the portal is known to answer wrongly, in code this suite's owner may not change:
# (route, actor, method) → (the status the portal answers now, why it is wrong). The test checks
# that each gap still answers that status, so a fix fails it with "delete the KNOWN_GAPS entry";
# then the cell is asserted like every other.
KNOWN_GAPS: dict[tuple[str, str, str], tuple[int, str]] = {}

# Methods that change or remove data: sent only to actors who must be refused (every request is
# rolled back, but a deletion could also remove stored files).
DESTRUCTIVE = {"DELETE"}

ACTORS = (
    "anonymous",
    "viewer_a",
    "analyst_a",
    "admin_a",
    "analyst_b",
    "supplier_in",
    "supplier_out",
    "no_team",
)
TEAM_A = {"viewer_a", "analyst_a", "admin_a"}
SUPPLIERS = {"supplier_in", "supplier_out"}


# ---------------------------------------------------------------------------------------------
# The resolver walk.


def _walk(resolver: URLResolver, prefix: str = "", ns: str = "") -> Iterator[tuple[str, str]]:
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            if str(p.pattern).startswith("admin/"):
                continue
            sub = f"{ns}:{p.namespace}" if ns and p.namespace else (p.namespace or ns)
            yield from _walk(p, prefix + str(p.pattern), sub)
        elif isinstance(p, URLPattern):
            pattern = prefix + str(p.pattern)
            if "(?P<format>" in pattern or "<drf_format_suffix:format>" in pattern:
                continue  # DRF's `.json` variants of the same views
            name = f"{ns}:{p.name}" if ns and p.name else (p.name or "")
            yield (name or pattern), pattern


def resolved_routes() -> dict[str, str]:
    return dict(_walk(get_resolver()))


def test_every_route_is_classified():
    routes = resolved_routes()
    missing = sorted(set(routes) - set(ROUTES))
    stale = sorted(set(ROUTES) - set(routes))
    lines = [f"unclassified route {name!r} ({routes[name]}): add it to ROUTES" for name in missing]
    lines += [f"ROUTES entry {name!r} matches no route any more: remove it" for name in stale]
    assert not lines, "\n".join(lines)
    for name, actor, method in KNOWN_GAPS:
        assert name in ROUTES and actor in ACTORS and method in ROUTES[name].methods


# ---------------------------------------------------------------------------------------------
# The data set: built once for the module inside a transaction that is rolled back at the end.


class TeamData:
    """Team objects of every kind that has a detail/edit/delete/download route."""


def _build_team(team: Team, user, prefix: str) -> TeamData:  # type: ignore[no-untyped-def]
    import benchmarks.demo
    import quotes.demo
    import rankings.demo
    import reports.demo
    import serving.demo
    import vendors.demo
    from benchmarks.models import BenchmarkLog, TestRun
    from quotes.models import Quote, WorkloadProfile
    from rankings.models import RankingRun
    from reports.models import Report
    from serving.models import MixedPlan, ServingWorkload
    from vendors.models import Certification, DataCentre, IcpFiling, Licence, SlaTerms, Vendor

    for module in (vendors.demo, quotes.demo, benchmarks.demo, rankings.demo, reports.demo,
                   serving.demo):  # fmt: skip
        module.load(team=team, user=user)
    d = TeamData()
    d.team = team
    d.prefix = prefix
    # A marker that must never show up in another team's answers.
    d.vendor = Vendor.objects.filter(team=team, data_centres__network__isnull=False).first()
    Vendor.objects.filter(pk=d.vendor.pk).update(name_en=f"{prefix}-MARK-vendor")
    d.vendor.refresh_from_db()
    d.licence = Licence.objects.create(
        vendor=d.vendor, number=f"粤B1-{prefix}01", business_codes=["B11"], issuer_province="GD"
    )
    d.icp = IcpFiling.objects.filter(vendor=d.vendor).first() or IcpFiling.objects.create(
        vendor=d.vendor, number=f"粤ICP备{prefix}号"
    )
    d.cert = Certification.objects.filter(vendor=d.vendor).first() or (
        Certification.objects.create(vendor=d.vendor, kind="iso27001", number=f"{prefix}-1")
    )
    d.dc = DataCentre.objects.filter(vendor=d.vendor, network__isnull=False).first()
    d.network = d.dc.network
    d.sla = SlaTerms.objects.filter(vendor=d.vendor).first() or SlaTerms.objects.create(
        vendor=d.vendor, availability="0.999"
    )
    for attr in EVIDENCE_OBJECTS.values():  # every kind of claim has a private evidence file
        getattr(d, attr).evidence.save(f"{attr}.pdf", ContentFile(b"%PDF-1.4 " + prefix.encode()))
    d.quote = Quote.objects.filter(team=team).order_by("pk").first()
    Quote.objects.filter(pk=d.quote.pk).update(label=f"{prefix}-MARK-quote")
    d.quote.refresh_from_db()
    d.workload = WorkloadProfile.objects.filter(team=team).order_by("pk").first()
    d.test_run = TestRun.objects.filter(team=team).order_by("pk").first()
    d.log = BenchmarkLog.objects.filter(test_run__team=team).exclude(file="").first()
    d.ranking = RankingRun.objects.filter(team=team).order_by("pk").first()
    d.report = Report.objects.filter(team=team).exclude(file="").first()
    d.serving_workload = ServingWorkload.objects.filter(team=team).first()
    d.plan = MixedPlan.objects.filter(team=team).first()
    _build_contract(d, user)
    return d


def _build_contract(d: TeamData, user) -> None:  # type: ignore[no-untyped-def]
    """A signed contract of the team's quote with its servers, a Prometheus source, an
    evaluation of its (empty) evidence and a built claim pack (PDF and ZIP)."""
    from contracts.models import ClaimPack, DeliveryEvaluation, MaintenanceWindow
    from contracts.services import (
        contract_create_from_quote,
        contract_servers_set,
        prometheus_source_set,
    )
    from core import jobs
    from core.models import JobStatus

    d.contract = contract_create_from_quote(
        team=d.team, user=user, quote=d.quote,
        overrides={"title": f"{d.prefix} contract", "committed_gbps": 10.0},
    )  # fmt: skip
    contract_servers_set(contract=d.contract, servers=[{"hostname": "gpu-01"},
                                                       {"hostname": "gpu-02"}])  # fmt: skip
    prometheus_source_set(
        contract=d.contract, url="https://prometheus.example.com",
        queries={"tx": "rate(node_network_transmit_bytes_total[5m])"},
    )  # fmt: skip
    d.maintenance = MaintenanceWindow.objects.create(
        contract=d.contract, starts_at=timezone.now(), ends_at=timezone.now() + timedelta(hours=2)
    )
    evaluation = DeliveryEvaluation.objects.create(contract=d.contract, requested_by=user)
    jobs.run("delivery_evaluate", evaluation.pk)
    d.claim_pack = ClaimPack.objects.create(
        contract=d.contract, evaluation=evaluation, requested_by=user, status=JobStatus.DONE,
        progress=100, finished_at=timezone.now(),
    )  # fmt: skip
    d.claim_pack.pdf.save("claim.pdf", ContentFile(b"%PDF-1.4 " + d.prefix.encode()), save=False)
    d.claim_pack.evidence_zip.save("evidence.zip", ContentFile(b"PK\x05\x06" + bytes(18)),
                                   save=False)  # fmt: skip
    d.claim_pack.save()


def _build_sourcing(d: TeamData, user, supplier_name: str) -> Any:  # type: ignore[no-untyped-def]
    from benchmarks.models import BenchmarkLog
    from quotes.models import GpuModel
    from sourcing.services import (
        answer_submit,
        answer_upload_evidence,
        award_propose,
        invitation_accept,
        invitation_create,
        rfq_create,
        rfq_publish,
    )
    from sourcing.tasks import close_due_rfqs
    from sourcing.testing import IPERF_PAIRS, answer_terms, demo_log, pass_deadline
    from vendors.models import Vendor

    def data(title: str) -> dict[str, Any]:
        return {
            "title": title, "workload": d.workload, "nodes": 8, "min_internode_gbps": 25,
            "fabric": "", "term_months": 12, "deadline": timezone.now() + timedelta(days=3),
            "sealed": True, "kit_pairs": 3, "notes": f"PRIVATE notes of {d.team.slug}",
            "gpu_models": [GpuModel.objects.get(key="A100-SXM4-80GB")],
        }  # fmt: skip

    d.rfq = rfq_create(team=d.team, user=user, data=data(f"{d.team.slug}-MARK-rfq"))
    rfq_publish(rfq=d.rfq, user=user)
    d.draft_rfq = rfq_create(team=d.team, user=user, data=data(f"{d.team.slug} draft"))
    other_vendor = Vendor.objects.filter(team=d.team).exclude(pk=d.vendor.pk).first()
    # another invited vendor: a supplier must not learn who else competes
    Vendor.objects.filter(pk=other_vendor.pk).update(name_en=f"{d.prefix}-MARK-rival")
    other_vendor.refresh_from_db()
    _inv, token = invitation_create(rfq=d.rfq, user=user, vendor=d.vendor, email="s@example.com")
    account = invitation_accept(token=token, username=supplier_name, password="Sup-pass-12345!")
    _inv, d.invite_token = invitation_create(
        rfq=d.rfq, user=user, vendor=other_vendor, email="unused@example.com"
    )
    d.answer = answer_submit(rfq=d.rfq, account=account, terms=answer_terms())
    answer_upload_evidence(answer=d.answer, account=account, upload=demo_log(IPERF_PAIRS[0]))
    pass_deadline(d.rfq)
    close_due_rfqs()
    d.rfq.refresh_from_db()
    d.answer.refresh_from_db()
    d.evidence_log = BenchmarkLog.objects.filter(test_run=d.answer.evidence_run).first()
    # the matrix vendor has critical findings: the award overrides the risk policy, in writing
    d.award = award_propose(rfq=d.rfq, user=user, answer=d.answer, rationale="matrix",
                            override_reason="matrix: permissions, not the rules")  # fmt: skip
    return account


@dataclass
class World:
    a: TeamData
    b: TeamData
    users: dict[str, Any]


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):  # type: ignore[no-untyped-def]
    User = get_user_model()
    media = override_settings(MEDIA_ROOT=str(tmp_path_factory.mktemp("perm-media")))
    with media, django_db_blocker.unblock(), transaction.atomic():
        import importlib

        from django.apps import apps as django_apps

        gpu_rows = importlib.import_module("quotes.migrations.0002_gpu_table")
        if django_apps.get_model("quotes", "GpuModel").objects.count() < len(gpu_rows.GPU_ROWS):
            gpu_rows.load(django_apps, None)
        team_a = Team.objects.create(name="Matrix team A", slug="matrix-a")
        team_b = Team.objects.create(name="Matrix team B", slug="matrix-b")

        def member(name: str, team: Team | None, role: str | None):  # type: ignore[no-untyped-def]
            user = User.objects.create_user(username=f"perm-{name}", password="pw")
            if team is not None:
                Membership.objects.create(user=user, team=team, role=role)
            return user

        users = {
            "viewer_a": member("viewer_a", team_a, Role.VIEWER),
            "analyst_a": member("analyst_a", team_a, Role.ANALYST),
            "admin_a": member("admin_a", team_a, Role.ADMIN),
            "analyst_b": member("analyst_b", team_b, Role.ANALYST),
            "no_team": member("no_team", None, None),
        }
        with TestCase.captureOnCommitCallbacks(execute=True):
            a = _build_team(team_a, users["analyst_a"], "A")
            b = _build_team(team_b, users["analyst_b"], "B")
        with TestCase.captureOnCommitCallbacks(execute=True):
            users["supplier_in"] = _build_sourcing(a, users["analyst_a"], "perm-supplier_in").user
            users["supplier_out"] = _build_sourcing(b, users["analyst_b"], "perm-supplier_out").user
        yield World(a=a, b=b, users=users)
        transaction.set_rollback(True)


def test_the_data_set_has_every_object(world):  # type: ignore[no-untyped-def]
    for side in (world.a, world.b):
        for name in ("vendor", "licence", "icp", "cert", "dc", "network", "sla", "quote",
                     "workload", "test_run", "log", "ranking", "report", "serving_workload",
                     "plan", "contract", "claim_pack", "rfq", "draft_rfq", "answer",
                     "evidence_log", "award"):  # fmt: skip
            assert getattr(side, name, None) is not None, f"{side.team.slug} has no {name}"


# ---------------------------------------------------------------------------------------------
# One cell: expected answer for (access class, actor) and the check of the real answer.


class _Rollback(Exception):
    pass


def _request(client: Client, method: str, url: str, is_api: bool):  # type: ignore[no-untyped-def]
    """One request, rolled back afterwards so no cell changes what the next one sees."""
    # JSON from the API; the Swagger page renders only HTML
    extra: dict[str, Any] = {"HTTP_ACCEPT": "application/json, text/html"} if is_api else {}
    response = None
    cookies = SimpleCookie(client.cookies)  # login/logout replace the session cookie: keep ours
    try:
        with transaction.atomic():
            if method == "GET":
                response = client.get(url, **extra)
            elif method == "POST":
                response = client.post(url, {}, **extra)
            elif method == "DELETE":
                response = client.delete(url, **extra)
            else:
                response = client.generic(
                    method, url, "{}", content_type="application/json", **extra
                )
            if getattr(response, "streaming", False):  # read a file answer to its end
                b"".join(response.streaming_content)
            raise _Rollback
    except _Rollback:
        pass
    client.cookies = cookies
    return response


Expectation = tuple[str, Callable[[Any], bool]]


def _expect(access: str, actor: str, spec: R, is_api: bool, method: str) -> Expectation:
    """(description, predicate over the response) of the right answer."""
    status = lambda *codes: lambda r: r.status_code in codes  # noqa: E731

    def ok(r):  # type: ignore[no-untyped-def]
        if spec.download:
            return r.status_code == 200
        return r.status_code < 500 and r.status_code not in (401, 403, 404, 405)

    def login_redirect(r):  # type: ignore[no-untyped-def]
        return r.status_code == 302 and r["Location"].startswith(reverse("login"))

    anon = (
        ("401/403", status(401, 403))
        if is_api and not spec.login_page
        else ("302 to login", login_redirect)
    )
    if access == PUBLIC and method == "GET":
        return "200", status(200)
    if access == PUBLIC:
        return "no 401/403/5xx", lambda r: r.status_code < 500 and r.status_code not in (401, 403)
    if access == NOT_FOUND:
        return "404", status(404)
    if access == TOKEN:
        return "no 401/403/5xx", lambda r: r.status_code < 500 and r.status_code not in (401, 403)
    if access == KIT:  # the matrix sends no kit token: a session, any session, is not one
        return "401", status(401)
    if actor == "anonymous":
        return anon
    if access == SIGNED_IN:
        return "200", status(200)
    if access in (READ, WRITE, ADMIN):
        if actor in TEAM_A:
            if access == WRITE and actor == "viewer_a":
                return "403", status(403)
            if access == ADMIN and actor != "admin_a":
                return "403", status(403)
            return ("200" if spec.download else "allowed"), ok
        if actor == "analyst_b":
            if spec.obj:
                return "404", status(404)
            return ("403", status(403)) if access == ADMIN else ("allowed", ok)
        if actor in SUPPLIERS:
            if spec.supplier_home:
                home = reverse("sourcing:supplier-home")
                return f"302 to {home}", lambda r: r.status_code == 302 and r["Location"] == home
            return "403/404", status(403, 404)
        return "403", status(403)  # no team
    # supplier routes
    if actor == "supplier_in":
        return "allowed", ok
    if actor == "supplier_out":
        return ("404/403", status(403, 404)) if (access == SUP and spec.obj) else ("allowed", ok)
    return "403", status(403)


def _leaks(actor: str, world: World, response) -> str | None:  # type: ignore[no-untyped-def]
    """Team A's markers in an answer to someone outside team A. The supplier invited to A's RFQ
    may see the RFQ and its own vendor, never the team's private notes nor the rival vendor."""
    if actor in TEAM_A or response is None:
        return None
    if response.status_code != 200 or getattr(response, "streaming", False):
        return None
    markers = [world.a.rfq.notes, "A-MARK-rival"]
    if actor != "supplier_in":
        markers += ["A-MARK-vendor", "A-MARK-quote", world.a.rfq.title]
    text = response.content.decode("utf-8", "replace")
    return next((m for m in markers if m in text), None)


def _url(name: str, spec: R, side: TeamData) -> str:
    if spec.path:
        return spec.path(side)
    return reverse(name, kwargs=spec.kwargs(side) if spec.kwargs else None)


def _urls(name: str, spec: R, side: TeamData) -> list[str]:
    return [_url(name, spec, side)] + [reverse(name, kwargs=v(side)) for v in spec.variants]


def _walk_matrix(world: World, actor: str, side: TeamData, role: str) -> list[str]:
    """Every route and method as `actor` on `side`'s objects, judged as `role` would be on team
    A's objects; the wrong cells."""
    client = Client(raise_request_exception=False)
    if actor != "anonymous":
        client.force_login(world.users[actor])
    failures: list[str] = []
    cells = [(n, spec, url) for n, spec in ROUTES.items() for url in _urls(n, spec, side)]
    sent = 0
    for name, spec, url in cells:
        is_api = url.startswith("/api/")
        for method, access in spec.methods.items():
            expected, check = _expect(access, role, spec, is_api, method)
            if method in DESTRUCTIVE and expected in ("allowed", "200"):
                continue
            response = _request(client, method, url, is_api)
            sent += 1
            got = f"{response.status_code}"
            if response.status_code == 302:
                got += f" → {response['Location']}"
            cell = f"{name} {method} {url} as {actor}"
            gap = KNOWN_GAPS.get((name, role, method))
            if gap is not None:
                if response.status_code != gap[0]:
                    failures.append(f"{cell}: KNOWN_GAPS says {gap[0]}, got {got}: fixed? "
                                    f"delete the KNOWN_GAPS entry")  # fmt: skip
            elif response.status_code >= 500 or not check(response):
                failures.append(f"{cell}: expected {expected}, got {got}")
            leak = _leaks(actor, world, response) if access != TOKEN else None
            if leak:
                failures.append(f"{name} {method} {url} as {actor}: shows team A's {leak!r}")
    assert sent > len(ROUTES), f"only {sent} requests for {len(ROUTES)} routes"
    return failures


@pytest.mark.parametrize("actor", ACTORS)
def test_permission_matrix(world, actor):  # type: ignore[no-untyped-def]
    """Every actor on team A's objects."""
    failures = _walk_matrix(world, actor, world.a, actor)
    assert not failures, f"{len(failures)} wrong cells:\n" + "\n".join(failures)


@pytest.mark.parametrize(("actor", "role"), [("analyst_b", "analyst_a"),
                                             ("supplier_out", "supplier_in")])  # fmt: skip
def test_the_other_side_reaches_its_own_objects(world, actor, role):  # type: ignore[no-untyped-def]
    """Team B's analyst on B's objects and B's supplier on B's RFQ are answered like A's on A's:
    the 404s of the matrix come from the team boundary, not from ids that name nothing."""
    failures = _walk_matrix(world, actor, world.b, role)
    assert not failures, f"{len(failures)} wrong cells:\n" + "\n".join(failures)


@pytest.mark.parametrize("actor", ACTORS)
def test_a_bogus_invitation_token_is_404(world, actor):  # type: ignore[no-untyped-def]
    client = Client(raise_request_exception=False)
    if actor != "anonymous":
        client.force_login(world.users[actor])
    url = reverse("sourcing:invite", kwargs={"token": "not-a-token"})
    codes = {m: _request(client, m, url, False).status_code for m in ("GET", "POST")}
    assert codes == {"GET": 404, "POST": 404}


def test_the_kit_upload_takes_a_contracts_kit_token_and_nothing_else(world):  # type: ignore[no-untyped-def]
    """The matrix sends no kit token (401 for every actor, a session counts for nothing); here
    the token itself: the contract's own is taken (400 for the missing file, not a refusal),
    a bogus one is 401, an expired one 403."""
    from contracts.models import Contract

    client = Client(raise_request_exception=False)
    client.force_login(world.users["admin_a"])
    url = reverse("contract-kit-upload")
    token = world.a.contract.kit_token

    def post(header: str, expire: bool = False) -> int:
        response = None
        try:
            with transaction.atomic():
                if expire:
                    past = timezone.now() - timedelta(days=1)
                    Contract.objects.filter(pk=world.a.contract.pk).update(
                        kit_token_expires_at=past
                    )
                response = client.post(url, {}, HTTP_AUTHORIZATION=header)
                raise _Rollback
        except _Rollback:
            pass
        return response.status_code

    got = {
        "none": post(""), "bogus": post("Kit not-a-token"),
        "session scheme": post(f"Token {token}"), "own": post(f"Kit {token}"),
        "expired": post(f"Kit {token}", expire=True),
    }  # fmt: skip
    assert got == {"none": 401, "bogus": 401, "session scheme": 401, "own": 400, "expired": 403}


def test_team_b_lists_show_none_of_team_a(world):  # type: ignore[no-untyped-def]
    """The other direction of the leak check, with B's own markers present: B's list answers
    hold B's vendor and RFQ and never A's."""
    client = Client()
    client.force_login(world.users["analyst_b"])
    for name in ("vendors:list", "vendor-list", "sourcing:list", "rfq-list"):
        text = client.get(reverse(name)).content.decode()
        assert "B-MARK-vendor" in text or "matrix-b-MARK-rfq" in text, name
        assert "A-MARK-vendor" not in text and "matrix-a-MARK-rfq" not in text, name


# A supplier's evidence log is stored in the buying team's benchmarks: only that team downloads it.
EVIDENCE_DOWNLOAD = {
    "anonymous": "login", "viewer_a": 200, "analyst_a": 200, "admin_a": 200, "analyst_b": 404,
    "supplier_in": 403, "supplier_out": 403, "no_team": 403,
}  # fmt: skip


def test_only_the_buying_team_downloads_a_suppliers_evidence_log(world):  # type: ignore[no-untyped-def]
    url = reverse("benchmarks:download", kwargs={"pk": world.a.evidence_log.pk})
    got = {}
    for actor in ACTORS:
        client = Client(raise_request_exception=False)
        if actor != "anonymous":
            client.force_login(world.users[actor])
        response = _request(client, "GET", url, False)
        login = response.status_code == 302 and response["Location"].startswith(reverse("login"))
        got[actor] = "login" if login else response.status_code
    assert got == EVIDENCE_DOWNLOAD


# ---------------------------------------------------------------------------------------------
# Id filters of the lists: another team's id is answered exactly like an id that names nothing
# (before: 200 with an empty list for the one, 400 for the other — the list told which ids exist).

# Every id filter the lists had when this check was written: the discovery below must find them.
KNOWN_API_ID_FILTERS = {
    ("quote-list", "vendor"), ("benchmark-list", "test_run"), ("benchmark-list", "vendor"),
    ("test-run-list", "vendor"), ("test-run-list", "data_centre"), ("test-run-list", "quote"),
    ("ranking-list", "workload"), ("report-list", "run"), ("award-list", "rfq"),
}  # fmt: skip
# Page lists with an id filter (a FilterSet on the page): route → parameters.
PAGE_ID_FILTERS = {"quotes:list": ("vendor",)}
OWNER_PATHS = ("team", "vendor__team", "rfq__team", "test_run__team")


def _owned_by(model, team):  # type: ignore[no-untyped-def]
    """`model`'s rows of `team` (the test's own idea of ownership, not core.filters')."""
    from django.core.exceptions import FieldError

    for path in OWNER_PATHS:
        try:
            return model.objects.filter(**{path: team})
        except FieldError:  # no such path on this model: try the next
            pass
    return None


def _api_id_filters(name: str, url: str) -> list[tuple[str, Any]]:
    """(parameter, target model) of every filter of a list route that takes a related row's id."""
    from django.urls import resolve
    from django_filters.utils import get_model_field
    from rest_framework.settings import api_settings

    view_cls = getattr(resolve(url).func, "cls", None)
    queryset = getattr(view_cls, "queryset", None)
    if view_cls is None or queryset is None:
        return []
    backends = getattr(view_cls, "filter_backends", api_settings.DEFAULT_FILTER_BACKENDS)
    found = []
    for backend in backends:
        get_class = getattr(backend(), "get_filterset_class", None)
        filterset_class = get_class(view_cls(), queryset) if get_class else None
        for param, flt in filterset_class.base_filters.items() if filterset_class else ():
            field = get_model_field(queryset.model, flt.field_name or param)
            target = getattr(field, "related_model", None) if field is not None else None
            if target is not None and getattr(field, "many_to_one", False):
                found.append((param, target))
    return found


def _nonexistent_id(model) -> int:  # type: ignore[no-untyped-def]
    from django.db.models import Max

    return (model.objects.aggregate(top=Max("pk"))["top"] or 0) + 10_000


def test_list_id_filters_answer_another_teams_id_like_a_missing_id(world):  # type: ignore[no-untyped-def]
    client = Client(raise_request_exception=False)
    client.force_login(world.users["analyst_a"])
    checked, failures = set(), []
    for name, spec in ROUTES.items():
        if not (name.endswith("-list") and spec.methods.get("GET") == READ):
            continue
        url = _url(name, spec, world.a)
        for param, model in _api_id_filters(name, url):
            own, other = _owned_by(model, world.a.team), _owned_by(model, world.b.team)
            if own is None or not own.exists() or not other.exists():
                continue  # a shared table (GPU models): every team may filter by any row
            checked.add((name, param))
            answers = {}
            for label, pk in (("own", own.first().pk), ("other team's", other.first().pk),
                              ("missing", _nonexistent_id(model))):  # fmt: skip
                response = _request(client, "GET", f"{url}?{param}={pk}", True)
                answers[label] = (response.status_code, response.json())
            if answers["own"][0] != 200:
                failures.append(f"{url}?{param}=<own id>: {answers['own']}")
            theirs, missing = answers["other team's"], answers["missing"]
            if theirs != missing:
                failures.append(
                    f"{url}?{param}=: another team's id answers {theirs}, a missing id {missing}"
                )
    missed = KNOWN_API_ID_FILTERS - checked
    assert not missed, f"id filters not found any more (renamed? check them): {sorted(missed)}"
    assert not failures, "\n".join(failures)


def test_page_id_filters_answer_another_teams_id_like_a_missing_id(world):  # type: ignore[no-untyped-def]
    from vendors.models import Vendor

    client = Client(raise_request_exception=False)
    client.force_login(world.users["analyst_a"])
    models = {"vendor": Vendor}
    for name, params in PAGE_ID_FILTERS.items():
        for param in params:
            model = models[param]
            answers = {}
            for label, pk in (("other", _owned_by(model, world.b.team).first().pk),
                              ("missing", _nonexistent_id(model))):  # fmt: skip
                response = _request(client, "GET", f"{reverse(name)}?{param}={pk}", False)
                form = response.context["filter"].form
                rows = len(response.context["page"].object_list)
                # the page's form repeats the value it refused: compare the message without it
                errors = {
                    k: [m.replace(str(pk), "<id>") for m in v] for k, v in form.errors.items()
                }
                answers[label] = (response.status_code, errors, rows)
            assert answers["other"] == answers["missing"], (name, param, answers)
            assert answers["other"][1], f"{name}?{param}= should say the choice is not valid"
