"""Reports: only the ranking's own workload (no serving plans of the team), the compact offer
inputs and the number of queries a report's data costs."""

from __future__ import annotations

import re
import subprocess
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from openpyxl import load_workbook

from core.models import JobStatus
from quotes.testing import make_quote, make_vendor, make_workload
from rankings.models import RankingRun
from rankings.tasks import run_job as rank_job
from reports.selectors import report_data
from reports.services import report_build_sync
from reports.summary import offer_rows
from serving.selectors import serving_report_section

pytestmark = pytest.mark.django_db


def _pdf_text(path: str) -> str:
    out = subprocess.run(["pdftotext", "-layout", path, "-"], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    return re.sub(r"\s+", " ", out)


def _build(team, user, run, kind, language="en"):  # type: ignore[no-untyped-def]
    report = report_build_sync(team=team, user=user, run=run, kind=kind, language=language)
    assert report.status == JobStatus.DONE, report.error
    return report


@pytest.fixture
def served(demo_run, team_a, analyst_a):  # type: ignore[no-untyped-def]
    import serving.demo

    serving.demo.load(team=team_a, user=analyst_a)
    section = serving_report_section(team=team_a)
    assert section["workloads"] and section["plans"]
    return section


def test_the_report_holds_only_its_rankings_workload_not_the_teams_serving_plans(
    served, demo_run, team_a, analyst_a
):
    text = _pdf_text(_build(team_a, analyst_a, demo_run, "pdf").file.path)
    assert "Decision asked for" in text
    assert "Serving and mixed plans" not in text and "Mixed plan" not in text
    assert served["plans"][0]["name"] not in text
    assert served["workloads"][0]["name"] not in text
    wb = load_workbook(_build(team_a, analyst_a, demo_run, "xlsx").file.path)
    assert "Serving" not in wb.sheetnames and "Mixed plans" not in wb.sheetnames


def test_offer_inputs_are_words_with_units_shared_values_once():
    offers = {
        "1": {"id": 1, "vendor": "甲", "label": "IB", "version": 2, "nodes": 8, "nic_gbps": 200.0,
              "fabric": "ib", "measured_gbps": 194.096467542016, "quote_id": 3,
              "availability": 0.999, "price_per_node_month": 52000.0, "currency": "CNY",
              "vendor_flags": [{"en": "x"}]},
        "2": {"id": 2, "vendor": "乙", "label": "TCP", "version": 1, "nodes": 8, "nic_gbps": 10.0,
              "fabric": "tcp", "measured_gbps": None, "quote_id": 4, "availability": 0.999,
              "price_per_node_month": 30000.0, "currency": "CNY"},
    }  # fmt: skip
    with translation.override("en"):
        out = offer_rows(SimpleNamespace(offers=offers))
    assert out["shared"] == [("Nodes", "8"), ("Availability (SLA)", "99.9%")]
    first, second = out["offers"]
    assert first["title"] == "甲 · IB" and first["version"] == 2
    assert dict(first["values"]) == {
        "NIC speed": "200 Gbit/s", "Fabric": "InfiniBand",
        "Measured bandwidth, typical": "194 Gbit/s",
        "Price per node and month": "52,000.00 CNY",
    }  # fmt: skip
    assert dict(second["values"])["Measured bandwidth, typical"] == "—"
    shown = repr(out)
    for developer_name in ("quote_id", "vendor_flags", "nic_gbps", "measured_gbps", " = "):
        assert developer_name not in shown
    # a single offer: nothing is "shared", everything is its own
    alone = offer_rows(SimpleNamespace(offers={"1": offers["1"]}))
    assert alone["shared"] == [] and ("Nodes", "8") in alone["offers"][0]["values"]


def test_report_data_costs_the_same_queries_for_more_offers_and_vendors(
    team_a, analyst_a, django_assert_max_num_queries
):
    import serving.demo

    def add(n: int) -> None:
        for i in range(n):
            vendor = make_vendor(team_a, f"供应商 {n}-{i}", fabric="roce", gbps=100)
            make_quote(team_a, analyst_a, vendor, label=f"100G #{n}-{i}",
                       price_per_node_month=Decimal(30000 + i))  # fmt: skip

    def rank(n: int) -> RankingRun:
        add(n)
        workload = make_workload(team_a)
        run = RankingRun.objects.create(
            team=team_a, created_by=analyst_a, workload=workload, all_current=True
        )
        rank_job(run.pk)
        run.refresh_from_db()
        return run

    add(2)
    serving.demo.load(team=team_a, user=analyst_a)  # a serving workload and a mixed plan
    small = rank(0)
    with CaptureQueriesContext(connection) as few:
        report_data(run=small)
    big = rank(10)
    assert big.results.count() > small.results.count()
    with django_assert_max_num_queries(len(few.captured_queries)):
        data = report_data(run=big)
    assert len(data.vendors) >= 12
