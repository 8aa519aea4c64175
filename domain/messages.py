"""Bilingual user-facing messages produced by domain code.

Domain code cannot use Django's gettext, so every message it produces carries both languages and a
stable code; the web layer picks the text for the active language.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    """A message with a stable machine code and its English and Simplified Chinese text."""

    code: str
    en: str
    zh: str

    def text(self, language: str | None) -> str:
        """Return the text for a language code such as ``zh-hans`` or ``en``."""
        if language and language.lower().startswith("zh"):
            return self.zh
        return self.en

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "en": self.en, "zh": self.zh}
