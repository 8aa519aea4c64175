import pytest

from benchmarks import demo
from benchmarks.models import TestRun

pytestmark = pytest.mark.django_db


def test_the_demo_loader_makes_a_summarised_iperf3_run(
    team_a, analyst_a, vendor_a, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        demo.load(team=team_a, user=analyst_a)
    runs = TestRun.objects.for_team(team_a).order_by("pk")
    assert runs.count() == 2
    iperf = runs.first()
    assert iperf.pairs == 3 and iperf.tail_p5_gbps is not None
