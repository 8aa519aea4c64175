"""Password log-in that finds the account by its normalised name (NFKC + case folding)."""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from domain.usernames import nfkc, username_key


def user_for_login_name(name: str):  # type: ignore[no-untyped-def]
    """The one account whose name has the same key as ``name``, or None.

    Names are stored in NFKC (Django normalises on create); the database narrows by a
    case-insensitive match and Python compares the full caseless keys. Two old accounts with
    one key (created before names were unique by key) resolve only to the exact spelling.
    """
    User = get_user_model()
    key = username_key(name)
    if not key:
        return None
    field = User.USERNAME_FIELD
    candidates = [
        u
        for u in User._default_manager.filter(**{f"{field}__iexact": nfkc(name)})
        if username_key(u.get_username()) == key
    ]
    if len(candidates) == 1:
        return candidates[0]
    exact = [u for u in candidates if u.get_username() == nfkc(name)]
    return exact[0] if len(exact) == 1 else None


class NormalisedUsernameBackend(ModelBackend):
    """``ModelBackend`` with a caseless, compatibility-normalised name lookup.

    A failed password check ends authentication here (PermissionDenied), so the plain
    ``ModelBackend`` listed after it only serves existing sessions and never hashes a second
    time; ``user_login_failed`` is still sent, which is what the failure limit counts.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):  # type: ignore[no-untyped-def]
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = user_for_login_name(str(username))
        if user is None:
            # Same cost as a wrong password, so the answer time does not tell which names exist.
            get_user_model()().set_password(password)
            raise PermissionDenied
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        raise PermissionDenied


class LoginLimitBackend(AxesStandaloneBackend):
    """django-axes' lock-out check, first in AUTHENTICATION_BACKENDS.

    Every web log-in passes its request (the log-in page, the admin, DRF); a call without one
    (the test client's ``login()``, a shell) has no client address to count against, so it is
    not limited here instead of failing with axes' "request required" error.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):  # type: ignore[no-untyped-def]
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
