"""Load test: seed a realistic team, serve it with gunicorn, drive the pages and API with wrk.

    .venv/bin/python scripts/load_test.py [--duration 15] [--workers 3] [--reseed]

The script uses its own PostgreSQL database (``--database-url`` / ``LOAD_DATABASE_URL``, default
``postgres://postgres@127.0.0.1:5432/portal_load``; it must exist), migrates it and seeds one team
with one analyst: 100 vendors (data centres, networks, licences, SLAs), 5,000 quotes with the GPU
keys of the reference table, 500 benchmark logs stored and parsed by the real ingest service
(``benchmarks.services.benchmark_ingest``, files of ``../shared/corpus`` with small variations) and
one finished ranking of 50 quotes, and 100 signed contracts (``seed_contracts``): one of 64
servers over a 90-day term with an hourly window per server (138,240 stored windows, the
Prometheus pulls that brought them as 2,160 uploads, an outage, a bandwidth drop) evaluated by
the real delivery job, and 99 lighter ones that carry a copy of its stored evaluation (what the
contract list shows). Seeding is skipped when the data is there (``--reseed`` redoes it; the
contracts are added to an older seed without them). Then it starts gunicorn (DEBUG off, tasks
in-process) on a free local port, logs in over HTTP, and runs wrk (20 connections, ``--duration``
seconds per target) against a trivial page, the vendor list, the quote list, the quote
comparison, a ranking page, the contract page and list and the API. A generated wrk Lua script
sends the session cookie and prints one JSON line per target, from which this script
computes p50, p95 and the error rate. At the end it reads each gunicorn worker's peak resident
memory (``VmHWM`` in /proc/<pid>/status: the most the process ever held, not a sample). Goal: no
errors, every p95 at most 3 × the trivial page's p95 in the same run and each worker's peak at
most 400 MB; the exit code is 1 when it is missed (after printing everything).

The trivial page (``/ping/page/``) is a portal page with no data of its own: the session, the
user and the team are loaded and the layout with its navigation is rendered, as on every page,
so the ratio shows what each page adds. ``/ping/`` (JSON, no session, no database) is measured
too, as a reference row: the fixed cost of the server, the network and wrk.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# ../shared/corpus beside the checkout; a git worktree (../wt/NAME) looks two levels up.
CORPUS = next(
    (p for p in (ROOT.parent / "shared" / "corpus", ROOT.parent.parent / "shared" / "corpus")
     if p.is_dir()),
    ROOT.parent / "shared" / "corpus",
)  # fmt: skip
VAR = ROOT / "var" / "load"
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/portal_load"
TEAM_SLUG = "load-test"
USERNAME = "load-analyst"
# Only ever used against the throw-away load database on 127.0.0.1.
PASSWORD = "load-test-analyst-2026"  # noqa: S105
N_VENDORS = 100
N_QUOTES = 5000
N_LOGS = 500
LOGS_PER_RUN = 10
RANKED_QUOTES = 50
N_CONTRACTS = 100
CONTRACT_HOSTS = 64
CONTRACT_DAYS = 90
CONTRACT_TITLE = "负载测试合同 Load test contract · 64 servers, 90 days"
RATIO_GOAL = 3.0
WORKER_MEMORY_GOAL_MB = 400
RESULT_MARK = "LOADTEST_RESULT "


# ---------------------------------------------------------------------------------------------
# Environment


def django_env(args: argparse.Namespace) -> dict[str, str]:
    """Settings of both this process (seeding) and gunicorn: production-like, tasks in-process."""
    env = {
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "DATABASE_URL": args.database_url,
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": args.secret_key,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        # Plain HTTP on loopback: no HTTPS redirect, no secure-only cookies, no HSTS.
        "SECURE_SSL_REDIRECT": "false",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "SECURE_HSTS_SECONDS": "0",
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "REDIS_URL": args.redis_url,
        "STATIC_ROOT": str(VAR / "static"),
        "MEDIA_ROOT": str(VAR / "uploads"),
        "DB_CONN_MAX_AGE": str(args.conn_max_age),
        "LOG_LEVEL": "WARNING",
    }
    return env


# The portal's modules are imported inside the functions below, after setup_django(): its
# settings (database, cache) come from the arguments, and models cannot load before django.setup().
def setup_django(args: argparse.Namespace) -> None:
    os.environ.update(django_env(args))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


# ---------------------------------------------------------------------------------------------
# Seeding

CITIES = (
    ("北京", "Beijing", "11"),
    ("上海", "Shanghai", "31"),
    ("广州", "Guangzhou", "44"),
    ("深圳", "Shenzhen", "44"),
    ("杭州", "Hangzhou", "33"),
    ("成都", "Chengdu", "51"),
    ("贵阳", "Guiyang", "52"),
    ("乌兰察布", "Ulanqab", "15"),
    ("庆阳", "Qingyang", "62"),
    ("中卫", "Zhongwei", "64"),
)
WORDS = (("智算", "AI Compute"), ("云擎", "Cloud Engine"), ("算力", "Compute Power"),
         ("星河", "Galaxy"), ("数港", "Data Harbour"))  # fmt: skip
# (fabric, NIC Gbit/s, NICs per node) of the training networks the vendors run.
NETWORKS = (
    ("tcp", 10, 1), ("tcp", 25, 2), ("roce", 25, 2), ("roce", 100, 4), ("roce", 200, 8),
    ("ib", 100, 4), ("ib", 200, 4), ("ib", 400, 8),
)  # fmt: skip
# GPU key -> price per node and month (CNY, 8 GPUs) around which the quotes vary.
GPU_PRICES = {
    "H100-SXM": 98000, "H800-SXM": 82000, "H200-SXM": 118000, "H20": 36000,
    "H100-PCIe": 70000, "A100-SXM4-80GB": 45000, "A100-SXM4-40GB": 36000,
    "A800-SXM4-80GB": 43000, "L40S": 26000, "RTX4090": 12000, "Ascend910B": 40000,
}  # fmt: skip
# Benchmark families: runs mix files of one family only (as one test run would).
FAMILIES = {
    "tcp": ("iperf3-json", "iperf3-text"),
    "roce": ("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_write_lat"),
    "ib": ("ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_read_lat", "nccl-tests"),
}


def seed_present() -> bool:
    from accounts.models import Team
    from benchmarks.models import BenchmarkLog
    from core.models import JobStatus
    from quotes.models import Quote
    from rankings.models import RankingRun

    team = Team.objects.filter(slug=TEAM_SLUG).first()
    return bool(
        team
        and Quote.objects.filter(team=team).count() >= N_QUOTES
        and BenchmarkLog.objects.filter(team=team, is_archive=False).count() >= N_LOGS
        and RankingRun.objects.filter(team=team, status=JobStatus.DONE).exists()
    )


def contracts_present() -> bool:
    from accounts.models import Team
    from contracts.models import Contract
    from core.models import JobStatus

    team = Team.objects.filter(slug=TEAM_SLUG).first()
    return bool(
        team
        and Contract.objects.filter(team=team).count() >= N_CONTRACTS
        and Contract.objects.filter(
            team=team, title=CONTRACT_TITLE, evaluations__status=JobStatus.DONE
        ).exists()
    )


def delete_team_data() -> None:
    from django.apps import apps

    from accounts.models import Team

    team = Team.objects.filter(slug=TEAM_SLUG).first()
    if team is None:
        return
    for label in ("contracts", "sourcing", "serving", "reports", "rankings", "benchmarks", "quotes",
                  "vendors"):  # fmt: skip
        for model in reversed(list(apps.get_app_config(label).get_models())):
            if any(f.name == "team" for f in model._meta.fields):
                model.objects.filter(team=team).delete()
    team.delete()
    shutil.rmtree(VAR / "uploads", ignore_errors=True)


def ensure_user():  # type: ignore[no-untyped-def]
    from django.contrib.auth import get_user_model

    from accounts.choices import Role
    from accounts.models import Membership, Team

    team, _ = Team.objects.get_or_create(
        slug=TEAM_SLUG, defaults={"name": "负载测试团队 Load test team"}
    )
    user, _ = get_user_model().objects.get_or_create(username=USERNAME)
    user.set_password(PASSWORD)
    user.save()
    Membership.objects.update_or_create(user=user, defaults={"team": team, "role": Role.ANALYST})
    return team, user


def seed_vendors(team, rng: random.Random):  # type: ignore[no-untyped-def]
    from datetime import date

    from simple_history.utils import bulk_create_with_history

    from domain.credentials import credit_code_check_char
    from vendors.models import DataCentre, Licence, NetworkProfile, SlaTerms, Vendor
    from vendors.services import vendor_refresh_findings

    vendors = []
    for i in range(N_VENDORS):
        zh_city, en_city, province = CITIES[i % len(CITIES)]
        zh_word, en_word = WORDS[i % len(WORDS)]
        body = f"91{province}0100MA{i:07d}"
        vendors.append(
            Vendor(
                team=team,
                name_zh=f"{zh_city}{zh_word}科技有限公司（负载 {i:03d}）",
                name_en=f"{en_city} {en_word} Technology Co., Ltd. (load {i:03d})",
                short_name=f"{zh_word}{i:03d}",
                credit_code=body + credit_code_check_char(body),
                registered_capital_cny=Decimal(rng.choice([10, 50, 100, 500, 2000])) * 10**6,
                founded_year=rng.randint(2005, 2023),
                home_province=province,
                services=rng.sample(["idc", "gpu_rental", "cloud", "bare_metal"], 2),
            )
        )
    vendors = bulk_create_with_history(vendors, Vendor, batch_size=500)
    vendors = list(Vendor.objects.filter(team=team).order_by("pk"))
    dcs, nets, licences, slas = [], [], [], []
    for i, vendor in enumerate(vendors):
        for j in range(1 + i % 3):
            zh_city, en_city, province = CITIES[(i + j * 3) % len(CITIES)]
            dcs.append(
                DataCentre(
                    vendor=vendor,
                    name=f"{zh_city}{j + 1}号机房 / {en_city} DC{j + 1}",
                    city=zh_city,
                    province=province,
                    ownership=rng.choice(["self_operated", "leased", "re_leased", "unknown"]),
                    power_per_rack_kw=Decimal(rng.choice([12, 20, 30, 45])),
                    tier=rng.choice(["T3", "T3+", "T4", ""]),
                )
            )
        if i % 10 < 7:
            licences.append(
                Licence(
                    vendor=vendor,
                    number=f"B1-2018{i:04d}",
                    business_codes=["B11", "B12"],
                    issuer_scope="national",
                    coverage_regions=["national"],
                    valid_from=date(2018, 1, 1),
                    valid_until=date(2023 + i % 8, 12, 31),
                    state=rng.choice(["claimed", "verified"]),
                )
            )
        slas.append(
            SlaTerms(
                vendor=vendor,
                availability=Decimal(rng.choice(["0.99", "0.995", "0.999"])),
                response_minutes=rng.choice([15, 30, 60]),
                bandwidth_in_contract=rng.choice([True, False, None]),
            )
        )
    DataCentre.objects.bulk_create(dcs, batch_size=500)
    for k, dc in enumerate(DataCentre.objects.filter(vendor__team=team).order_by("pk")):
        fabric, gbps, nics = NETWORKS[k % len(NETWORKS)]
        nets.append(
            NetworkProfile(
                data_centre=dc,
                fabric=fabric,
                pfc=True if fabric == "roce" and k % 4 else None,
                ecn=True if fabric == "roce" and k % 4 else None,
                topology="spine_leaf" if k % 5 else "three_tier",
                mgmt_separated=bool(k % 3),
                nic_gbps=Decimal(gbps),
                nics_per_node=nics,
                rack_uplink_gbps=Decimal(gbps * nics * 2),
                servers_per_rack=4,
            )
        )
    NetworkProfile.objects.bulk_create(nets, batch_size=500)
    Licence.objects.bulk_create(licences, batch_size=500)
    SlaTerms.objects.bulk_create(slas, batch_size=500)
    for vendor in vendors:
        vendor_refresh_findings(vendor=vendor)
    return vendors


def seed_quotes(team, user, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    from quotes.models import GpuModel, Quote, QuoteVersion
    from quotes.validation import quote_version_clean
    from vendors.models import DataCentre

    gpus = {g.key: g for g in GpuModel.objects.all()}
    keys = [k for k in GPU_PRICES if k in gpus] or list(gpus)
    dcs = list(DataCentre.objects.filter(vendor__team=team).select_related("network", "vendor"))
    by_vendor: dict[int, list] = {}  # type: ignore[type-arg]
    for dc in dcs:
        by_vendor.setdefault(dc.vendor_id, []).append(dc)
    vendor_ids = sorted(by_vendor)
    quotes, terms = [], []
    for i in range(N_QUOTES):
        dc = rng.choice(by_vendor[vendor_ids[i % len(vendor_ids)]])
        net = dc.network
        key = rng.choice(keys)
        nodes = rng.choice([1, 2, 4, 8, 8, 16, 32, 64])
        price = Decimal(GPU_PRICES.get(key, 40000)) * Decimal(rng.uniform(0.8, 1.25))
        label = f"{nodes}×8 {key} · {net.nics_per_node}×{int(net.nic_gbps)}G {net.fabric} #{i}"
        quotes.append(
            Quote(
                team=team,
                vendor=dc.vendor,
                data_centre=dc,
                label=label,
                is_current=i % 10 != 0,
            )
        )
        foreign = i % 25 == 0
        terms.append(
            {
                "gpu": gpus[key],
                "gpus_per_node": 8,
                "nodes": nodes,
                "price_per_node_month": (price / 7 if foreign else price).quantize(Decimal("1")),
                "currency": "USD" if foreign else "CNY",
                "fx_to_cny": Decimal("7.1") if foreign else None,
                "monthly_fees": Decimal(rng.choice([0, 1000, 3000, 5000])),
                "nic_gbps": float(net.nic_gbps),
                "nics_per_node": net.nics_per_node,
                "fabric": net.fabric,
                "rack_uplink_gbps": float(net.rack_uplink_gbps),
                "servers_per_rack": net.servers_per_rack,
                "availability": Decimal(rng.choice(["0.99", "0.995", "0.999"])),
                "term_months": rng.choice([3, 6, 12, 24]),
                "trial_days": rng.choice([0, 3, 7]),
                "setup_fee": Decimal(rng.choice([0, 0, 20000])),
                "storage_tb": Decimal(rng.choice([0, 50, 200])),
                "storage_price_tb_month": Decimal(rng.choice([0, 150, 300])),
                "public_bandwidth_mbps": rng.choice([0, 100, 500]),
                "bandwidth_price": Decimal(rng.choice([0, 25, 60])),
                "notes": "负载测试数据 / load test data",
                "created_by": user,
            }
        )
    Quote.objects.bulk_create(quotes, batch_size=1000)
    versions = []
    for quote, data in zip(quotes, terms, strict=True):
        version = QuoteVersion(quote=quote, number=1, **data)
        quote_version_clean(version)  # the same rules as the form and the API
        versions.append(version)
        if quote.pk % 7 == 0:  # some quotes were edited once: a second version
            versions.append(
                QuoteVersion(
                    quote=quote,
                    number=2,
                    **{**data, "price_per_node_month": data["price_per_node_month"] * 95 / 100},
                )
            )
    QuoteVersion.objects.bulk_create(versions, batch_size=1000)
    latest = {v.quote_id: v for v in versions}  # number 2 comes after number 1
    for quote in quotes:
        quote.current_version = latest[quote.pk]
    Quote.objects.bulk_update(quotes, ["current_version"], batch_size=1000)


@dataclass(frozen=True)
class CorpusFile:
    family: str
    path: Path


def corpus_files() -> dict[str, list[CorpusFile]]:
    out: dict[str, list[CorpusFile]] = {}
    for directory in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        files = sorted(p for p in directory.iterdir() if p.is_file())
        out[directory.name] = [CorpusFile(directory.name, p) for p in files]
    if not out:
        raise SystemExit(f"no benchmark corpus under {CORPUS}")
    return out


def seed_benchmarks(team, user, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    """500 logs in 50 concurrent test runs, each stored and parsed by the real services."""
    from django.core.files.base import ContentFile
    from django.db import transaction

    from benchmarks.services import benchmark_ingest, test_run_create
    from quotes.models import Quote

    corpus = corpus_files()
    quotes = list(
        Quote.objects.filter(team=team, is_current=True, data_centre__isnull=False)
        .select_related("vendor", "data_centre__network")
        .order_by("pk")
    )
    used: dict[Path, int] = {}
    n_runs = N_LOGS // LOGS_PER_RUN
    for r in range(n_runs):
        quote = quotes[(r * len(quotes)) // n_runs]
        fabric = quote.data_centre.network.fabric
        pool = [f for d in FAMILIES[fabric] for f in corpus.get(d, [])]
        run = test_run_create(
            team=team, user=user, vendor=quote.vendor, data_centre=quote.data_centre,
            quote=quote, name=f"负载测试 {r:02d} · {fabric} / load test run {r:02d}",
        )  # fmt: skip
        # One transaction per run: every log is stored first, then parsed (tasks run
        # in-process after the commit), and the run is summarised once, by its last log.
        with transaction.atomic():
            for k in range(LOGS_PER_RUN):
                item = pool[(r + k) % len(pool)]
                n = used[item.path] = used.get(item.path, 0) + 1
                # The same tool output with n trailing newlines: another file (another SHA-256)
                # that parses to the same figures.
                data = item.path.read_bytes() + b"\n" * n
                name = f"pair{k + 1:02d}_{item.path.name}"
                benchmark_ingest(
                    team=team, user=user, test_run=run, upload=ContentFile(data, name=name)
                )


def seed_ranking(team, user):  # type: ignore[no-untyped-def]
    from core.models import JobStatus
    from quotes.models import Quote
    from quotes.presets import PRESETS, preset_data
    from quotes.services import workload_create
    from rankings.models import RankingRun
    from rankings.services import ranking_start

    for key in PRESETS:
        workload = workload_create(team=team, data=preset_data(key))
        if key == "pretrain-7b":
            chosen = workload
    current = list(
        Quote.objects.filter(team=team, is_current=True, current_version__nodes__gte=8)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    step = max(1, len(current) // RANKED_QUOTES)
    ids = current[::step][:RANKED_QUOTES]
    run = ranking_start(
        team=team, user=user, workload=chosen, quotes=list(Quote.objects.filter(pk__in=ids)),
        label="负载测试排名 / load test ranking",
    )  # fmt: skip
    run = RankingRun.objects.get(pk=run.pk)  # computed in-process (tasks run eagerly)
    if run.status != JobStatus.DONE:
        raise SystemExit(f"the seeded ranking did not finish: {run.status} {run.error}")
    return run


def delete_contracts(team) -> None:  # type: ignore[no-untyped-def]
    from django.apps import apps

    for model in reversed(list(apps.get_app_config("contracts").get_models())):
        if any(f.name == "team" for f in model._meta.fields):
            model.objects.filter(team=team).delete()


def seed_contracts(team, user, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    """One contract of ``CONTRACT_HOSTS`` servers over ``CONTRACT_DAYS`` days, as a team pulling
    its Prometheus every hour would have it: per server an hourly window (delivered Gbit/s
    around 96% of the 400 committed, one server's link at half for 30 hours, every server down
    for 3 hours: one outage incident), the 2,160 pulls as uploads; evaluated by the real job
    (``delivery_evaluate``: the engine over the stored windows, its report stored). Then 99
    contracts of other vendors whose latest evaluation is a copy of that one's (figures varied):
    the list's rows. No file is written (the pages never open one)."""
    from datetime import UTC, date, datetime, timedelta

    from contracts.models import Contract, DeliveryEvaluation, DeliveryUpload, DeliveryWindow
    from contracts.services import contract_create, contract_servers_set, incident_create
    from core import jobs
    from core.models import JobStatus
    from vendors.models import Vendor

    schedule = {
        "availability_bands": [{"below_pct": 99.5, "credit_pct": 10},
                               {"below_pct": 99.0, "credit_pct": 25}],
        "bandwidth": {"threshold_fraction": 0.8, "min_duration_minutes": 60,
                      "credit_pct_per_hour": 0.5},
        "latency": None, "overruns": [{"kind": "response", "credit_pct_per_hour": 1.0}],
        "cap_pct": 30.0, "claim_window_days": 30,
    }  # fmt: skip
    vendors = list(Vendor.objects.filter(team=team).order_by("pk")[:N_CONTRACTS])
    today = date.today()
    first = today - timedelta(days=CONTRACT_DAYS)
    start = datetime(first.year, first.month, first.day, tzinfo=UTC)
    contract = contract_create(team=team, user=user, vendor=vendors[0], data={
        "title": CONTRACT_TITLE, "starts_on": first, "ends_on": today,
        "monthly_fee": Decimal("6400000"), "currency": "CNY", "committed_gbps": 400.0,
        "availability_pct": Decimal("99.9"), "response_minutes": 30, "repair_hours": 4.0,
        "schedule": schedule, "notes": "负载测试数据 / load test data",
    })  # fmt: skip
    hosts = [f"gpu-{i:03d}" for i in range(1, CONTRACT_HOSTS + 1)]
    contract_servers_set(contract=contract, servers=[
        {"hostname": h, "rack": f"R{i // 8:02d}", "leaf": f"leaf-{i // 16}"}
        for i, h in enumerate(hosts)])  # fmt: skip
    hours = CONTRACT_DAYS * 24
    uploads = DeliveryUpload.objects.bulk_create(
        [DeliveryUpload(contract=contract, kind="prometheus_json", origin="prometheus",
                        file=f"contracts/team-{team.pk}/load/pull-{h:04d}.json",
                        original_name=f"prometheus-{start + timedelta(hours=h):%Y%m%dT%H}.json",
                        size_bytes=64 * 4 * 61 * 40, sha256=f"{h:064x}", status=JobStatus.DONE,
                        progress=100, window_count=CONTRACT_HOSTS, source_timezone="UTC",
                        uploaded_at=start + timedelta(hours=h + 1, minutes=2))
         for h in range(hours)], batch_size=1000)  # fmt: skip
    slow_from, slow_hours = 40 * 24 + 8, 30  # gpu-017 at half from day 40, 08:00
    down_from, down_hours = 61 * 24 + 10, 3  # every server down on day 61 from 10:00
    batch: list[DeliveryWindow] = []
    for h, upload in enumerate(uploads):
        at = start + timedelta(hours=h)
        down = down_from <= h < down_from + down_hours
        for host in hosts:
            slow = host == "gpu-017" and slow_from <= h < slow_from + slow_hours
            gbps = None if down else 400.0 * (0.5 if slow else rng.uniform(0.93, 0.99))
            batch.append(DeliveryWindow(
                contract=contract, upload=upload, origin=f"upload:{upload.pk}",
                kind="kit" if slow else "monitoring", saturating=slow, samples=60, host=host,
                starts_at=at, seconds=3600, delivered_gbps=gbps,
                up_fraction=0.0 if down else 1.0, coverage=1.0))  # fmt: skip
        if len(batch) >= 20000:
            DeliveryWindow.objects.bulk_create(batch, batch_size=5000)
            batch = []
    DeliveryWindow.objects.bulk_create(batch, batch_size=5000)
    outage = start + timedelta(hours=down_from)
    incident_create(contract=contract, data={
        "kind": "outage", "started_at": outage, "ended_at": outage + timedelta(hours=down_hours),
        "opened_at": outage + timedelta(minutes=4), "responded_at": outage + timedelta(minutes=50),
        "repaired_at": outage + timedelta(hours=down_hours),
        "vendor_ticket": "LOAD-INC-0001"})  # fmt: skip
    evaluation = DeliveryEvaluation.objects.create(contract=contract, requested_by=user)
    jobs.run("delivery_evaluate", evaluation.pk)
    evaluation.refresh_from_db()
    if evaluation.status != JobStatus.DONE:
        raise SystemExit(f"the seeded contract's evaluation did not finish: {evaluation.error}")
    others = Contract.objects.bulk_create([
        Contract(team=team, vendor=v, created_by=user, title=f"负载测试合同 {i:03d} / load {i:03d}",
                 starts_on=first + timedelta(days=i % 30), ends_on=today + timedelta(days=300),
                 monthly_fee=Decimal(800000 + 1000 * i), currency="CNY",
                 committed_gbps=rng.choice([100.0, 200.0, 400.0]), schedule=schedule)
        for i, v in enumerate(vendors[1:], 1)])  # fmt: skip
    DeliveryEvaluation.objects.bulk_create([
        DeliveryEvaluation(contract=c, status=JobStatus.DONE, progress=100,
                           computed_at=evaluation.computed_at, report=evaluation.report,
                           inputs_stamp=evaluation.inputs_stamp,
                           delivered_ratio=round(rng.uniform(0.6, 1.0), 4),
                           breach_count=rng.choice([0, 0, 1, 2]),
                           credit_total=Decimal(rng.choice([0, 0, 12000, 48000])),
                           no_data_hours=evaluation.no_data_hours,
                           measured_hours=evaluation.measured_hours)
        for c in others], batch_size=50)  # fmt: skip


