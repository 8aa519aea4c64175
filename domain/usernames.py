"""The one comparison key for user names: log-in lookup, failure counting and uniqueness.

Two spellings that a person reads as the same name must be the same account and share one
failure count, or an attacker can reset a lock-out by writing ``ａdmin`` (full-width) or ``ADMIN``
for ``admin``. The key is NFKC with case folding (Unicode's "NFKC_Casefold" identifier caseless
match: NFKC, fold, NFKC again, because folding can undo a normal form, e.g. ``ǰ``).
"""

from __future__ import annotations

import unicodedata

MAX_USERNAME_CHARS = 150  # the user model's own limit; longer input cannot name an account


def nfkc(name: str) -> str:
    """The stored spelling: Django's user model keeps names in NFKC (compatibility) form."""
    return unicodedata.normalize("NFKC", name.strip())


def username_key(name: str) -> str:
    """The caseless, compatibility-normalised key of a user name (``"ＡＤmin"`` -> ``"admin"``).

    Input longer than the user model allows is cut first, so an attacker cannot make each try
    a new key by padding, and the key stays a bounded size.
    """
    folded = unicodedata.normalize("NFKC", nfkc(name)[:MAX_USERNAME_CHARS].casefold())
    return folded[:MAX_USERNAME_CHARS]
