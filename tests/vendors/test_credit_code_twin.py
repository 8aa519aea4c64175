"""Two vendors of one team cannot share a credit code: the form and the API say so on the
credit_code field, naming the other vendor, in the reader's language; never a 500, never the raw
constraint name. Another team may hold the same code (each team's own view)."""

from pathlib import Path

import polib
import pytest
from django.urls import reverse
from django.utils import translation

from domain.credentials import credit_code_check_char
from vendors.concurrency import stamp
from vendors.models import Vendor

pytestmark = pytest.mark.django_db

BODY = "91440300MA5DEM002"
CODE = BODY + credit_code_check_char(BODY)


TWIN = "Another vendor of your team already has this credit code: %(name)s."


def in_chinese(msgid: str) -> str:
    """The zh-Hans text once locale_pending/forms.po is merged (scripts/i18n_sync.py), else the
    msgid; test_the_message_has_a_chinese_translation checks that it is written."""
    with translation.override("zh-hans"):
        return translation.gettext(msgid)


def test_the_message_has_a_chinese_translation() -> None:
    root = Path(__file__).resolve().parents[2]
    found = [
        e.msgstr
        for path in [
            root / "locale/zh_Hans/LC_MESSAGES/django.po",
            *root.glob("locale_pending/*.po"),
        ]
        for e in polib.pofile(str(path))
        if e.msgid == TWIN and e.msgstr and "fuzzy" not in e.flags
    ]
    assert found and all("%(name)s" in t and "信用代码" in t for t in found)


@pytest.fixture
def holder(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="甲厂", name_en="Holder Co", credit_code=CODE)


@pytest.fixture
def other(team_a):  # type: ignore[no-untyped-def]
    return Vendor.objects.create(team=team_a, name_zh="乙厂", name_en="Other Co")


def test_the_form_says_which_vendor_has_the_code_on_create_and_edit(
    client_as, analyst_a, holder, other
):  # fmt: skip
    client = client_as(analyst_a)
    r = client.post(reverse("vendors:create"), {"name_en": "New Co", "credit_code": CODE},
                    HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert r.status_code == 400
    assert r.context["form"].errors["credit_code"] == [
        "Another vendor of your team already has this credit code: Holder Co."
    ]
    data = {"name_zh": "乙厂", "credit_code": CODE, "based_on": stamp(other)}
    r = client.post(reverse("vendors:edit", args=[other.pk]), data, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert r.status_code == 400
    (error,) = r.context["form"].errors["credit_code"]
    assert error == in_chinese(TWIN) % {"name": "甲厂"}  # the Chinese name on a Chinese page
    assert "Constraint" not in r.content.decode()
    other.refresh_from_db()
    assert other.credit_code == "" and Vendor.objects.count() == 2
    # the holder itself keeps its code when edited
    data = {"name_zh": "甲厂 改", "credit_code": CODE, "based_on": stamp(holder)}
    r = client.post(reverse("vendors:edit", args=[holder.pk]), data)
    assert r.status_code == 302


def test_the_api_gives_a_credit_code_field_error_in_both_languages(
    api_as, analyst_a, holder, other
):  # fmt: skip
    api = api_as(analyst_a)
    r = api.post("/api/v1/vendors/", {"name_en": "New Co", "credit_code": CODE}, format="json",
                 HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert r.status_code == 400
    body = r.json()
    assert "__all__" not in body and "Constraint" not in r.content.decode()
    assert body["credit_code"] == [
        "Another vendor of your team already has this credit code: Holder Co."
    ]
    r = api.patch(f"/api/v1/vendors/{other.pk}/", {"credit_code": CODE}, format="json",
                  HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400
    assert r.json()["credit_code"] == [in_chinese(TWIN) % {"name": "甲厂"}]
    assert Vendor.objects.count() == 2


def test_another_team_may_hold_the_same_code(api_as, analyst_b, holder):  # type: ignore[no-untyped-def]
    r = api_as(analyst_b).post("/api/v1/vendors/", {"name_en": "B's Co", "credit_code": CODE},
                               format="json")  # fmt: skip
    assert r.status_code == 201
