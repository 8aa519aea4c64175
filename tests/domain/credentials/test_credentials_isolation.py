"""The credentials modules are pure Python: importing them must not load any web framework."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

_PROBE = """
import sys
from datetime import date
import domain.credentials, domain.regions, domain.seed_vendor_claims
from domain.seed_vendor_claims import SEED_VENDORS
for vendor in SEED_VENDORS:
    domain.credentials.check_vendor(vendor, today=date(2026, 12, 2))
assert "domain.credentials_rules" in sys.modules
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("django", "rest_framework", "celery"))
print(",".join(loaded))
"""


def test_importing_and_running_the_checks_loads_no_framework() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
