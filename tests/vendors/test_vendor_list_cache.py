"""The vendor list's rows are a cached template fragment: a second view of the same rows in the
same language is not written again, and any change of what a row prints (a bulk update that
never calls save() included) or of the language writes them afresh."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from quotes.testing import make_vendor
from vendors.models import Vendor

pytestmark = pytest.mark.django_db


def _rows(response) -> list[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    body = response.content.decode().split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr[^>]*>.*?</tr>", body, flags=re.S)


def test_vendor_rows_are_kept_and_follow_changes_and_language(
    team_a, analyst_a, client_as, monkeypatch
):  # type: ignore[no-untyped-def]
    from vendors.templatetags import vendor_rows as tag

    vendor = make_vendor(team_a, "Kept Vendor Cloud")
    client = client_as(analyst_a)
    client.cookies["django_language"] = "en"
    cache.clear()
    first = _rows(client.get("/vendors/"))
    assert any("Kept Vendor Cloud" in r for r in first)
    written = []
    real = tag.fast_html_rows

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        written.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tag, "fast_html_rows", counting)
    assert _rows(client.get("/vendors/")) == first
    assert written == []  # taken from the cache
    Vendor.objects.filter(pk=vendor.pk).update(name_en="Renamed Kept Cloud", findings_critical=3)
    again = "".join(_rows(client.get("/vendors/")))
    assert written and "Renamed Kept Cloud" in again and 'data-critical="3"' in again
    client.cookies["django_language"] = "zh-hans"
    zh = "".join(_rows(client.get("/vendors/")))
    assert "[演示]" in zh or "Renamed Kept Cloud" in zh
    assert zh != again
