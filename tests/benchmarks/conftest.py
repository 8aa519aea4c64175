from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from benchmarks.services import test_run_create
from vendors.models import DataCentre, NetworkProfile, Vendor

CORPUS = Path(__file__).resolve().parent.parent / "domain" / "data" / "corpus"


def corpus(rel: str) -> Path:
    return CORPUS / rel


def upload(rel: str, name: str | None = None) -> SimpleUploadedFile:
    path = corpus(rel)
    return SimpleUploadedFile(name or path.name, path.read_bytes())


@pytest.fixture
def vendor_a(team_a):  # type: ignore[no-untyped-def]
    v = Vendor.objects.create(team=team_a, name_zh="甲方厂商", name_en="Vendor of A")
    dc = DataCentre.objects.create(vendor=v, name="广州机房", province="GD")
    NetworkProfile.objects.create(data_centre=dc, fabric="tcp", nic_gbps=25, nics_per_node=8)
    return v


@pytest.fixture
def vendor_b(team_b):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_b, name_zh="乙方秘密厂商", name_en="Secret vendor of B")


@pytest.fixture
def run_a(team_a, analyst_a, vendor_a):  # type: ignore[no-untyped-def]
    return test_run_create(
        team=team_a, user=analyst_a, vendor=vendor_a, data_centre=vendor_a.data_centres.first(),
        name="run A",
    )  # fmt: skip


@pytest.fixture
def run_b(team_b, analyst_b, vendor_b):  # type: ignore[no-untyped-def]
    return test_run_create(team=team_b, user=analyst_b, vendor=vendor_b, name="run B")


def long_iperf3(seconds: int, *, rel: str = "iperf3-json/local_3.12_tcp_P4.json") -> bytes:
    """A valid iperf3 -J log of `seconds` one-second intervals, built by repeating the corpus
    log's intervals with shifted times (a long run without a real multi-hour capture)."""
    import json

    data = json.loads(corpus(rel).read_bytes())
    pattern = data["intervals"]
    intervals = []
    for i in range(seconds):
        src = pattern[i % len(pattern)]
        shift = float(i) - src["sum"]["start"]
        row = {
            "streams": [{**s, "start": s["start"] + shift, "end": s["end"] + shift}
                        for s in src["streams"]],
            "sum": {**src["sum"], "start": src["sum"]["start"] + shift,
                    "end": src["sum"]["end"] + shift},
        }  # fmt: skip
        intervals.append(row)
    data["intervals"] = intervals
    for key in ("sum_sent", "sum_received"):
        if key in data["end"]:
            data["end"][key]["end"] = float(seconds)
            data["end"][key]["seconds"] = float(seconds)
    data["start"]["test_start"]["duration"] = seconds
    return json.dumps(data).encode()
