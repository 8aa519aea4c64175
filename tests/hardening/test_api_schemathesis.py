"""Schemathesis against the portal's own OpenAPI schema, in-process through the WSGI app.

Every operation is called as a team analyst holding a token, over a team that has vendors with
data centres, networks, licences, quotes, a workload, a test run and a ranking. Path ids are drawn
mostly from that data so retrieve / update / delete reach real rows, not only 404s.

Checks: no 5xx, documented status codes, documented content types, response bodies that match
the schema. The run is bounded (a handful of examples per operation, derandomized) so the whole
module takes well under three minutes on two cores.
"""

from __future__ import annotations

from datetime import date

import hypothesis
import pytest
import schemathesis
from django.core import signals
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.choices import Role
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as make_test_run
from portal.wsgi import application
from quotes.testing import make_workload, seed_quotes
from rankings.services import ranking_start
from vendors.models import Certification, IcpFiling, Licence, SlaTerms

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

# Operations owned by other parts of the portal, left out here and reported to their owners.
# Each entry says why; the failures are listed (with a reproduction) in the hardening report.
_SUPPLIER = (
    "sourcing: the supplier-portal views (SupplierRfqViewSet, SupplierAnswerViewSet,"
    " InvitationAcceptViewSet, the supplier log upload) answer 403 to a team analyst but document"
    " only 200/201; they do not use core.api_schema.PortalAutoSchema"
)
EXCLUDED_OPERATIONS: dict[str, str] = {
    "supplier_rfqs_list": _SUPPLIER,
    "supplier_rfqs_retrieve": _SUPPLIER,
    "supplier_rfqs_answer_retrieve": _SUPPLIER,
    "supplier_rfqs_answer_update": _SUPPLIER,
    "supplier_answers_list": _SUPPLIER,
    "supplier_answers_retrieve": _SUPPLIER,
    "supplier_answers_logs_create": _SUPPLIER,
    "supplier_invitations_accept_create": _SUPPLIER,
}

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)
if EXCLUDED_OPERATIONS:
    schema = schema.exclude(operation_id=list(EXCLUDED_OPERATIONS))

# Ids of the seeded rows, refreshed by the `api_data` fixture for every operation's test.
KNOWN_IDS: dict[str, list[object]] = {}


@schema.hook
def flatmap_path_parameters(context, path_parameters):  # type: ignore[no-untyped-def]
    """Mostly point path parameters at the seeded rows of the operation's own resource (the
    segment before `{id}`); sometimes keep the generated value."""
    if not path_parameters:
        return st.just(path_parameters)
    path = context.operation.path
    resource = path.split("/{id}")[0].rsplit("/", 1)[-1] if "{id}" in path else ""
    strategies = {}
    for name, value in path_parameters.items():
        known = KNOWN_IDS.get(resource if name == "id" else name) or []
        strategies[name] = st.sampled_from([*known, value])
    return st.fixed_dictionaries(strategies)


@pytest.fixture
def _keep_the_test_connection():  # type: ignore[no-untyped-def]
    """The WSGI handler closes old connections around each request, which would close the test's
    transaction; Django's own test client suspends this the same way."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def api_data(team_a, make_user, _keep_the_test_connection):  # type: ignore[no-untyped-def]
    analyst = make_user("fuzzer", team_a, Role.ANALYST)
    tcp, roce = seed_quotes(team_a, analyst)
    vendor = tcp.vendor
    dc = vendor.data_centres.first()
    licence = Licence.objects.create(
        vendor=vendor, number="B1-20230001", valid_until=date(2030, 1, 1)
    )
    cert = Certification.objects.create(vendor=vendor, kind="iso27001", name="ISO")
    icp = IcpFiling.objects.create(vendor=vendor, number="京ICP备12345678号")
    SlaTerms.objects.create(vendor=vendor)
    workload = make_workload(team_a)
    run = make_test_run(team=team_a, user=analyst, vendor=vendor, data_centre=dc, name="run")
    ranking = ranking_start(team=team_a, user=analyst, workload=workload)
    log = benchmark_ingest(
        team=team_a, user=analyst, test_run=run,
        upload=SimpleUploadedFile("a.log", b"iperf 3.9\nnot parsed in this test"),
    ).created[0]  # fmt: skip
    KNOWN_IDS.clear()
    KNOWN_IDS.update(
        {
            "vendor_pk": [vendor.pk],
            "datacentre_pk": [dc.pk],
            "key": ["A100-SXM4-80GB", "H100-SXM"],
            "vendors": [vendor.pk, roce.vendor_id],
            "data-centres": [dc.pk],
            "network": [dc.network.pk],
            "licences": [licence.pk],
            "icp-filings": [icp.pk],
            "certifications": [cert.pk],
            "sla": [vendor.sla.pk],
            "quotes": [tcp.pk, roce.pk],
            "workloads": [workload.pk],
            "test-runs": [run.pk],
            "benchmarks": [log.pk],
            "rankings": [ranking.pk],
        }
    )
    token = Token.objects.create(user=analyst)
    return {"Authorization": f"Token {token.key}"}


@schema.parametrize()
@hypothesis.settings(
    max_examples=15,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.django_db
def test_the_api_conforms_to_its_schema(case, api_data):  # type: ignore[no-untyped-def]
    case.call_and_validate(headers=api_data, checks=CHECKS)