def seed(args: argparse.Namespace) -> None:
    from django.core.management import call_command
    from django.db import transaction

    t0 = time.monotonic()
    call_command("migrate", interactive=False, verbosity=0)
    if not args.reseed and seed_present():
        team, user = ensure_user()
        if not contracts_present():
            delete_contracts(team)
            seed_contracts(team, user, random.Random(11))
            print(f"seed: {N_CONTRACTS} contracts in {time.monotonic() - t0:.1f} s", flush=True)
        analyse()
        print(f"seed: data already present ({time.monotonic() - t0:.1f} s; --reseed redoes it)")
        return
    delete_team_data()
    rng = random.Random(7)
    with transaction.atomic():
        team, user = ensure_user()
        seed_vendors(team, rng)
        seed_quotes(team, user, rng)
    t1 = time.monotonic()
    print(f"seed: {N_VENDORS} vendors, {N_QUOTES} quotes in {t1 - t0:.1f} s", flush=True)
    seed_benchmarks(team, user, rng)
    t2 = time.monotonic()
    print(f"seed: {N_LOGS} benchmark logs ingested and parsed in {t2 - t1:.1f} s", flush=True)
    seed_ranking(team, user)
    t3 = time.monotonic()
    print(f"seed: ranking of {RANKED_QUOTES} quotes in {t3 - t2:.1f} s", flush=True)
    seed_contracts(team, user, random.Random(11))
    print(f"seed: {N_CONTRACTS} contracts in {time.monotonic() - t3:.1f} s", flush=True)
    analyse()


