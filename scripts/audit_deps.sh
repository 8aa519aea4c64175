#!/usr/bin/env bash
# Audit the packages installed in the project's virtualenv for known vulnerabilities (pip-audit).
#
# Exit status:
#   0  every installed dependency was checked and none has a known vulnerability
#   1  vulnerabilities found (they are printed)
#   2  pip-audit itself failed for another reason (its error output is printed)
#   3  NOT CHECKED: the vulnerability database could not be reached, or it knew none of the
#      installed packages (a package index without the vulnerability API answers "not found" for
#      every one of them, which pip-audit would otherwise report as "No known vulnerabilities")
#
# Environment: VENV (default .venv), PIP_AUDIT_SERVICE (pypi or osv, default pypi),
# PIP_AUDIT_TIMEOUT (seconds, default 15).
set -uo pipefail

PIP_AUDIT_VERSION="2.10.1"
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
SERVICE="${PIP_AUDIT_SERVICE:-pypi}"
TIMEOUT="${PIP_AUDIT_TIMEOUT:-15}"
PY="$VENV/bin/python"
# The project itself is installed in the venv but published nowhere: it cannot be looked up.
PROJECT="gpu-procurement-portal"

if [ ! -x "$PY" ]; then
    echo "audit_deps: no virtualenv at $VENV (create it first)" >&2
    exit 2
fi
if ! "$VENV/bin/pip-audit" --version >/dev/null 2>&1; then
    echo "audit_deps: installing pip-audit==$PIP_AUDIT_VERSION into $VENV"
    if ! "$VENV/bin/pip" install --quiet "pip-audit==$PIP_AUDIT_VERSION"; then
        echo "NOT CHECKED: pip-audit could not be installed (package index unreachable?)"
        exit 3
    fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$VENV/bin/pip-audit" --local --progress-spinner off --vulnerability-service "$SERVICE" \
    --timeout "$TIMEOUT" --format json --output "$work/report.json" \
    >"$work/stdout" 2>"$work/stderr"
rc=$?

unreachable_pattern='ConnectionError|ConnectTimeout|ReadTimeout|NameResolutionError|Max retries exceeded|Temporary failure in name resolution|Network is unreachable|Connection refused|ServiceError'
if [ ! -s "$work/report.json" ]; then
    if grep -Eq "$unreachable_pattern" "$work/stderr"; then
        echo "NOT CHECKED: vulnerability database unreachable (service: $SERVICE)"
        grep -E "$unreachable_pattern" "$work/stderr" | tail -n 1
        exit 3
    fi
    echo "audit_deps: pip-audit failed (exit $rc):" >&2
    cat "$work/stderr" >&2
    exit 2
fi

"$PY" - "$work/report.json" "$PROJECT" "$SERVICE" <<'PY'
import json
import sys

path, project, service = sys.argv[1:4]
report = json.load(open(path))
deps = report.get("dependencies", [])
vulnerable = [d for d in deps if d.get("vulns")]
skipped = [d for d in deps if "skip_reason" in d and d["name"] != project]
checked = [d for d in deps if "skip_reason" not in d]

if vulnerable:
    count = sum(len(d["vulns"]) for d in vulnerable)
    print(f"VULNERABLE: {count} known vulnerabilities in {len(vulnerable)} installed packages")
    for dep in vulnerable:
        for vuln in dep["vulns"]:
            fixes = ", ".join(vuln.get("fix_versions") or []) or "no fixed version"
            aliases = ", ".join(vuln.get("aliases") or [])
            also = f" ({aliases})" if aliases else ""
            print(f"  {dep['name']} {dep['version']}: {vuln['id']}{also}; fixed in: {fixes}")
    if skipped:
        print(f"  (and {len(skipped)} packages could not be checked)")
    sys.exit(1)
if skipped:
    print(
        f"NOT CHECKED: vulnerability database unreachable (service: {service}): "
        f"{len(skipped)} of {len(skipped) + len(checked)} installed packages could not be looked up"
    )
    for dep in skipped[:5]:
        print(f"  {dep['name']}: {dep['skip_reason']}")
    if len(skipped) > 5:
        print(f"  … and {len(skipped) - 5} more")
    sys.exit(3)
print(f"OK: {len(checked)} installed packages checked, no known vulnerabilities")
sys.exit(0)
PY
