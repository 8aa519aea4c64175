"""What every credential parser shares: the error type and folding of pasted text.

`looks_like_icp_filing` lives here rather than in :mod:`.icp_filings` because the licence
parser uses it to reject filings, and the filing parser in turn uses the licence parser.
"""

from __future__ import annotations

import re
import unicodedata

from domain.messages import Message


class CredentialFormatError(ValueError):
    """A credential string that cannot be what it claims to be; ``message`` says why."""

    def __init__(self, message: Message) -> None:
        super().__init__(message.en)
        self.message = message


def _fail(code: str, en: str, zh: str) -> CredentialFormatError:
    return CredentialFormatError(Message(code, en, zh))


_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d"
_CLASS_SEPARATORS = "\u00b7\u2022\u30fb\u3001,/"


def fold_credential(text: str) -> str:
    """Fold full-width forms, odd dashes and all whitespace so pasted numbers compare equal."""
    folded = unicodedata.normalize("NFKC", text)
    folded = folded.translate({ord(c): "-" for c in _DASHES})
    folded = folded.translate({ord(c): "." for c in _CLASS_SEPARATORS})
    return "".join(folded.split()).upper()


def looks_like_icp_filing(text: str) -> bool:
    """True when the text has the shape of an ICP filing (``…ICP备<digits>…``)."""
    return re.search(r"ICP备[0-9]", fold_credential(text)) is not None
