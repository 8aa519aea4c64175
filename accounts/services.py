"""Creating log-in accounts: one account per normalised user name."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from domain.usernames import nfkc, username_key


def username_taken(name: str, *, exclude_pk: object = None) -> bool:
    """True when an account already has a name with the same key (``ａlice`` = ``Alice``,
    ``straße`` = ``STRASSE``).

    Every name is compared (account creation is rare and the names are short); a database
    ``iexact`` alone would miss the case foldings that change length, such as ß -> ss.
    """
    User = get_user_model()
    key = username_key(name)
    users = User._default_manager.all()
    if exclude_pk is not None:  # renaming an account: its own current name does not count
        users = users.exclude(pk=exclude_pk)
    names = users.values_list(User.USERNAME_FIELD, flat=True)
    return bool(key) and any(username_key(n) == key for n in names.iterator())


def user_create(*, username: str, password: str, email: str = ""):  # type: ignore[no-untyped-def]
    """A new log-in account, its name stored in NFKC; refused (ValidationError on ``username``
    or ``password``) when the name is taken in any spelling, invalid, or the password weak."""
    User = get_user_model()
    username = nfkc(username or "")
    if not username or username_taken(username):
        raise ValidationError({"username": _("Choose another user name.")})
    try:  # the user model's own rules: at most 150 characters, letters, digits and @.+-_
        User._meta.get_field(User.USERNAME_FIELD).clean(username, None)
    except ValidationError as exc:
        raise ValidationError({"username": exc.messages}) from exc
    try:
        validate_password(password, User(**{User.USERNAME_FIELD: username, "email": email}))
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from exc
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password, email=email)
    except IntegrityError as exc:  # created by a concurrent request (unique index on the name)
        raise ValidationError({"username": _("Choose another user name.")}) from exc
