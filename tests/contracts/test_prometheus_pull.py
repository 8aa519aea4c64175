"""The Prometheus pull against a real Prometheus scraping a real node_exporter on 127.0.0.1:
pages by time under the point limit, the raw answers kept, windows stored; the real server's
error answer (too many points) failing the pull with its reason and nothing stored."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from contracts.models import DeliveryUpload, DeliveryWindow, PrometheusSource
from contracts.prometheus import pages, prometheus_pull
from contracts.services import contract_servers_set, prometheus_source_set

pytestmark = pytest.mark.django_db
BINARIES = ("prometheus", "prometheus-node-exporter")


def test_pages_never_ask_for_more_points_than_the_limit() -> None:
    for span_s, step in ((0, 60), (59, 60), (86_400 * 90, 60), (3_600 * 7, 1), (10_999, 1)):
        got = pages(1_000.0, 1_000.0 + span_s, step)
        assert got[0][0] == 1_000.0 and got[-1][1] == 1_000.0 + span_s
        assert all((b - a) / step + 1 <= 11_000 for a, b in got)
        assert all(nxt[0] == prev[1] + step for prev, nxt in zip(got, got[1:], strict=False))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - our own 127.0.0.1
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer")


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):  # type: ignore[no-untyped-def]
    missing = [b for b in BINARIES if shutil.which(b) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (Debian packages prometheus and "
                    "prometheus-node-exporter; `scripts/ensure_sysdeps.sh test` installs "
                    "them)")  # fmt: skip
    root: Path = tmp_path_factory.mktemp("prom")
    ne_port, prom_port = _free_port(), _free_port()
    (root / "prometheus.yml").write_text(f"""
global: {{scrape_interval: 1s, evaluation_interval: 1s}}
scrape_configs:
  - job_name: node
    static_configs: [{{targets: ["127.0.0.1:{ne_port}"], labels: {{host: "node-a"}}}}]
    metric_relabel_configs:
      # the loopback is this test's only link: name it like a data port
      - {{source_labels: [device], regex: lo, target_label: device, replacement: eth0}}
""")  # fmt: skip
    procs = [
        subprocess.Popen(["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{ne_port}",
                          "--collector.disable-defaults", "--collector.netdev"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen(["prometheus", f"--config.file={root / 'prometheus.yml'}",
                          f"--storage.tsdb.path={root / 'data'}",
                          f"--web.listen-address=127.0.0.1:{prom_port}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    ]  # fmt: skip
    try:
        base = f"http://127.0.0.1:{prom_port}"
        _wait(f"{base}/-/ready")
        time.sleep(25)  # two dozen scrapes
        yield base
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=10)


def _source(contract, base: str) -> PrometheusSource:  # type: ignore[no-untyped-def]
    contract_servers_set(contract=contract, servers=[{"hostname": "node-a"}])
    return prometheus_source_set(contract=contract, url=base, step_s=1, queries={
        "tx": 'node_network_transmit_bytes_total{device="eth0"}',
        "rx": 'node_network_receive_bytes_total{device="eth0"}', "up": "up"})  # fmt: skip


def test_a_real_prometheus_is_pulled_in_pages_and_kept_raw(prometheus, contract_a, settings):  # type: ignore[no-untyped-def]
    settings.CONTRACTS_PROMETHEUS_MAX_POINTS = 10  # many pages from a few seconds of data
    source = _source(contract_a, prometheus)
    now = timezone.now()
    hour = now.replace(minute=0, second=0, microsecond=0)
    PrometheusSource.objects.filter(pk=source.pk).update(pulled_until=hour)
    assert prometheus_pull(source_id=source.pk, progress=lambda _p: None,
                           now=hour + timedelta(hours=1, minutes=1)) == "done"  # fmt: skip
    upload = DeliveryUpload.objects.get(origin="prometheus")
    raw = upload.file.read()
    assert raw.count(b'"status":"success"') >= 3 * 2  # three queries, several pages each
    windows = DeliveryWindow.objects.filter(upload=upload, host="node-a")
    assert [w.starts_at for w in windows] == [hour]
    w = windows.get()
    assert w.delivered_gbps is not None and w.delivered_gbps >= 0 and w.up_fraction == 1.0
    assert 0 < w.coverage < 1  # seconds of data in one hour
    source.refresh_from_db()
    assert source.pulled_until == hour + timedelta(hours=1)


def test_the_real_servers_too_many_points_answer_fails_the_pull_with_its_reason(
    prometheus, contract_a, settings
):  # type: ignore[no-untyped-def]
    settings.CONTRACTS_PROMETHEUS_MAX_POINTS = 20_000  # above the server's own limit
    source = _source(contract_a, prometheus)
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=6)
    PrometheusSource.objects.filter(pk=source.pk).update(pulled_until=start)
    assert prometheus_pull(source_id=source.pk, progress=lambda _p: None,
                           now=start + timedelta(hours=6)) == "failed"  # fmt: skip
    source.refresh_from_db()
    assert source.status == "failed" and "11,000" in source.error
    assert not DeliveryUpload.objects.exists() and not DeliveryWindow.objects.exists()
    assert source.pulled_until == start  # nothing half-written: the next pull starts there again
