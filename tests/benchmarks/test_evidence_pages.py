"""The run page and the quote page show how the quote's measured figure was derived, and a run
that mixes kinds keeps them apart (real logs from tests/domain/data)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from benchmarks.models import TestRun
from benchmarks.services import benchmark_ingest
from benchmarks.services import test_run_create as run_create
from quotes.models import GpuModel, Quote
from quotes.testing import make_quote, make_vendor

pytestmark = pytest.mark.django_db
DATA = Path(__file__).resolve().parents[1] / "domain" / "data"
IB_400G = DATA / "corpus" / "ib_write_bw" / "ru_cloud_numa_table_only_gbits.txt"
ROCE_ONE_PORT = DATA / "corpus" / "ib_write_bw" / "dgx_spark_roce_q4_gbits.txt"  # 111.7
NCCL_2_HOSTS = DATA / "corpus" / "nccl-tests" / "nccl_skypilot_ray_mpi_prefixed_h200_16rank.txt"


def _run_with(team, user, quote: Quote, paths: list[Path], capture) -> TestRun:  # type: ignore[no-untyped-def]
    run = run_create(team=team, user=user, vendor=quote.vendor, quote=quote, name="evidence")
    for path in paths:
        with capture(execute=True):
            upload = SimpleUploadedFile(path.name, path.read_bytes())
            benchmark_ingest(team=team, user=user, test_run=run, upload=upload)
    return TestRun.objects.get(pk=run.pk)


def _quote(team, user, gpu: str) -> Quote:  # type: ignore[no-untyped-def]
    vendor = make_vendor(team, "IB vendor", fabric="ib", gbps=400)
    return make_quote(
        team, user, vendor, gpu=GpuModel.objects.get(key=gpu), nodes=16,
        nic_gbps=400.0, nics_per_node=8, fabric="ib", price_per_node_month=Decimal("82000"),
    )  # fmt: skip


@pytest.fixture
def quote(team_a, analyst_a) -> Quote:  # type: ignore[no-untyped-def]
    return _quote(team_a, analyst_a, "H800-SXM")


@pytest.fixture
def h200_quote(team_a, analyst_a) -> Quote:  # type: ignore[no-untyped-def]
    return _quote(team_a, analyst_a, "H200-SXM")


def test_run_and_quote_pages_show_the_derivation_and_range(  # type: ignore[no-untyped-def]
    team_a, analyst_a, client_as, quote, django_capture_on_commit_callbacks
):
    run = _run_with(team_a, analyst_a, quote, [IB_400G], django_capture_on_commit_callbacks)
    quote.refresh_from_db()
    assert quote.measured_gbps == pytest.approx(3155.2)
    client = client_as(analyst_a)
    for lang, sentence in (
        ("en", "8 ports × 394 Gbit/s measured on 1 port, not tested together"),
        ("zh-hans", "8 个端口 × 394 Gbit/s（实测 1 个端口，未同时测试）"),
    ):
        client.cookies["django_language"] = lang
        run_page = client.get(reverse("benchmarks:run", args=[run.pk])).content.decode()
        quote_page = client.get(reverse("quotes:detail", args=[quote.pk])).content.decode()
        for page in (run_page, quote_page):
            assert sentence in page
            assert "3,155" in page or "3155" in page  # the per-server figure beside it


def test_a_run_mixing_rdma_and_nccl_keeps_them_apart(  # type: ignore[no-untyped-def]
    team_a, analyst_a, h200_quote, django_capture_on_commit_callbacks
):
    quote = h200_quote  # the nccl-tests log ran on H200s
    run = _run_with(
        team_a, analyst_a, quote, [ROCE_ONE_PORT, NCCL_2_HOSTS], django_capture_on_commit_callbacks
    )
    # Not the pooled P5 of 111.7 and 2,633 ("343 % of line rate"): the RDMA port alone.
    assert run.pairs == 1 and run.tail_p5_gbps == pytest.approx(111.7, abs=0.1)
    assert run.measured_kind == "link"
    assert "run_mixed_kinds" in [n["code"] for n in run.run_notes]
    quote.refresh_from_db()
    # The quote takes the multi-host collective (the strongest evidence): 16 ranks on 2 hosts,
    # every GPU of each server, so its busbw per rank is the server's whole network figure.
    assert quote.measured_kind == "collective"
    assert quote.measured_gbps == pytest.approx(2605.76, abs=0.1)  # out-of-place busbw × 8
    codes = [n["code"] for n in quote.measured_derivation["notes"]]
    assert "evidence.kind_kept_apart" in codes and "evidence.capped" not in codes


RECORDED = DATA / "recorded"


@pytest.mark.parametrize(
    ("names", "pairs", "aggregate"),
    [
        ([f"sequential_pair0_run{k}.json" for k in (1, 2, 3)], 1, (1.80, 1.90)),
        ([f"simultaneous_pair{k}.json" for k in (1, 2, 3, 4)], 4, (3.80, 3.84)),
    ],
)
def test_recorded_runs_upload_as_one_pair_of_repeats_or_four_summed(  # type: ignore[no-untyped-def]
    team_a, analyst_a, quote, django_capture_on_commit_callbacks, names, pairs, aggregate
):
    paths = [RECORDED / name for name in names] + [RECORDED / "udp_b500M_pair0.json"]
    run = _run_with(team_a, analyst_a, quote, paths, django_capture_on_commit_callbacks)
    assert run.pairs == pairs
    assert aggregate[0] < run.aggregate_gbps < aggregate[1]
    assert run.tail_p5_gbps is not None and run.tail_p5_gbps > 0.9  # not the UDP test's 0.47
    assert "evidence.udp_not_capacity" in {n["code"] for n in run.run_notes}
