"""The data the training-time model v2 uses: the GPU table in the database
(filled from gpus.json, its values win), quote fields for storage, repair, spares and rails (form,
API and import accept them, bad values get field messages), the vendor's SLA repair time."""

from __future__ import annotations

import importlib
from decimal import Decimal
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.utils import translation

from quotes.forms import QuoteForm
from quotes.importing import quotes_import
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor, make_workload, seed_quotes
from rankings.selectors import ranking_quotes
from rankings.services import rank_snapshot, snapshot_build
from vendors.models import SlaTerms

pytestmark = pytest.mark.django_db


def _fill_migration():  # type: ignore[no-untyped-def]
    # the lead may renumber the migration on merge: find it by its name
    folder = Path(__file__).resolve().parents[2] / "quotes" / "migrations"
    (path,) = folder.glob("*_trainmodel_v2_inputs.py")
    return importlib.import_module(f"quotes.migrations.{path.stem}")


def test_the_migration_fills_the_known_gpus_from_the_model_data_and_keeps_admin_values():
    GpuModel.objects.update(hbm_tbps=None, intra_kind="", efficiency=None, fp8_tflops=None)
    GpuModel.objects.filter(key="A100-SXM4-80GB").update(efficiency=0.5)
    _fill_migration().fill_gpu_rows(django_apps, None)
    h100 = GpuModel.objects.get(key="H100-SXM")
    assert (h100.hbm_tbps, h100.intra_kind, h100.efficiency, h100.fp8_tflops) == (
        3.35,
        "nvlink",
        0.64,
        1979,
    )
    assert GpuModel.objects.get(key="A100-SXM4-80GB").efficiency == 0.5  # the admin's value
    assert GpuModel.objects.get(key="L40S").intra_kind == "pcie"


def _ranked(team, user):  # type: ignore[no-untyped-def]
    workload = make_workload(team)
    snapshot = snapshot_build(workload=workload, quotes=list(ranking_quotes(team=team)), fx={})
    return snapshot, {r.offer_id: r for r in rank_snapshot(snapshot).results}


def test_the_database_gpu_row_is_what_the_model_uses(team_a, analyst_a):
    seed_quotes(team_a, analyst_a)
    _fill_migration().fill_gpu_rows(django_apps, None)
    snapshot, before = _ranked(team_a, analyst_a)
    assert snapshot["gpus"]["A100-SXM4-80GB"]["efficiency"] == 0.64
    GpuModel.objects.filter(key="A100-SXM4-80GB").update(efficiency=0.32)
    snapshot, after = _ranked(team_a, analyst_a)
    assert snapshot["gpus"]["A100-SXM4-80GB"]["efficiency"] == 0.32
    for key, result in after.items():
        assert result.eth_per_hour < before[key].eth_per_hour


def test_quote_fields_and_the_vendors_sla_reach_the_model(team_a, analyst_a):
    fast = make_vendor(team_a, "Fast RoCE", fabric="roce", gbps=100)
    SlaTerms.objects.create(vendor=fast, hw_replacement_hours=Decimal("2"))
    make_quote(team_a, analyst_a, fast, label="sla only")
    make_quote(team_a, analyst_a, fast, label="all given", repair_hours=0.5, spare_nodes=1,
               storage_write_gbyte_s=10.0, rail_optimised=True)  # fmt: skip
    snapshot, results = _ranked(team_a, analyst_a)
    offers = {o["label"]: o for o in snapshot["offers"]}
    assert offers["sla only"]["repair_hours"] == 2.0 and offers["sla only"]["spare_nodes"] is None
    assert offers["all given"]["repair_hours"] == 0.5 and offers["all given"]["rail_optimised"]
    sla, given = (results[offers[k]["id"]].model_detail for k in ("sla only", "all given"))
    assert sla["failures"]["repair_h"] == 2.0 and "repair_hours" not in sla["assumed"]
    assert "storage_gbyte_s" in sla["assumed"] and given["assumed"] == ["architecture"]
    assert given["failures"]["checkpoint_write_s"] == pytest.approx(
        sla["failures"]["checkpoint_write_s"] / 10
    )
    assert given["failures"]["goodput"] > sla["failures"]["goodput"]