def analyse() -> None:
    """What autovacuum does on a production database soon after a bulk load, done here because
    it may be off (it is on this project's development machines): planner statistics for the
    loaded tables (without them PostgreSQL plans the list queries for empty tables) and the
    dead row versions of the seed's updates (each quote is written twice: created, then given
    its current version) cleared, with the visibility map that lets a count read the index.
    Run before every measurement: earlier runs leave sessions and their updates behind."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")


def targets() -> list[tuple[str, str]]:
    """(name, path) of every target; the first is the trivial baseline page."""
    from accounts.models import Team
    from contracts.models import Contract
    from quotes.models import Quote
    from rankings.models import RankingRun

    team = Team.objects.get(slug=TEAM_SLUG)
    run = RankingRun.objects.filter(team=team).order_by("-pk").first()
    contract = Contract.objects.filter(team=team, title=CONTRACT_TITLE).order_by("-pk").first()
    assert contract is not None, "no seeded contract"
    picked: list[int] = []  # six distinct current quotes, two from each of three vendors
    vendors = (
        Quote.objects.filter(team=team).order_by("vendor_id").values_list("vendor_id", flat=True)
    ).distinct()
    for vendor_id in vendors:
        ids = Quote.objects.filter(team=team, vendor_id=vendor_id, is_current=True)
        picked += list(ids.order_by("pk").values_list("pk", flat=True)[:2])
        if len(picked) >= 6:
            break
    assert len(set(picked)) == len(picked) >= 6, picked
    compare = "/quotes/compare/?" + urllib.parse.urlencode([("q", pk) for pk in picked])
    return [
        ("trivial page (baseline)", "/ping/page/"),
        ("bare ping (reference)", "/ping/"),
        ("vendor list", "/vendors/"),
        ("quote list", "/quotes/"),
        ("quote compare (6 quotes)", compare),
        ("ranking page", f"/rankings/{run.pk}/"),
        ("contract page (64 x 90 d)", f"/contracts/{contract.pk}/"),
        ("contract list (100)", "/contracts/"),
        ("API quotes list", "/api/v1/quotes/"),
        ("API vendors list", "/api/v1/vendors/"),
        ("API ranking detail", f"/api/v1/rankings/{run.pk}/"),
        ("API rankings list", "/api/v1/rankings/"),
    ]


# ---------------------------------------------------------------------------------------------
# Server, login and wrk


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - open for the server's life
            prefix="load-gunicorn-", suffix=".log", delete=False
        )

    def env(self) -> dict[str, str]:
        return {**os.environ, **django_env(self.args)}

    def collectstatic(self) -> None:
        """Collect (and compress) the static files once; again only when a source changed."""
        stamp = VAR / "static" / ".load-fingerprint"
        fingerprint = static_fingerprint()
        if stamp.exists() and stamp.read_text() == fingerprint:
            return
        t0 = time.monotonic()
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
            cwd=ROOT, env=self.env(), check=True,
        )  # fmt: skip
        stamp.write_text(fingerprint)
        print(f"collectstatic: {time.monotonic() - t0:.0f} s", flush=True)

    def start(self) -> None:
        cmd = [
            sys.executable, "-m", "gunicorn", "portal.wsgi:application",
            "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.args.workers),
            "--timeout", "120", "--graceful-timeout", "10", "--access-logfile", "-",
            "--log-level", "warning",
        ]  # fmt: skip
        access = open(os.devnull, "wb")  # noqa: SIM115 - kept open for the server's life
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=self.env(), stdout=access, stderr=self.log, start_new_session=True
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(
                    f"gunicorn exited with {self.proc.returncode}; see {self.log.name}"
                )
            try:
                with urllib.request.urlopen(self.base + "/health/", timeout=2) as r:  # noqa: S310
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.3)
        raise SystemExit(f"gunicorn did not answer /health/ within 60 s; see {self.log.name}")

    def worker_peaks(self) -> list[tuple[int, float, float]]:
        """(pid, peak MB, current MB) of each live worker (the master's child processes)."""
        if self.proc is None:
            return []
        out = []
        for pid in _children(self.proc.pid):
            status = _proc_status(pid)
            if "VmHWM" in status:
                out.append((pid, status["VmHWM"] / 1024, status.get("VmRSS", 0) / 1024))
        return sorted(out)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)  # gunicorn: graceful shutdown of master and workers
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def _children(parent: int) -> list[int]:
    """The pids whose parent is `parent` (from /proc/<pid>/stat; Linux)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after its ")"
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            found.append(int(entry.name))
    return found


def _proc_status(pid: int) -> dict[str, int]:
    """The kB figures of /proc/<pid>/status (VmHWM: peak resident set; VmRSS: current)."""
    out = {}
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        name, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            out[name] = int(value.split()[0])
    return out


def static_fingerprint() -> str:
    """Name, size and modification time of every static source file, hashed."""
    import hashlib

    from django.contrib.staticfiles.finders import get_finders

    digest = hashlib.sha256()
    for finder in get_finders():
        for path, storage in finder.list([]):
            st = os.stat(storage.path(path))
            digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


def login(base: str) -> str:
    """Log in through the login form (CSRF token included); the Cookie header to send."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect)
    with opener.open(base + "/login/", timeout=10) as r:
        page = r.read().decode()
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if match is None:
        raise SystemExit("no CSRF token in the login form")
    body = urllib.parse.urlencode(
        {"username": USERNAME, "password": PASSWORD, "csrfmiddlewaretoken": match.group(1)}
    ).encode()
    request = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only
        base + "/login/", data=body, headers={"Referer": base}
    )
    try:
        opener.open(request, timeout=10)
        raise SystemExit("login failed: the form came back instead of a redirect")
    except urllib.error.HTTPError as exc:
        if exc.code != 302:
            raise SystemExit(f"login failed: HTTP {exc.code}") from exc
    cookies = {c.name: c.value for c in jar}
    if "sessionid" not in cookies:
        raise SystemExit("login failed: no session cookie")
    return "; ".join(f"{k}={v}" for k, v in cookies.items())


