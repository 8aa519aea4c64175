"""The risk policy "evidence the vendor supplied counts as a claim": an offer whose measured figure
rests only on logs the vendor supplied (not run by the team, no RFQ kit token) carries the
unverified-bandwidth risk (and a claim's range); one with a witnessed log does not. Real one-port
ib_write_bw log, uploaded through the normal path, ranked by the real job."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as run_create
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import TeamRiskPolicy
from rankings.services import ranking_start

pytestmark = pytest.mark.django_db
IB_400G = (
    Path(__file__).resolve().parents[1]
    / "domain/data/corpus/ib_write_bw/ru_cloud_numa_table_only_gbits.txt"
)
NDR_CX7 = (
    Path(__file__).resolve().parents[1]
    / "domain/data/corpus/ib_send_bw/cx7_ndr_session_send_bw_lat_read_write.txt"
)


def _quote(team, user, vendor, label: str) -> Quote:  # type: ignore[no-untyped-def]
    return make_quote(
        team, user, vendor, label=label, gpu=GpuModel.objects.get(key="H800-SXM"), nodes=16,
        gpus_per_node=8, nic_gbps=400.0, nics_per_node=8, fabric="ib",
        price_per_node_month=Decimal("82000"), monthly_fees=Decimal("0"),
    )  # fmt: skip


def _attach(team, user, quote: Quote, witnessed: bool, capture) -> Quote:  # type: ignore[no-untyped-def]
    run = run_create(team=team, user=user, vendor=quote.vendor, quote=quote, name=quote.label)
    # Two distinct real NDR tests (394.4 and 390.5 Gbit/s): one log re-typed for a second quote
    # would be set aside as re-used (one test cannot prove two offers).
    data = (IB_400G if witnessed else NDR_CX7).read_bytes()
    with capture(execute=True):
        benchmark_ingest(
            team=team, user=user, test_run=run, witnessed=witnessed,
            upload=SimpleUploadedFile(f"{quote.label}.txt", data),
        )  # fmt: skip
    return Quote.objects.get(pk=quote.pk)


def _rank(team, user, quotes, capture):  # type: ignore[no-untyped-def]
    with capture(execute=True):
        run = ranking_start(
            team=team, user=user, workload=make_workload(team, nodes=16), quotes=quotes
        )
    run.refresh_from_db()
    return {r.quote_version_id: r for r in run.results.all()}


@pytest.mark.parametrize("claim", [True, False])
def test_supplied_evidence_counts_as_a_claim_only_when_the_policy_says_so(  # type: ignore[no-untyped-def]
    team_a, analyst_a, django_capture_on_commit_callbacks, claim
):
    TeamRiskPolicy.objects.create(team=team_a, supplied_evidence_is_claim=claim)
    vendor = make_vendor(team_a, "Twin IB", fabric="ib", gbps=400)
    cap = django_capture_on_commit_callbacks
    ours = _attach(team_a, analyst_a, _quote(team_a, analyst_a, vendor, "witnessed"), True, cap)
    theirs = _attach(team_a, analyst_a, _quote(team_a, analyst_a, vendor, "supplied"), False, cap)
    assert ours.measured_derivation["trust"] == "witnessed"
    assert theirs.measured_derivation["trust"] == "supplied"
    assert ours.measured_gbps == pytest.approx(theirs.measured_gbps, rel=0.011)
    results = _rank(team_a, analyst_a, [ours, theirs], cap)
    a, b = results[ours.current_version_id], results[theirs.current_version_id]
    # Figures within 1 %: the same model gives costs within that.
    assert a.cost_per_eth == pytest.approx(b.cost_per_eth, rel=0.011)
    codes_b = {m.get("code") for m in b.risk_marks}
    assert "bandwidth_supplied_only" not in {m.get("code") for m in a.risk_marks}
    if claim:
        assert "bandwidth_supplied_only" in codes_b
        assert b.risk_adjusted_cost_per_eth > a.risk_adjusted_cost_per_eth
    else:
        assert "bandwidth_supplied_only" not in codes_b
        # The same premium on both (none for supplied evidence).
        assert b.risk_adjusted_cost_per_eth / b.cost_per_eth == pytest.approx(
            a.risk_adjusted_cost_per_eth / a.cost_per_eth
        )


def test_the_policy_api_takes_the_flag_and_refuses_what_is_not_a_boolean(  # type: ignore[no-untyped-def]
    team_a, make_user, api_as
):
    from accounts.choices import Role

    admin = make_user("ada", team_a, Role.ADMIN)
    client = api_as(admin)
    ok = client.patch("/api/v1/risk-policy/", {"supplied_evidence_is_claim": True}, format="json")
    assert ok.status_code == 200, ok.content
    assert ok.json()["supplied_evidence_is_claim"] is True
    assert "evidence the vendor supplied counts as a claim" in ok.json()["summary"]["en"]
    bad = client.patch("/api/v1/risk-policy/", {"supplied_evidence_is_claim": "yes"}, format="json")
    assert bad.status_code == 400 and "supplied_evidence_is_claim" in bad.json()
    assert TeamRiskPolicy.objects.get(team=team_a).supplied_evidence_is_claim is True
