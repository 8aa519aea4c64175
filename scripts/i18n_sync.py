"""Bring the zh-Hans catalogue up to date with the code, then compile it.

    .venv/bin/python scripts/i18n_sync.py [--pending locale_pending] [--allow-missing]

1. `manage.py makemessages` collects every msgid of the code and templates (obsolete ones dropped).
2. Translations waiting in `locale_pending/*.po` (written beside a change, one file per author) fill
   the entries that are new, empty or only fuzzy-guessed; the pending files are then deleted.
3. Entries still untranslated or fuzzy are listed; the script fails unless --allow-missing.
4. The catalogue is compiled (`django.mo`). tests/core/test_translations.py checks the result.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
# manage.py needs settings only to find the apps: the development defaults will do (DEBUG is
# off by default, which would ask for a production secret key).
_ENV = {**os.environ, "DJANGO_DEBUG": os.environ.get("DJANGO_DEBUG", "true")}
IGNORES = [".venv", "tests", "staticfiles", "var", "locale", "locale_pending", "test-artifacts"]


def makemessages() -> None:
    cmd = [sys.executable, "manage.py", "makemessages", "-l", "zh_Hans", "--no-obsolete"]
    cmd += [f"--ignore={pattern}" for pattern in IGNORES]
    subprocess.run(cmd, cwd=ROOT, check=True, env=_ENV)


def pending_translations(folder: Path) -> dict[tuple[str | None, str], polib.POEntry]:
    found: dict[tuple[str | None, str], polib.POEntry] = {}
    for path in sorted(folder.glob("*.po")):
        for entry in polib.pofile(str(path)):
            if entry.msgstr or entry.msgstr_plural:
                found[(entry.msgctxt, entry.msgid)] = entry
    return found


def fill(po: polib.POFile, pending: dict[tuple[str | None, str], polib.POEntry]) -> set[tuple]:  # type: ignore[type-arg]
    used = set()
    for entry in po:
        key = (entry.msgctxt, entry.msgid)
        if key not in pending or (entry.translated() and "fuzzy" not in entry.flags):
            continue
        source = pending[key]
        entry.msgstr = source.msgstr
        if entry.msgid_plural:
            entry.msgstr_plural = dict(source.msgstr_plural) or {0: source.msgstr}
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
        entry.previous_msgid = None
        entry.previous_msgctxt = None  # a "#| msgctxt" left alone is a syntax error
        entry.previous_msgid_plural = None
        used.add(key)
    return used


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pending", default=str(ROOT / "locale_pending"))
    parser.add_argument("--allow-missing", action="store_true")
    args = parser.parse_args()
    makemessages()
    po = polib.pofile(str(CATALOGUE), wrapwidth=100)
    folder = Path(args.pending)
    pending = pending_translations(folder) if folder.is_dir() else {}
    used = fill(po, pending)
    po.save()
    for key in sorted(set(pending) - used, key=str):
        print(f"pending but not needed (already translated or no longer in the code): {key[1]!r}")
    missing = [e for e in po if not e.translated() or "fuzzy" in e.flags]
    for entry in missing:
        where = ", ".join(path for path, _line in entry.occurrences[:2])
        print(f"MISSING zh-Hans: {entry.msgid!r}  ({where})")
    subprocess.run([sys.executable, "manage.py", "compilemessages", "-l", "zh_Hans"], cwd=ROOT,
                   check=True, env=_ENV)  # fmt: skip
    print(f"{len(po)} entries, {len(used)} filled from pending, {len(missing)} missing")
    if folder.is_dir() and not missing:
        for path in folder.glob("*.po"):
            path.unlink()
    return 1 if missing and not args.allow_missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
