"""List filters by id: another team's id is answered exactly like an id that names nothing."""

import pytest

from benchmarks.models import TestRun
from core.filters import team_path
from vendors.models import DataCentre, Vendor

pytestmark = pytest.mark.django_db

MISSING = 987_654_321


@pytest.mark.parametrize(
    ("url", "param", "own", "other"),
    [
        ("/api/v1/benchmarks/", "test_run", "run_a", "run_b"),
        ("/api/v1/benchmarks/", "vendor", "vendor_a", "vendor_b"),
        ("/api/v1/test-runs/", "vendor", "vendor_a", "vendor_b"),
        ("/api/v1/test-runs/", "data_centre", "dc_a", "dc_b"),
    ],
)
def test_another_teams_id_in_a_filter_is_refused_like_a_missing_id(
    request, api_as, analyst_a, run_a, run_b, url, param, own, other
):  # type: ignore[no-untyped-def]
    objects = {
        "run_a": run_a, "run_b": run_b, "vendor_a": run_a.vendor, "vendor_b": run_b.vendor,
        "dc_a": run_a.vendor.data_centres.first(),
        "dc_b": DataCentre.objects.create(vendor=run_b.vendor, name="乙机房", province="GD"),
    }  # fmt: skip
    api = api_as(analyst_a)
    mine = api.get(url, {param: objects[own].pk})
    assert mine.status_code == 200 and mine.json()["count"] >= (1 if "runs" in url else 0)
    theirs = api.get(url, {param: objects[other].pk})
    missing = api.get(url, {param: MISSING})
    assert missing.status_code == 400 and list(missing.json()) == [param]
    assert (theirs.status_code, theirs.json()) == (missing.status_code, missing.json())


def test_the_refusal_is_in_the_users_language(api_as, analyst_a, run_b):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    en = api.get("/api/v1/test-runs/", {"vendor": run_b.vendor_id}, HTTP_ACCEPT_LANGUAGE="en")
    assert "valid choice" in en.json()["vendor"][0]
    zh = api.get("/api/v1/test-runs/", {"vendor": run_b.vendor_id}, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "valid choice" not in zh.json()["vendor"][0]


def test_team_paths_reach_the_owning_team():  # type: ignore[no-untyped-def]
    from quotes.models import GpuModel
    from sourcing.models import Award

    assert team_path(TestRun) == "team" and team_path(Vendor) == "team"
    assert team_path(DataCentre) == "vendor__team"
    assert team_path(Award) == "rfq__team"
    assert team_path(GpuModel) is None
