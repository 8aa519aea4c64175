"""The layers point one way (README, Design): the import contracts in pyproject.toml
([tool.importlinter]) hold, every app of the project is inside them, and they do catch an import
that points up."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def _lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT), "--no-cache", "--config", str(cwd / "pyproject.toml")],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _layer_names() -> set[str]:
    (layers,) = [c["layers"] for c in CONFIG["contracts"] if c["type"] == "layers"]
    return {name.strip().strip("()") for layer in layers for name in layer.split("|")}


def test_every_contract_is_kept():
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Contracts: 2 kept, 0 broken." in out.stdout


def test_every_package_of_the_project_is_in_the_contract():
    """A new app (a folder with an apps.py, or any top-level package) is linted and has its
    layer: one left out could import anything."""
    packages = {
        p.parent.name
        for p in ROOT.glob("*/__init__.py")
        if p.parent.name not in {"tests", "scripts", "docs", "deploy", "locale_pending"}
    }
    missing = packages - set(CONFIG["root_packages"])
    assert not missing, f"add {sorted(missing)} to [tool.importlinter] root_packages"
    unlayered = set(CONFIG["root_packages"]) - _layer_names()
    assert not unlayered, f"give {sorted(unlayered)} a layer in the layers contract"


def test_an_import_pointing_up_breaks_the_contract(tmp_path):
    """The contract bites: the same tree with core importing an app fails, naming the import."""
    for name in CONFIG["root_packages"]:
        if name != "core":
            (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copytree(ROOT / "core", tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "core" / "upward.py").write_text("from vendors.models import Vendor\n")
    out = _lint(tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "core is not allowed to import vendors" in out.stdout
    assert "core.upward -> vendors.models" in out.stdout
