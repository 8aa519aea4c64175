"""Query-count pins of the sourcing pages and API, team side and supplier side.

Each page or endpoint is measured with 2 and then with 6 invitations / answers / evidence logs
(or RFQs, for the supplier's lists); the count must stay the same and equal the pinned number.
A higher number means a query per row came back (answers' evidence logs, RFQs' GPU models, ...).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quotes.testing import make_vendor
from sourcing.services import (
    answer_submit,
    answer_upload_evidence,
    invitation_accept,
    invitation_create,
)
from sourcing.tasks import close_due_rfqs
from sourcing.testing import IPERF_PAIRS, answer_terms, demo_log, pass_deadline

pytestmark = pytest.mark.django_db


def _queries(client, url: str) -> tuple[int, object]:  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, (url, response.content[:500])
    return len(ctx), response


def _pin(measure, grow, pins: dict) -> None:  # type: ignore[type-arg]  # type: ignore[no-untyped-def]
    """Measure every url at the small size, grow the data, measure again: equal and pinned."""
    small = {url: _queries(client, url)[0] for url, client in measure().items()}
    grow()
    large = {url: _queries(client, url)[0] for url, client in measure().items()}
    assert small == large, {u: (small[u], large[u]) for u in small if small[u] != large[u]}
    named = {name: large[url] for name, url in pins["urls"].items()}
    assert named == pins["counts"], named


def _answer_with_log(rfq, account, n: int):  # type: ignore[no-untyped-def]
    answer = answer_submit(rfq=rfq, account=account, terms=answer_terms())
    answer_upload_evidence(
        answer=answer, account=account,
        upload=demo_log(IPERF_PAIRS[n % 3], salt=f"\n{rfq.pk}-{account.pk}".encode()),
    )  # fmt: skip
    return answer


@pytest.fixture
def many_suppliers(rfq, team_a, invite):  # type: ignore[no-untyped-def]
    """`add(k)` invites k more vendors to `rfq`; each answers and uploads one log."""
    accounts: list = []

    def add(k: int) -> list:  # type: ignore[type-arg]
        for _ in range(k):
            i = len(accounts)
            vendor = make_vendor(team_a, f"Bulk supplier {i}")
            account = invite(rfq, vendor, f"bulk{i}")
            _answer_with_log(rfq, account, i)
            accounts.append(account)
        return accounts

    return add


def test_team_rfq_pages_and_api_do_not_grow_with_answers(rfq, many_suppliers, analyst_a,
                                                         client_as, api_as, make_rfq):  # fmt: skip
    many_suppliers(2)
    page, api = client_as(analyst_a), api_as(analyst_a)
    urls = {
        "list": "/sourcing/",
        "detail": f"/sourcing/{rfq.pk}/",
        "api_list": "/api/v1/rfqs/",
        "api_detail": f"/api/v1/rfqs/{rfq.pk}/",
        "api_answers": f"/api/v1/rfqs/{rfq.pk}/answers/",
        "api_invitations": f"/api/v1/rfqs/{rfq.pk}/invitations/",
        "api_audit": f"/api/v1/rfqs/{rfq.pk}/audit/",
    }

    def measure():  # type: ignore[no-untyped-def]
        return {u: (api if name.startswith("api") else page) for name, u in urls.items()}

    def grow():  # type: ignore[no-untyped-def]
        many_suppliers(4)
        for i in range(4):  # the lists also get more RFQs
            make_rfq(title=f"more {i}")

    _pin(measure, grow, {"urls": urls, "counts": {
        "list": 4, "detail": 11, "api_list": 4, "api_detail": 3, "api_answers": 4,
        "api_invitations": 4, "api_audit": 4,
    }})  # fmt: skip


def test_closed_rfq_pages_with_evaluation_do_not_grow(  # type: ignore[no-untyped-def]
    make_rfq, team_a, invite, analyst_a, client_as, api_as, django_capture_on_commit_callbacks
):
    """After closing: answers are quotes, the ranking is done, evaluation rows are shown. One
    closed RFQ with 2 answers and one with 6 cost the same."""
    events = []
    for size in (2, 6):
        rfq = make_rfq(title=f"{size} answers")
        for i in range(size):
            vendor = make_vendor(team_a, f"S{size}-{i}")
            _answer_with_log(rfq, invite(rfq, vendor, f"s{size}x{i}"), i)
        events.append(rfq)
    for rfq in events:
        pass_deadline(rfq)
    with django_capture_on_commit_callbacks(execute=True):
        close_due_rfqs()
    counts = []
    for rfq in events:
        rfq.refresh_from_db()
        assert rfq.ranking_run is not None and rfq.ranking_run.status == "done"
        row = {}
        for name, client, url in (
            ("detail", client_as(analyst_a), f"/sourcing/{rfq.pk}/"),
            ("evaluation", api_as(analyst_a), f"/api/v1/rfqs/{rfq.pk}/evaluation/"),
            ("answers", api_as(analyst_a), f"/api/v1/rfqs/{rfq.pk}/answers/"),
        ):
            row[name], response = _queries(client, url)
        assert len(response.json()) == rfq.answers.count()
        counts.append(row)
    assert counts[0] == counts[1], counts
    assert counts[1] == {"detail": 12, "evaluation": 6, "answers": 4}


@pytest.fixture
def one_supplier(make_rfq, vendors_a, analyst_a, invite):  # type: ignore[no-untyped-def]
    """One supplier account; `add(k)` invites its vendor to k more RFQs, answered with a log."""
    state: dict = {"account": None, "rfqs": []}  # type: ignore[type-arg]

    def add(k: int):  # type: ignore[no-untyped-def]
        for _ in range(k):
            rfq = make_rfq(title=f"Event {len(state['rfqs'])}")
            if state["account"] is None:
                state["account"] = invite(rfq, vendors_a[0], "solo")
            else:
                _inv, token = invitation_create(rfq=rfq, user=analyst_a, vendor=vendors_a[0],
                                                email="solo@example.com")  # fmt: skip
                invitation_accept(token=token, user=state["account"].user)
            _answer_with_log(rfq, state["account"], len(state["rfqs"]))
            state["rfqs"].append(rfq)
        return state

    return add


def test_supplier_pages_and_api_do_not_grow_with_answers(one_supplier, client_as, api_as):
    state = one_supplier(2)
    user = state["account"].user
    first = state["rfqs"][0]
    answer = first.answers.get()
    urls = {
        "home": "/sourcing/supplier/",
        "rfq_page": f"/sourcing/supplier/rfqs/{first.pk}/",
        "api_rfqs": "/api/v1/supplier/rfqs/",
        "api_rfq": f"/api/v1/supplier/rfqs/{first.pk}/",
        "api_answer": f"/api/v1/supplier/rfqs/{first.pk}/answer/",
        "api_answers": "/api/v1/supplier/answers/",
        "api_answer_detail": f"/api/v1/supplier/answers/{answer.pk}/",
    }
    page, api = client_as(user), api_as(user)

    def measure():  # type: ignore[no-untyped-def]
        return {u: (api if name.startswith("api") else page) for name, u in urls.items()}

    _pin(measure, lambda: one_supplier(4), {"urls": urls, "counts": {
        "home": 9, "rfq_page": 12, "api_rfqs": 5, "api_rfq": 4, "api_answer": 6,
        "api_answers": 6, "api_answer_detail": 5,
    }})  # fmt: skip
    listing = api.get("/api/v1/supplier/answers/").json()["results"]
    assert len(listing) == 6 and all(len(row["logs"]) == 1 for row in listing)


def test_awards_on_the_rfq_page_and_api_do_not_grow(  # type: ignore[no-untyped-def]
    make_rfq, team_a, invite, analyst_a, approver_a, client_as, api_as
):
    """One RFQ with 2 awards (1 rejected, 1 proposed) and one with 6 (5 rejected) cost the same,
    on the page, in the award list of the API and for one award."""
    from sourcing.services import award_decide, award_propose, rfq_close

    page, api = client_as(analyst_a), api_as(analyst_a)
    counts = []
    for size in (2, 6):
        rfq = make_rfq(title=f"{size} awards")
        answers = [
            answer_submit(rfq=rfq, account=invite(rfq, make_vendor(team_a, f"A{size}-{i}"),
                                                  f"a{size}x{i}"), terms=answer_terms())
            for i in range(size)
        ]  # fmt: skip
        pass_deadline(rfq)
        rfq_close(rfq_id=rfq.pk)  # the ranking is not needed for awards
        rfq.refresh_from_db()
        for i, answer in enumerate(answers):
            award = award_propose(rfq=rfq, user=analyst_a, answer=answer, rationale=f"r{i}")
            if i < size - 1:
                award_decide(award=award, user=approver_a, approve=False, comment="no")
        row = {
            "detail": _queries(page, f"/sourcing/{rfq.pk}/")[0],
            "api_awards": _queries(api, f"/api/v1/awards/?rfq={rfq.pk}")[0],
            "api_award": _queries(api, f"/api/v1/awards/{award.pk}/")[0],
            "api_all_awards": _queries(api, "/api/v1/awards/")[0],
        }
        assert api.get(f"/api/v1/awards/?rfq={rfq.pk}").json()["count"] == size
        counts.append(row)
    assert counts[0] == counts[1], counts
    assert counts[1] == {"detail": 10, "api_awards": 4, "api_award": 2, "api_all_awards": 3}
