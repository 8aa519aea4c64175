import json

import pytest
from django.core.management import call_command

from .conftest import corpus


def test_parse_log_prints_one_object_per_file_and_a_bad_file_gets_its_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\x00\x01garbage")
    files = [
        str(corpus("iperf3-json/local_3.12_tcp_P4.json")),
        str(bad),
        str(corpus("iperf3-json/local_3.12_tcp_single.json")),
    ]
    call_command("parse_log", *files)
    out = json.loads(capsys.readouterr().out)
    assert [o["file"] for o in out] == files
    assert (
        out[0]["throughput_gbps"] == pytest.approx(13.332362914, rel=1e-6)
        and out[0]["error"] is None
    )
    assert out[1]["error"]["en"] and out[1]["throughput_gbps"] is None
    assert out[2]["streams"] == 1


def test_parse_log_exits_2_on_a_missing_path(tmp_path):
    with pytest.raises(SystemExit) as exc:
        call_command("parse_log", str(tmp_path / "nope.log"))
    assert exc.value.code == 2


FIDELITY = corpus("iperf3-json").parents[1] / "fidelity"


def test_parse_log_prints_each_direction_and_the_latency_size_table(capsys):
    files = [
        str(FIDELITY / "tcp_bidir.txt"),
        str(corpus("ib_write_lat/cx3_ib_a_percentiles.txt")),
        str(FIDELITY / "nccl_2.18.3_gb10_2node.txt"),
    ]
    call_command("parse_log", *files)
    bidir, latency, nccl = json.loads(capsys.readouterr().out)
    assert [d["label"] for d in bidir["directions"]] == ["forward", "reverse"]
    assert [d["receiver_gbps"] for d in bidir["directions"]] == [
        pytest.approx(0.938),
        pytest.approx(0.948),
    ]
    assert bidir["throughput_gbps"] == pytest.approx(0.938)
    assert bidir["bidir_total_gbps"] == pytest.approx(0.938 + 0.948)
    assert bidir["direction_used"] == "forward"
    assert len(latency["latency_sizes"]) == 23
    assert latency["latency_sizes"][-1]["p999"] == pytest.approx(2335.48)
    assert nccl["avg_busbw_gbps"] == pytest.approx(21.4033 * 8)
    assert nccl["throughput_gbps"] == pytest.approx(22.14 * 8)  # out-of-place busbw


def test_a_plain_call_skips_django_and_prints_the_same_as_the_command(tmp_path, capsys):
    """`manage.py parse_log FILE` runs benchmarks.cli without settings or app registry (its
    start-up was most of a short run); the output equals the management command's."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [str(FIDELITY / "tcp_bidir.json"), str(corpus("ib_write_lat/cx3_ib_a_percentiles.txt"))]
    probe = (
        "import runpy, sys; sys.argv = ['manage.py', 'parse_log', *sys.argv[1:]]\n"
        "try:\n    runpy.run_path('manage.py', run_name='__main__')\n"
        "finally:\n    print(sorted(m for m in sys.modules if m.startswith('django')),"
        " file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    done = subprocess.run(
        [sys.executable, "-c", probe, *files], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.strip() == "[]"  # no django module was imported
    call_command("parse_log", *files)
    assert json.loads(done.stdout) == json.loads(capsys.readouterr().out)
    # The interval arrays are one line each; the rest stays indented.
    line = next(x for x in done.stdout.splitlines() if '"interval_gbps"' in x)
    assert line.startswith('    "interval_gbps": [') and line.endswith("],")
    missing = subprocess.run(
        [sys.executable, "manage.py", "parse_log", str(tmp_path / "nope")],
        cwd=root, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert missing.returncode == 2 and "no such file" in missing.stderr
