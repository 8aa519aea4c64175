"""A NUL character in a text field is refused with what is wrong (a character that cannot be
stored), in forms and serializers alike; not Django's "Null characters are not allowed.", which
its Chinese catalogue renders as "empty strings are not allowed" (不允许是用空字符串)."""

from pathlib import Path

import polib
import pytest
from django.urls import reverse
from django.utils import translation

from vendors.api.serializers import VendorSerializer
from vendors.models import Vendor

NUL = "This text contains a character that cannot be stored (NUL). Remove it."


def _zh(msgid: str) -> str:
    """The zh-Hans text once locale_pending/forms.po is merged (scripts/i18n_sync.py)."""
    with translation.override("zh-hans"):
        return translation.gettext(msgid)


@pytest.mark.django_db
def test_the_vendor_form_says_what_is_wrong_with_a_nul(client_as, analyst_a) -> None:  # type: ignore[no-untyped-def]
    client = client_as(analyst_a)
    r = client.post(reverse("vendors:create"), {"name_zh": "甲\x00厂"}, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 400
    assert r.context["form"].errors["name_zh"] == [NUL]
    r = client.post(reverse("vendors:create"), {"name_zh": "甲\x00厂"},
                    HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    (error,) = r.context["form"].errors["name_zh"]
    assert error == _zh(NUL) and "空字符串" not in error
    assert not Vendor.objects.exists()


def test_a_serializer_says_it_too() -> None:
    s = VendorSerializer(data={"name_en": "Bad\x00Co"})
    with translation.override("en"):
        assert not s.is_valid()
        assert [str(e) for e in s.errors["name_en"]] == [NUL]


def test_the_message_has_a_chinese_translation() -> None:
    root = Path(__file__).resolve().parents[2]
    found = [
        e.msgstr
        for path in [root / "locale/zh_Hans/LC_MESSAGES/django.po", *root.glob("locale_pending/*")]
        for e in polib.pofile(str(path))
        if e.msgid == NUL and e.msgstr and "fuzzy" not in e.flags
    ]
    assert found and all("NUL" in t and "空字符串" not in t for t in found)