def preflight(base: str, cookie: str, path: str) -> str:
    """One request as wrk will send it: must be a 200 (a redirect to the login page is not)."""
    request = urllib.request.Request(base + path, headers={"Cookie": cookie})  # noqa: S310
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=60) as r:
            r.read()
            return "" if r.status == 200 else f"HTTP {r.status}"
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"


LUA = """
wrk.headers["Cookie"] = %(cookie)s
wrk.headers["Accept-Language"] = "zh-hans"

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '%(mark)s{"requests": %%d, "duration_us": %%d, "p50_us": %%.0f, "p95_us": %%.0f, '
    .. '"p99_us": %%.0f, "max_us": %%.0f, "non_2xx_3xx": %%d, "connect": %%d, "read": %%d, '
    .. '"write": %%d, "timeout": %%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, e.status, e.connect, e.read, e.write, e.timeout))
end
"""


def run_wrk(args: argparse.Namespace, url: str, lua: Path, duration: float) -> dict:  # type: ignore[type-arg]
    cmd = [
        args.wrk, "-t", str(args.threads), "-c", str(args.connections),
        "-d", f"{duration:g}s", "--timeout", "30s", "-s", str(lua), url,
    ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 120)
    for line in out.stdout.splitlines():
        if line.startswith(RESULT_MARK):
            return json.loads(line[len(RESULT_MARK) :])
    raise SystemExit(f"wrk gave no result line (exit {out.returncode}):\n{out.stdout}{out.stderr}")


