"""The layout search's speed-ups change no estimate: rank_offers on
llama3_70b_offers.json, on the offers' own size and on 1-12 servers, gives exactly the figures
stored in llama3_70b_expected.json, which the full search prints (pruning and the seed bound
switched off); when the model itself changes, the file is regenerated that way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db
DATA = Path(__file__).parent / "data"
KEYS = ("cost_per_eth", "step_time_s", "eth_per_hour", "job_hours")


def test_the_estimates_are_those_before_the_speed_up(capsys, tmp_path):  # type: ignore[no-untyped-def]
    base = json.loads((DATA / "llama3_70b_offers.json").read_text())
    expected = json.loads((DATA / "llama3_70b_expected.json").read_text())
    for key, rows in expected.items():
        data = dict(base)
        if key != "offer":
            data["workload"] = {"name": "llama3-70b", "nodes": int(key)}
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps(data))
        call_command("rank_offers", str(path))
        got = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
        assert sorted(got) == sorted(rows), key
        for oid, want in rows.items():
            r = got[oid]
            for k in KEYS:
                assert r[k] == pytest.approx(want[k], rel=1e-12), (key, oid, k)
            assert r["model_detail"]["layout"] == want["layout"]
            assert r["model_detail"]["memory"]["total_gb"] == pytest.approx(want["memory_gb"])
