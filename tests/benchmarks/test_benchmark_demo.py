import pytest

from benchmarks import demo
from benchmarks.models import TestRun
from core.models import JobStatus
from quotes import demo as quotes_demo
from quotes.models import Quote
from vendors import demo as vendors_demo

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_quotes(team_a, analyst_a):  # type: ignore[no-untyped-def]
    vendors_demo.load(team=team_a, user=analyst_a)
    quotes_demo.load(team=team_a, user=analyst_a)


def test_the_demo_files_are_small():
    files = [p for spec in demo.RUNS for p in spec.files]
    assert len(files) == 11
    assert all(p.stat().st_size < 10_000 for p in files)


def test_the_demo_runs_measure_the_demo_vendors_quotes_at_plausible_rates(
    team_a, analyst_a, demo_quotes
):
    # No on-commit capture: the demo parses synchronously, as demo_setup needs it to.
    demo.load(team=team_a, user=analyst_a)
    runs = {r.quote.data_centre.network.nic_gbps: r for r in TestRun.objects.for_team(team_a)}
    assert sorted(runs) == [10, 100, 200]
    expected = {10: (3, 8.5, 10), 100: (4, 88, 100), 200: (4, 185, 200)}
    for nic, (pairs, low, high) in expected.items():
        run = runs[nic]
        assert "示例" in run.vendor.name_zh and run.quote.vendor_id == run.vendor_id
        assert run.status == JobStatus.DONE and run.pairs == pairs
        assert all(log.status == JobStatus.DONE for log in run.logs.all())
        assert run.effective_line_rate_gbps == nic
        assert low < run.tail_p5_gbps <= run.p50_gbps < high
        assert run.verdict == "pass", run.verdict_reasons
        quote = Quote.objects.select_related("current_version").get(pk=run.quote_id)
        # The quote's figure is per server: the pairs' per-port P5 × the NICs it quotes.
        nics = quote.current_version.nics_per_node
        assert quote.measured_gbps == pytest.approx(min(run.tail_p5_gbps, nic) * nics)
        assert quote.measured_gbps <= quote.measured_p50_gbps <= nic * nics
        assert quote.measured_kind == "link" and quote.measured_test_run_id == str(run.pk)
        assert quote.measured_ports_tested == pairs
        assert "tested together" in quote.measured_derivation["en"]
    assert runs[200].logs.filter(original_name__contains="pair1").get().result["sizes"]


def test_without_demo_quotes_the_demo_loads_nothing(team_a, analyst_a, vendor_a):
    demo.load(team=team_a, user=analyst_a)
    assert not TestRun.objects.for_team(team_a).exists()