@dataclass
class Row:
    name: str
    path: str
    requests: int
    p50_ms: float
    p95_ms: float
    errors: int
    note: str = ""

    @property
    def error_rate(self) -> float:
        return self.errors / max(1, self.requests)


def measure(
    args: argparse.Namespace, base: str, cookie: str, plan: list[tuple[str, str]]
) -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="load-wrk-") as tmp:
        lua = Path(tmp) / "session.lua"
        lua.write_text(LUA % {"cookie": json.dumps(cookie), "mark": RESULT_MARK})
        lua.chmod(0o600)
        for name, path in plan:
            problem = preflight(base, cookie, path)
            run_wrk(args, base + path, lua, min(2.0, args.duration))  # warm-up, not counted
            r = run_wrk(args, base + path, lua, args.duration)
            socket_errors = r["connect"] + r["read"] + r["write"] + r["timeout"]
            row = Row(
                name=name, path=path, requests=r["requests"], p50_ms=r["p50_us"] / 1000,
                p95_ms=r["p95_us"] / 1000, errors=r["non_2xx_3xx"] + socket_errors,
                note=f"preflight {problem}" if problem else "",
            )  # fmt: skip
            if problem:
                row.errors = max(row.errors, 1)
            rows.append(row)
            print(
                f"  {name}: {row.requests} requests, p50 {row.p50_ms:.1f} ms, "
                f"p95 {row.p95_ms:.1f} ms, errors {row.errors}"
                f" (non-2xx/3xx {r['non_2xx_3xx']}, socket {socket_errors}) {row.note}",
                flush=True,
            )
    return rows


