import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_importing_every_domain_module_loads_no_django():
    modules = sorted(
        "domain." + p.relative_to(ROOT / "domain").with_suffix("").as_posix().replace("/", ".")
        for p in (ROOT / "domain").rglob("*.py")
        if p.name != "__init__.py"
    )
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "web = ('django', 'rest_framework', 'celery')\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in web]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
    assert len(modules) >= 3
