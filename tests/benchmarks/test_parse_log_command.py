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
