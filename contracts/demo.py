"""Demo contract (runs last): a signed contract with 30 days of delivery evidence built from real
recordings (``demo_data/``, written by ``scripts/record_delivery_demo.sh``), one bandwidth breach,
one outage, their credits and a claim pack.

What is real and what is built, said plainly:

- ``kit_full_*.json`` / ``kit_reduced_*.json``: real iperf3 runs over a veth link between two
  network namespaces shaped with tc to 2 Gbit/s and to 1.2 Gbit/s (1.91 and 1.15 Gbit/s
  measured). The demo replays them as the delivery kit's uploads at the month's times (the
  envelope's times; the iperf3 JSON inside keeps its recording time): nightly rounds of all four
  servers, and hourly rounds while gpu-03's link was throttled (the team ran the kit every hour
  once monitoring showed the drop);
- ``prometheus_gpu-01.json``: a real ``query_range`` answer of a real Prometheus scraping a real
  node_exporter on that link during the runs; uploaded as it is;
- the 30-day monitoring export is built here from those recordings: per host, node_exporter
  byte counters whose per-minute rate follows the recorded runs' one-second intervals (busy
  hours at the link's rate, nights at a tenth: an idle job, which the engine calls inconclusive).
"""

from __future__ import annotations

import json
from datetime import datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings
from django.core.files.base import ContentFile
from django.utils import timezone

from core import jobs
from quotes.models import Quote

from .choices import BandwidthSource, UploadKind, UploadOrigin
from .kit import KIT_MAGIC, ring_peer
from .models import ClaimPack, DeliveryEvaluation, DeliveryUpload
from .services import contract_create_from_quote, contract_servers_set, incident_create

DATA = Path(__file__).resolve().parent / "demo_data"
HOSTS = ("gpu-01", "gpu-02", "gpu-03", "gpu-04")
SLOW_HOST = "gpu-03"
DAYS = 30
DROP_DAY, DROP_HOURS = 12, 30  # gpu-03 throttled from day 12, 08:00, for 30 hours
OUTAGE_DAY, OUTAGE_HOURS = 20, 5  # every server down on day 20 from 10:00
SCHEDULE = {
    "availability_bands": [
        {"below_pct": 99.5, "credit_pct": 10}, {"below_pct": 99.0, "credit_pct": 25},
    ],
    "bandwidth": {
        "threshold_fraction": 0.8, "min_duration_minutes": 60, "credit_pct_per_hour": 0.5,
    },
    "latency": None, "overruns": [{"kind": "response", "credit_pct_per_hour": 1.0}],
    "cap_pct": 30.0, "claim_window_days": 30,
}  # fmt: skip


def _recorded(kind: str) -> list[bytes]:
    return [p.read_bytes() for p in sorted(DATA.glob(f"kit_{kind}_*.json"))]


def _interval_rates(runs: list[bytes]) -> list[float]:
    """The recorded runs' one-second rates (bytes/s), for the monitoring export's variation."""
    rates = []
    for raw in runs:
        for interval in json.loads(raw).get("intervals", []):
            rates.append(interval["sum"]["bits_per_second"] / 8)
    return rates


def _envelope(host: str, started: datetime, iperf: bytes) -> bytes:
    finished = started + timedelta(seconds=10)
    head = (f"{KIT_MAGIC}\nhost: {host}\npeer: {ring_peer(host, list(HOSTS))}\n"
            f"started: {started:%Y-%m-%dT%H:%M:%SZ}\nfinished: {finished:%Y-%m-%dT%H:%M:%SZ}\n"
            f"kernel: 6.1.0-demo\ncpus: 128\ngpus: 8\n=== iperf3.json\n")  # fmt: skip
    return head.encode() + iperf + b"\n"


def _kit_rounds(start: datetime) -> list[tuple[datetime, bool]]:
    """(round time in UTC, gpu-03 throttled) for the nightly rounds and the hourly ones."""
    utc = ZoneInfo("UTC")
    drop_from = start + timedelta(days=DROP_DAY, hours=8)
    drop_to = drop_from + timedelta(hours=DROP_HOURS)
    rounds = [(start + timedelta(days=d, hours=2, minutes=5), False) for d in range(DAYS)]
    rounds += [(drop_from + timedelta(hours=h, minutes=20), True) for h in range(DROP_HOURS)]
    return sorted(
        ((t.astimezone(utc), drop_from <= t < drop_to or slow) for t, slow in rounds),
        key=lambda r: r[0],
    )