def _form(vendor, **over):  # type: ignore[no-untyped-def]
    data = {
        "vendor": vendor.pk, "label": "x", "is_current": "on", "gpu": "A100-SXM4-80GB",
        "gpus_per_node": 8, "nodes": 8, "price_per_node_month": "40000", "currency": "CNY",
        "monthly_fees": "0", "nic_gbps": 100, "nics_per_node": 1, "fabric": "roce",
        "availability": "0.99", "term_months": 12, "trial_days": 0, "setup_fee": 0,
        "storage_tb": 0, "storage_price_tb_month": 0, "public_bandwidth_mbps": 0,
        "bandwidth_billing": "fixed", "bandwidth_price": 0,
    }  # fmt: skip
    data.update(over)
    return QuoteForm(data=data, team=vendor.team)


def test_the_form_accepts_the_model_fields_and_names_impossible_ones(team_a):
    vendor = make_vendor(team_a, "V")
    ok = _form(vendor, repair_hours="3", storage_write_gbyte_s="5", spare_nodes="1",
               rail_optimised="true")  # fmt: skip
    assert ok.is_valid(), ok.errors
    assert ok.cleaned_data["rail_optimised"] is True and ok.cleaned_data["repair_hours"] == 3
    blank = _form(vendor)
    assert blank.is_valid(), blank.errors
    assert blank.cleaned_data["repair_hours"] is None
    assert blank.cleaned_data["rail_optimised"] is None
    with translation.override("zh-hans"):
        bad = _form(vendor, repair_hours="-1", storage_write_gbyte_s="0", spare_nodes="-2")
        assert not bad.is_valid()
        assert {"repair_hours", "storage_write_gbyte_s", "spare_nodes"} <= set(bad.errors)
        assert any("\u4e00" <= ch <= "\u9fff" for ch in bad.errors["repair_hours"][0])


def test_the_api_and_the_import_accept_them(team_a, analyst_a, api_as):
    vendor = make_vendor(team_a, "Imp")
    terms = {"gpu": "A100-SXM4-80GB", "gpus_per_node": 8, "nodes": 8,
             "price_per_node_month": "40000", "nic_gbps": 100, "fabric": "roce",
             "repair_hours": 1.5, "rail_optimised": False}  # fmt: skip
    api = api_as(analyst_a)
    r = api.post("/api/v1/quotes/", {"vendor": vendor.pk, "label": "a", "terms": terms},
                 format="json")  # fmt: skip
    assert r.status_code == 201, r.json()
    assert r.json()["terms"]["repair_hours"] == 1.5 and r.json()["terms"]["rail_optimised"] is False
    bad = {**terms, "storage_write_gbyte_s": -3}
    r = api.post("/api/v1/quotes/", {"vendor": vendor.pk, "label": "b", "terms": bad},
                 format="json")  # fmt: skip
    assert r.status_code == 400 and "storage_write_gbyte_s" in r.json()["terms"]
    head = "vendor,label,gpu,gpus_per_node,nodes,price_per_node_month,nic_gbps,fabric,"
    head += "repair_hours,rail_optimised,storage_write_gbyte_s"
    csv = f"{head}\nImp,c,A100-SXM4-80GB,8,8,40000,100,roce,6,yes,\n".encode()
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=csv)
    assert report.ok, report.errors
    v = Quote.objects.get(label="c").current_version
    assert (v.repair_hours, v.rail_optimised, v.storage_write_gbyte_s) == (6.0, True, None)
    csv = f"{head}\nImp,d,A100-SXM4-80GB,8,8,40000,100,roce,-6,no,\n".encode()
    report = quotes_import(team=team_a, user=analyst_a, name="q.csv", raw=csv)
    assert not report.ok and "repair_hours" in " ".join(report.errors)
    assert not Quote.objects.filter(label="d").exists()
