"""An RFQ asks for at most 100,000 Gbit/s per server and a deadline within a year
(domain.rfq_rules), on the form and in the API, in the reader's language; a deadline extension
too. Before: 1e308 Gbit/s and 9999-12-31 were stored and printed as 309 digits."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from domain import rfq_rules
from sourcing.models import Rfq

from .test_edit import _form

pytestmark = pytest.mark.django_db


@pytest.fixture
def good(workload_a):  # type: ignore[no-untyped-def]
    return {"title": "t", "workload": workload_a.pk, "nodes": 2, "min_internode_gbps": 100,
            "deadline": (timezone.now() + timedelta(days=3)).isoformat()}  # fmt: skip


@pytest.mark.parametrize("gbps", [1e308, 1e23, 100_001])
def test_the_api_refuses_too_much_bandwidth(api_as, analyst_a, good, gbps):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    r = api.post("/api/v1/rfqs/", good | {"min_internode_gbps": gbps}, format="json",
                 HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert r.status_code == 400
    assert r.json()["min_internode_gbps"] == ["At most 100,000 Gbit/s per server."]
    r = api.post("/api/v1/rfqs/", good | {"min_internode_gbps": gbps}, format="json",
                 HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.json()["min_internode_gbps"] == ["每台服务器最多 100,000 Gbit/s。"]
    assert not Rfq.objects.exists()
    at_bound = api.post("/api/v1/rfqs/", good | {"min_internode_gbps": 100_000}, format="json")
    assert at_bound.status_code == 201


def test_the_api_refuses_a_deadline_beyond_a_year_on_create_and_edit(api_as, analyst_a, good):  # type: ignore[no-untyped-def]
    api = api_as(analyst_a)
    r = api.post("/api/v1/rfqs/", good | {"deadline": "9999-12-31T00:00:00Z"}, format="json",
                 HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert r.status_code == 400 and r.json()["deadline"] == ["截止时间必须在自现在起一年以内。"]
    pk = api.post("/api/v1/rfqs/", good, format="json").json()["id"]
    later = (timezone.now() + timedelta(days=400)).isoformat()
    r = api.patch(f"/api/v1/rfqs/{pk}/", {"deadline": later}, format="json",
                  HTTP_ACCEPT_LANGUAGE="en")  # fmt: skip
    assert r.status_code == 400
    assert r.json()["deadline"] == ["The deadline must be within one year from now."]
    within = (timezone.now() + timedelta(days=300)).isoformat()
    assert api.patch(f"/api/v1/rfqs/{pk}/", {"deadline": within}, format="json").status_code == 200


def test_the_edit_form_refuses_both_in_english(make_rfq, analyst_a, client_as):  # type: ignore[no-untyped-def]
    draft = make_rfq(publish=False)
    client = client_as(analyst_a)
    body = _form(draft, min_internode_gbps="1e308", deadline="9999-12-31T00:00")
    r = client.post(f"/sourcing/{draft.pk}/edit/", body, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 400
    page = r.content.decode()
    assert "At most 100,000 Gbit/s per server." in page
    body = _form(draft, deadline="9999-12-31T00:00")
    r = client.post(f"/sourcing/{draft.pk}/edit/", body, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 400 and "within one year from now" in r.content.decode()
    draft.refresh_from_db()
    assert draft.min_internode_gbps == 100 and draft.deadline.year < 9999
    assert 'max="100000"' in client.get(f"/sourcing/{draft.pk}/edit/").content.decode()


def test_an_extension_beyond_a_year_is_refused(rfq) -> None:  # type: ignore[no-untyped-def]
    now = timezone.now()
    timing = rfq_rules.RfqTiming(state="published", sealed=True, deadline=now + timedelta(days=3))
    far = now + timedelta(days=366)
    assert rfq_rules.extension_refusal(timing, far, now) == rfq_rules.DEADLINE_TOO_FAR
    assert rfq_rules.extension_refusal(timing, now + timedelta(days=30), now) is None