def _monitoring_export(start: datetime, full: list[float], reduced: list[float]) -> bytes:
    """A 30-day query_range answer (one sample a minute) of transmit counters per host."""
    drop_from = start + timedelta(days=DROP_DAY, hours=8)
    drop_to = drop_from + timedelta(hours=DROP_HOURS)
    outage_from = start + timedelta(days=OUTAGE_DAY, hours=10)
    outage_to = outage_from + timedelta(hours=OUTAGE_HOURS)
    tz = start.tzinfo
    result = []
    t0 = int(start.timestamp())
    for h, host in enumerate(HOSTS):
        values, up, total = [], [], 0.0
        for m in range(DAYS * 1440 + 1):
            t = t0 + 60 * m
            moment = datetime.fromtimestamp(t, tz)
            down = outage_from <= moment < outage_to
            if not down:
                values.append(f'[{t},"{total:.0f}"]')
            up.append(f'[{t},"{0 if down else 1}"]')
            slow = host == SLOW_HOST and drop_from <= moment < drop_to
            pool = reduced if slow else full
            rate = pool[(m * 7 + h * 13) % len(pool)]
            if 1 <= moment.hour < 6:
                rate *= 0.1  # nights: the training job idles
            total += 0 if down else rate * 60
        base = {"instance": f"{host}:9100", "job": "node"}
        tx = {"__name__": "node_network_transmit_bytes_total", "device": "eth0", **base}
        for labels, points in ((tx, values), ({"__name__": "up", **base}, up)):
            result.append(f'{{"metric":{json.dumps(labels)},"values":[{",".join(points)}]}}')
    return ('{"status":"success","data":{"resultType":"matrix","result":[' + ",".join(result)
            + "]}}").encode()  # fmt: skip


def _upload(contract, name: str, content: bytes, kind: str, origin: str) -> DeliveryUpload:  # type: ignore[no-untyped-def]
    import hashlib

    row = DeliveryUpload(contract=contract, kind=kind, origin=origin, original_name=name,
                         size_bytes=len(content), sha256=hashlib.sha256(content).hexdigest(),
                         source_timezone="UTC")  # fmt: skip
    row.file.save(name, ContentFile(content), save=False)
    row.save()
    jobs.run("delivery_read", row.pk)
    return row


def load(*, team, user) -> None:  # type: ignore[no-untyped-def]
    quote = (Quote.objects.for_team(team).filter(current_version__isnull=False)
             .select_related("vendor").order_by("pk").first())  # fmt: skip
    full, reduced = _recorded("full"), _recorded("reduced")
    if quote is None or not full or not reduced or not settings.DEBUG:
        return
    zone = ZoneInfo(settings.TIME_ZONE)
    today = timezone.localdate()
    first = today - timedelta(days=DAYS + 1)
    start = datetime.combine(first, time(), zone)
    contract = contract_create_from_quote(
        team=team, user=user, quote=quote, starts_on=first,
        overrides={"title": "演示合同 Demo contract · 4 servers, links shaped to 2 Gbit/s",
                   "committed_gbps": 1.9, "committed_gbps_source": BandwidthSource.AGREED,
                   "availability_pct": Decimal("99.9"), "response_minutes": 30,
                   "repair_hours": 4.0, "schedule": SCHEDULE, "is_demo": True,
                   "notes": "演示数据 / demo data: see contracts/demo.py for what is recorded"},
    )  # fmt: skip
    contract_servers_set(contract=contract, servers=[
        {"hostname": h, "rack": "R07", "leaf": "leaf-1" if i < 2 else "leaf-2"}
        for i, h in enumerate(HOSTS)])  # fmt: skip
    for k, (at, slow) in enumerate(_kit_rounds(start)):
        for i, host in enumerate(HOSTS):
            # the throttled link slows what gpu-03 sends and what its ring neighbour sends to it
            hit = host == SLOW_HOST or ring_peer(host, list(HOSTS)) == SLOW_HOST
            runs = reduced if slow and hit else full
            _upload(contract, f"kit-{host}-{at:%Y%m%dT%H%M}.txt",
                    _envelope(host, at, runs[(k + i) % len(runs)]), UploadKind.KIT_LOG,
                    UploadOrigin.KIT)  # fmt: skip
    export = _monitoring_export(start, _interval_rates(full), _interval_rates(reduced))
    _upload(contract, "node_exporter_30d.json", export, UploadKind.PROMETHEUS_JSON,
            UploadOrigin.USER)  # fmt: skip
    real = DATA / "prometheus_gpu-01.json"
    _upload(contract, real.name, real.read_bytes(), UploadKind.PROMETHEUS_JSON, UploadOrigin.USER)
    outage = start + timedelta(days=OUTAGE_DAY, hours=10)
    incident_create(contract=contract, data={
        "kind": "outage", "started_at": outage, "ended_at": outage + timedelta(hours=OUTAGE_HOURS),
        "opened_at": outage + timedelta(minutes=5),
        "responded_at": outage + timedelta(hours=1, minutes=35), "repaired_at":
        outage + timedelta(hours=OUTAGE_HOURS), "vendor_ticket": "DEMO-INC-2081",
        "description": "机房上联交换机故障，全部服务器不可达 / uplink switch failure"})  # fmt: skip
    evaluation = DeliveryEvaluation.objects.create(contract=contract, requested_by=user)
    jobs.run("delivery_evaluate", evaluation.pk)
    evaluation.refresh_from_db()
    if evaluation.status == "done":
        pack = ClaimPack.objects.create(contract=contract, evaluation=evaluation,
                                        requested_by=user, language="zh-hans")  # fmt: skip
        jobs.run("claim_pack", pack.pk)
