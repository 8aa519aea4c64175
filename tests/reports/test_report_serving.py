"""Reports: the serving section (serving ranking and mixed plans), the compact offer inputs and
the number of queries a report's data costs."""

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
    assert section["workloads"][0]["results"] and section["plans"][0]["months"]
    return section


def test_the_pdf_has_the_serving_ranking_and_the_mixed_plan(served, demo_run, team_a, analyst_a):
    text = _pdf_text(_build(team_a, analyst_a, demo_run, "pdf").file.path)
    assert "Serving and mixed plans" in text
    workload, plan = served["workloads"][0], served["plans"][0]
    assert f"Serving workload: {workload['name']}" in text
    assert f"{workload['public_bandwidth_mbps']:,.0f} Mbit/s" in text
    top = workload["results"][0]
    assert f"{top['cost_per_million_tokens_cny']:,.2f}" in text
    assert f"Mixed plan: {plan['name']}" in text
    assert f"{plan['elastic_saving_cny']:,.2f}" in text  # money: grouped, two places
    assert f"{plan['total_fixed_cny']:,.2f}" in text and f"{plan['total_elastic_cny']:,.2f}" in text
    # billing models by their names, not their codes
    assert not re.search(r"\b(per_gb|p95)\b", text.split("Serving and mixed plans")[1][:5000])


def test_the_chinese_pdf_names_the_serving_section_in_chinese(served, demo_run, team_a, analyst_a):
    text = _pdf_text(_build(team_a, analyst_a, demo_run, "pdf", language="zh-hans").file.path)
    assert "推理服务与混合方案" in text and "混合方案" in text


def test_the_workbook_has_serving_and_plan_sheets_with_numbers(served, demo_run, team_a, analyst_a):
    wb = load_workbook(_build(team_a, analyst_a, demo_run, "xlsx").file.path)
    assert wb.sheetnames[-2:] == ["Serving", "Mixed plans"]
    ws = wb["Serving"]
    header = [c.value for c in ws[1]]
    rows = [r for r in ws.iter_rows(min_row=2) if r[1].value is not None]
    workload = served["workloads"][0]
    assert len(rows) == len(workload["results"])
    cost = rows[0][header.index("Cost per million tokens (CNY)")]
    assert isinstance(cost.value, float) and cost.number_format == "#,##0.00"
    assert cost.value == pytest.approx(workload["results"][0]["cost_per_million_tokens_cny"])
    plan_cells = {r[header.index("Best billing model")].value for r in rows}
    assert not plan_cells & {"per_gb", "p95", "fixed"}
    months = wb["Mixed plans"]
    mh = [c.value for c in months[1]]
    plan = served["plans"][0]
    month_rows = [r for r in months.iter_rows(min_row=2, values_only=True) if r[1] is not None]
    assert len(month_rows) == len(plan["months"])
    total_fixed = sum(r[mh.index("Total, fixed (CNY)")] for r in month_rows)
    assert total_fixed == pytest.approx(plan["total_fixed_cny"])
    training = [r[mh.index("Training nodes (CNY)")] for r in month_rows]
    assert all(isinstance(v, float | int) for v in training) and training[0] > 0


def test_a_team_without_serving_workloads_gets_no_serving_section(demo_run, team_a, analyst_a):
    assert report_data(run=demo_run).serving is None
    wb = load_workbook(_build(team_a, analyst_a, demo_run, "xlsx").file.path)
    assert "Serving" not in wb.sheetnames


def test_a_serving_section_that_fails_leaves_a_note_not_a_broken_report(
    served, demo_run, team_a, analyst_a, monkeypatch
):
    import reports.selectors

    def broken(*, team):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("injected")

    monkeypatch.setattr(reports.selectors, "serving_report_section", broken)
    text = _pdf_text(_build(team_a, analyst_a, demo_run, "pdf").file.path)
    assert "The serving section could not be computed" in text
    assert "Serving and mixed plans" not in text and "Decision asked for" in text


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
        "NIC speed": "200 Gbit/s", "Fabric": "InfiniBand", "Measured bandwidth (P5)": "194 Gbit/s",
        "Price per node and month": "52,000.00 CNY",
    }  # fmt: skip
    assert dict(second["values"])["Measured bandwidth (P5)"] == "—"
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
    assert len(data.vendors) >= 12 and data.serving is not None
