"""One account per normalised user name (NFKC + case folding): the key, creation, the database."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from accounts.admin import UserAddForm, UserEditForm
from accounts.services import user_create, username_taken
from domain.usernames import username_key


@pytest.mark.parametrize(
    ("spelling", "key"),
    [
        ("a_ａdmin", "a_admin"),  # full-width letter
        ("ＡＤＭＩＮ", "admin"),
        ("  Alice ", "alice"),
        ("straße", "strasse"),  # folding that changes the length
        ("ﬁle", "file"),  # compatibility ligature
        ("x" * 400, "x" * 150),  # bounded like the user model's field
    ],
)
def test_the_key_folds_width_case_and_compatibility_forms(spelling, key):
    assert username_key(spelling) == key


def test_the_key_module_does_not_load_django():
    code = "import sys, domain.usernames; assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


@pytest.mark.django_db
@pytest.mark.parametrize("spelling", ["alice", "ALICE", "ａlice", "Ａｌｉｃｅ", " alice"])
def test_a_name_taken_in_another_spelling_cannot_be_created(make_user, spelling):
    make_user("alice", None)
    with pytest.raises(ValidationError) as exc:
        user_create(username=spelling, password="a-long-Passphrase-42")
    assert "username" in exc.value.message_dict
    assert get_user_model().objects.count() == 1


@pytest.mark.django_db
def test_a_folding_that_changes_length_is_the_same_name(make_user):
    make_user("straße", None)
    assert username_taken("STRASSE")
    with pytest.raises(ValidationError):
        user_create(username="strasse", password="a-long-Passphrase-42")


@pytest.mark.django_db
def test_a_new_name_is_stored_in_its_normal_form():
    user = user_create(username="ｂｏｂ_2", password="a-long-Passphrase-42", email="b@example.com")
    assert user.username == "bob_2"
    assert user.check_password("a-long-Passphrase-42")


@pytest.mark.django_db
def test_a_weak_password_or_a_bad_name_is_refused_with_its_field():
    with pytest.raises(ValidationError) as exc:
        user_create(username="carol", password="123")
    assert "password" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        user_create(username="carol smith!", password="a-long-Passphrase-42")
    assert "username" in exc.value.message_dict
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
def test_the_database_refuses_a_second_account_in_another_case(make_user):
    """The last line when code skips the check (e.g. two requests racing)."""
    make_user("alice", None)
    User = get_user_model()
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="Alice", password="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="ａlice", password="x")  # create_user stores NFKC
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_the_admin_forms_refuse_a_name_in_another_spelling(make_user):
    make_user("alice", None)
    bob = make_user("bob", None)
    add = UserAddForm(
        data={"username": "ＡLICE", "password1": "a-long-Passphrase-42",
              "password2": "a-long-Passphrase-42", "usable_password": "true"}
    )  # fmt: skip
    assert not add.is_valid() and "username" in add.errors
    edit = UserEditForm(
        instance=bob, data={"username": "Alice", "date_joined": "2026-01-01 00:00:00"}
    )
    assert not edit.is_valid() and "username" in edit.errors
    keep = UserEditForm(instance=bob, data={"username": "BOB", "date_joined": "2026-01-01 00:00"})
    assert keep.is_valid(), keep.errors  # its own name in another case is not "taken"
