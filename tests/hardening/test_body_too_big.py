"""A JSON body above the upload bound (DATA_UPLOAD_MAX_MEMORY_SIZE, 5 MB) is answered 413 with a
bilingual JSON message under /api/, not the HTML 400 page; pages keep their HTML answer."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db


def _big() -> str:
    body = json.dumps({"notes": "x" * (6 * 1024 * 1024)})
    assert len(body) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return body


@pytest.mark.parametrize(
    ("verb", "url"),
    [
        ("post", "/api/v1/vendors/"),
        ("patch", "/api/v1/risk-policy/"),
        ("post", "/api/v1/rankings/"),
    ],
)
def test_a_6_mb_json_body_is_a_413_in_json(api_as, analyst_a, verb, url):  # type: ignore[no-untyped-def]
    r = getattr(api_as(analyst_a), verb)(url, _big(), content_type="application/json")
    assert r.status_code == 413, (r.status_code, r.content[:300])
    assert r["Content-Type"].startswith("application/json")
    assert "5 MB" in r.json()["detail"]
    zh = getattr(api_as(analyst_a), verb)(
        url, _big(), content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert zh.status_code == 413 and "5 MB" in zh.json()["detail"] and "请求" in zh.json()["detail"]


def test_a_too_big_form_post_to_a_page_keeps_an_html_answer(client_as, analyst_a):  # type: ignore[no-untyped-def]
    r = client_as(analyst_a).post(
        "/rankings/risk-policy/", _big(), content_type="application/x-www-form-urlencoded"
    )
    assert r.status_code in (400, 403, 413) and r["Content-Type"].startswith("text/html")
