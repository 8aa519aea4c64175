"""The zh-Hans catalogue is complete, compiled and safe to format.

A Chinese page that formats a translation whose placeholders differ from the English ones fails
with a KeyError (a 500) only in Chinese; these checks catch that before a user does.
"""

from __future__ import annotations

import re
from pathlib import Path

import polib
import pytest

PO = Path(__file__).resolve().parents[2] / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
PLACEHOLDER = re.compile(r"%\(\w+\)[sdifr]|%[sdifr]|\{\w*\}")


@pytest.fixture(scope="module")
def po() -> polib.POFile:
    return polib.pofile(str(PO))


def test_every_entry_is_translated_and_none_is_a_guess(po: polib.POFile) -> None:
    assert len(po) > 500
    assert [e.msgid for e in po.untranslated_entries()] == []
    assert [e.msgid for e in po.fuzzy_entries()] == []


def test_translations_keep_the_placeholders(po: polib.POFile) -> None:
    wrong = []
    for entry in po.translated_entries():
        targets = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for target in targets:
            if sorted(PLACEHOLDER.findall(entry.msgid)) != sorted(PLACEHOLDER.findall(target)):
                wrong.append((entry.msgid, target))
    assert wrong == []


def test_the_compiled_catalogue_matches_the_source(po: polib.POFile) -> None:
    mo = polib.mofile(str(PO.with_suffix(".mo")))
    compiled = {(e.msgctxt, e.msgid): e.msgstr for e in mo if not e.msgid_plural}
    stale = [
        e.msgid
        for e in po.translated_entries()
        if not e.msgid_plural and compiled.get((e.msgctxt, e.msgid)) != e.msgstr
    ]
    assert stale == [], "run scripts/i18n_sync.py (compilemessages) after editing the .po"


def test_one_catalogue_only() -> None:
    """App-level catalogues are shadowed by the project one; keep a single source."""
    root = PO.parents[3]
    others = [p for p in root.glob("*/locale/*/LC_MESSAGES/django.po") if ".venv" not in p.parts]
    assert others == []
