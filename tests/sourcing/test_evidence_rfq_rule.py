"""RFQ evaluation takes its cost per ETH from the evidence rule: of two identical answers, the
one whose supplier uploaded a real clean one-port RoCE log (190.5 Gbit/s on a 200G port) costs
exactly what an answer quoting 190.5 Gbit/s per port costs, and never more."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from domain.evidence.linkrates import rdma_payload_share
from rankings.services import rank_snapshot
from sourcing.services import answer_submit, answer_upload_evidence
from sourcing.tasks import close_due_rfqs
from sourcing.testing import answer_terms, pass_deadline

pytestmark = pytest.mark.django_db
LOG = (
    Path(__file__).resolve().parents[1]
    / "domain/data/corpus/ib_write_bw/ru_cloud_numa_table_only_gbits.txt"
)


def test_the_rfq_ranking_costs_evidence_by_its_shortfall_only(
    rfq, suppliers, django_capture_on_commit_callbacks
):
    terms = answer_terms(nic_gbps=400, nics_per_node=8, fabric="ib")
    evidenced = answer_submit(rfq=rfq, account=suppliers[0], terms=terms)
    plain = answer_submit(rfq=rfq, account=suppliers[1], terms=terms)
    upload = SimpleUploadedFile(LOG.name, LOG.read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        answer_upload_evidence(answer=evidenced, account=suppliers[0], upload=upload)
    pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    rfq.refresh_from_db()
    evidenced.refresh_from_db()
    plain.refresh_from_db()
    quote = evidenced.quote
    assert quote.measured_gbps == pytest.approx(8 * 394.4, rel=1e-3)
    assert quote.measured_derivation["en"].startswith("8 ports × 394 Gbit/s measured on 1 port")
    results = {r.quote_version_id: r for r in rfq.ranking_run.results.all()}
    mine = results[quote.current_version_id].cost_per_eth
    theirs = results[plain.quote.current_version_id].cost_per_eth
    assert theirs <= mine <= theirs * 400 / 394.4
    # Exactly the shortfall: the same snapshot with the evidence replaced by a claim of a port
    # whose achievable rate is what the log measured per port (a claim counts at its data rate
    # less headers, linkrates.py; a rate no IB generation is sold at keeps its nominal rate).
    snapshot = dict(rfq.ranking_run.snapshot)
    per_port = quote.measured_gbps / 8
    nominal = per_port / rdma_payload_share("ib")
    snapshot["offers"] = [
        {**o, "nic_gbps": nominal, "measured_gbps": None, "measured_p50_gbps": None}
        if o["quote_id"] == quote.pk
        else o
        for o in snapshot["offers"]
    ]
    claimed = {r.offer_id: r.cost_per_eth for r in rank_snapshot(snapshot).results}
    assert mine == pytest.approx(claimed[str(quote.current_version_id)], rel=1e-9)