def report_memory(peaks: list[tuple[int, float, float]]) -> bool:
    print()
    if not peaks:
        print("worker memory: not readable (no /proc): not judged")
        return True
    for pid, peak, now in peaks:
        flag = "  <-- goal missed" if peak > WORKER_MEMORY_GOAL_MB else ""
        print(f"gunicorn worker {pid}: peak {peak:.0f} MB, now {now:.0f} MB{flag}")
    highest = max(peak for _pid, peak, _now in peaks)
    ok = highest <= WORKER_MEMORY_GOAL_MB
    print(
        f"MEMORY: {'PASS' if ok else 'FAIL'} (goal: each worker's peak <= "
        f"{WORKER_MEMORY_GOAL_MB} MB; highest {highest:.0f} MB)"
    )
    return ok


def report(rows: list[Row], args: argparse.Namespace) -> bool:
    base = rows[0].p95_ms or 0.001
    header = (
        f"{'target':<26} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'errors':>8} {'p95 ratio':>9}"
    )
    print()
    print(
        f"wrk: {args.connections} connections, {args.threads} threads, {args.duration:g} s per "
        f"target; gunicorn {args.workers} workers; ratio = p95 / p95 of {rows[0].path}"
    )
    print(header)
    print("-" * len(header))
    ok = True
    for row in rows:
        ratio = row.p95_ms / base
        bad = row.errors > 0 or ratio > RATIO_GOAL
        ok = ok and not bad
        flag = f"  <-- {row.note or 'goal missed'}" if bad else ""
        print(
            f"{row.name:<26} {row.requests:>9} {row.p50_ms:>8.1f} {row.p95_ms:>8.1f} "
            f"{row.error_rate:>7.2%} {ratio:>9.2f}{flag}"
        )
    worst = max(rows, key=lambda r: r.p95_ms / base)
    print()
    verdict = "PASS" if ok else "FAIL"
    print(
        f"VERDICT: {verdict} (goal: no errors and every p95 ratio <= {RATIO_GOAL:g}; highest "
        f"ratio {worst.p95_ms / base:.2f} ({worst.name}), errors {sum(r.errors for r in rows)})"
    )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("LOAD_DATABASE_URL", DEFAULT_DB))
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("LOAD_REDIS_URL", ""),
        help="cache for the web processes (default: none, each process's memory, bounded)",
    )
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per target")
    parser.add_argument("--connections", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--workers", type=int, default=3, choices=range(1, 9), metavar="2-4")
    parser.add_argument(
        "--conn-max-age",
        type=int,
        default=60,
        help="DB_CONN_MAX_AGE of the web processes (persistent connections)",
    )
    parser.add_argument("--wrk", default=shutil.which("wrk") or "/usr/bin/wrk")
    parser.add_argument("--reseed", action="store_true", help="delete and seed the data again")
    parser.add_argument(
        "--only", default="", help="comma-separated target numbers (1, the baseline, always runs)"
    )
    args = parser.parse_args(argv)
    args.secret_key = secrets.token_urlsafe(50)
    if not Path(args.wrk).exists():
        raise SystemExit(f"wrk not found at {args.wrk}")

    setup_django(args)
    seed(args)
    plan = targets()
    if args.only:
        chosen = {int(x) for x in args.only.split(",") if x.strip()} | {1}
        plan = [t for i, t in enumerate(plan, 1) if i in chosen]

    server = Server(args)

    def _terminate(signum, frame):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    try:
        server.collectstatic()
        server.start()
        print(f"gunicorn: {args.workers} workers on {server.base} (log {server.log.name})")
        cookie = login(server.base)
        rows = measure(args, server.base, cookie, plan)
        peaks = server.worker_peaks()
    except KeyboardInterrupt:
        print("interrupted: stopping gunicorn", file=sys.stderr)
        return 130
    finally:
        server.stop()
    ok = report(rows, args)
    memory_ok = report_memory(peaks)
    return 0 if ok and memory_ok else 1


if __name__ == "__main__":
    sys.exit(main())
