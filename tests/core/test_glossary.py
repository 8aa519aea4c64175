"""One glossary: each English term of the list reads the same in every Chinese sentence of the
catalogue ("red flag" was 红旗 on one page and 风险警示 on another)."""

from __future__ import annotations

import re
from pathlib import Path

import polib
import pytest

CATALOGUE = Path(__file__).resolve().parents[2] / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"

# English term (a regular expression on the msgid) -> the one Chinese term every translation uses
GLOSSARY: dict[str, str] = {
    r"red flags?": "风险警示",
    r"quotes?": "报价",
    r"rankings?": "排名",
    r"due[- ]diligence": "尽职调查",
    r"licen[cs]es?": "许可证",
    r"invitations?": "邀请",
    r"awards?": "授标",
    r"(?-i:RFQs?)": "询价",  # the word, not the /rfqs/ of an address
    r"data centres?": "机房",
}
# Official names kept as their catalogue writes them (the telecom business catalogue's B11).
OFFICIAL = {"B11 Internet data centre (IDC)"}


def _entries() -> list[polib.POEntry]:
    return [e for e in polib.pofile(str(CATALOGUE)) if e.translated() and not e.obsolete]


def _texts(entry: polib.POEntry) -> list[str]:
    return list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]


def mismatches(entries: list[polib.POEntry], term: str, chinese: str) -> list[str]:
    """Translations of msgids holding `term` that do not use `chinese`."""
    pattern = re.compile(rf"\b{term}\b", re.IGNORECASE)
    return [
        f"{e.msgid[:60]!r} -> {text[:40]!r}"
        for e in entries
        if pattern.search(e.msgid) and e.msgid not in OFFICIAL
        for text in _texts(e)
        if chinese not in text
    ]


@pytest.mark.parametrize(("term", "chinese"), GLOSSARY.items())
def test_each_glossary_term_has_one_translation(term: str, chinese: str) -> None:
    wrong = mismatches(_entries(), term, chinese)
    assert not wrong, f"“{term}” should read “{chinese}”:\n" + "\n".join(wrong)


def test_a_second_translation_of_a_term_is_caught() -> None:
    """The check itself: 红旗 beside 风险警示 is reported, capitalised or not."""
    entries = [
        polib.POEntry(msgid="Red flags", msgstr="红旗"),
        polib.POEntry(msgid="first red flag", msgstr="首条风险警示"),
    ]
    assert mismatches(entries, GLOSSARY_RED_FLAG, "风险警示") == ["'Red flags' -> '红旗'"]


GLOSSARY_RED_FLAG = next(iter(GLOSSARY))
