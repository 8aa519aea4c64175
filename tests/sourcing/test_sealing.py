"""Sealed bids stay sealed: a published RFQ can only become stricter, its deadline moves only by
an audited, four-eyes extension that the suppliers are told about."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.choices import Role
from domain.rfq_rules import RfqTiming, published_change_refusals
from sourcing.choices import AuditVerb, ExtensionState, RfqState
from sourcing.deadlines import deadline_extension_decide, deadline_extension_propose
from sourcing.models import DeadlineExtension, Rfq
from sourcing.selectors import answer_terms_for_team
from sourcing.services import answer_submit, rfq_close, rfq_update
from sourcing.testing import answer_terms

pytestmark = pytest.mark.django_db

PRICE = "47654"


@pytest.fixture
def answered(rfq, suppliers):  # type: ignore[no-untyped-def]
    """The published, sealed `rfq` with one answer carrying PRICE."""
    answer_submit(rfq=rfq, account=suppliers[0], terms=answer_terms(price_per_node_month=PRICE))
    return rfq


def _change_verbs(rfq: Rfq) -> list[str]:
    return list(
        rfq.audit_events.filter(
            verb__in=[AuditVerb.SEALING_CHANGED, AuditVerb.DEADLINE_CHANGED]
        ).values_list("verb", flat=True)
    )


def _prices_shown(rfq: Rfq, api, page) -> bool:  # type: ignore[no-untyped-def]
    answers = api.get(f"/api/v1/rfqs/{rfq.pk}/answers/").json()
    shown_api = any("price_per_node_month" in a["terms"] for a in answers)
    html = page.get(f"/sourcing/{rfq.pk}/").content.decode()
    shown_page = PRICE in html or f"{int(PRICE):,}" in html  # as entered or grouped
    assert shown_api == shown_page
    return shown_api


# --- the rule, in one place ----------------------------------------------------------------


def test_the_rule_lets_a_published_rfq_only_become_stricter():
    at = timezone.now()
    published = RfqTiming(state="published", sealed=True, deadline=at)
    assert published_change_refusals(published, published) == {}
    assert set(published_change_refusals(
        published, RfqTiming("published", sealed=False, deadline=at))) == {"sealed"}  # fmt: skip
    for moved in (at - timedelta(days=1), at + timedelta(days=1)):
        refusal = published_change_refusals(published, RfqTiming("published", True, moved))
        assert set(refusal) == {"deadline"} and "extension" in refusal["deadline"].en
        assert "延期" in refusal["deadline"].zh
    open_one = RfqTiming(state="published", sealed=False, deadline=at)
    assert published_change_refusals(open_one, RfqTiming("published", True, at)) == {}
    draft = RfqTiming(state="draft", sealed=True, deadline=at)
    assert published_change_refusals(draft, RfqTiming("draft", False, at + timedelta(1))) == {}


def test_the_rule_and_the_header_cleaning_need_no_django():
    import subprocess
    import sys
    from pathlib import Path

    from domain.rfq_rules import has_control_characters, single_line

    code = "import sys, domain.rfq_rules; assert 'django' not in sys.modules, sorted(sys.modules)"
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root).returncode == 0
    assert single_line("a\r\nBcc: x@y\u2028 \x00z") == "a Bcc: x@y z"
    assert has_control_characters("a\nb") and not has_control_characters("64×A100 训练集群")


# --- the attacks over the API --------------------------------------------------------------


def test_unsealing_a_published_rfq_over_the_api_is_refused(answered, analyst_a, api_as,
                                                           client_as):  # fmt: skip
    api, page = api_as(analyst_a), client_as(analyst_a)
    assert not _prices_shown(answered, api, page)
    r = api.patch(f"/api/v1/rfqs/{answered.pk}/", {"sealed": False}, format="json")
    assert r.status_code == 400, r.content
    assert "stay sealed" in r.json()["sealed"][0]
    zh = api.patch(f"/api/v1/rfqs/{answered.pk}/", {"sealed": False}, format="json",
                   HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert zh.status_code == 400 and "密封" in zh.json()["sealed"][0]
    assert Rfq.objects.get(pk=answered.pk).sealed is True
    assert not _prices_shown(answered, api, page)
    assert _change_verbs(answered) == []


def test_moving_a_published_deadline_over_the_api_is_refused(answered, analyst_a, api_as,
                                                             client_as):  # fmt: skip
    api, page = api_as(analyst_a), client_as(analyst_a)
    before = Rfq.objects.get(pk=answered.pk).deadline
    for moved in (timezone.now() + timedelta(seconds=4), before + timedelta(days=2)):
        r = api.patch(f"/api/v1/rfqs/{answered.pk}/", {"deadline": moved.isoformat()},
                      format="json")  # fmt: skip
        assert r.status_code == 400 and "extension" in r.json()["deadline"][0], r.content
    assert Rfq.objects.get(pk=answered.pk).deadline == before
    assert not _prices_shown(answered, api, page)
    assert _change_verbs(answered) == []
    # other terms of a published RFQ still change before the deadline, and are audited
    r = api.patch(f"/api/v1/rfqs/{answered.pk}/", {"nodes": 6, "sealed": True}, format="json")
    assert r.status_code == 200 and r.json()["nodes"] == 6
    assert answered.audit_events.filter(verb=AuditVerb.EDITED).count() == 1


def test_sealing_an_open_rfq_is_allowed_and_audited(make_rfq, analyst_a, api_as,
                                                    client_as, vendors_a, invite):  # fmt: skip
    open_rfq = make_rfq(sealed=False, title="open bids")
    account = invite(open_rfq, vendors_a[0], "sup-open", email="open@example.com")
    answer_submit(rfq=open_rfq, account=account, terms=answer_terms(price_per_node_month=PRICE))
    api, page = api_as(analyst_a), client_as(analyst_a)
    assert _prices_shown(open_rfq, api, page)
    r = api.patch(f"/api/v1/rfqs/{open_rfq.pk}/", {"sealed": True}, format="json")
    assert r.status_code == 200 and r.json()["sealed"] is True
    assert not _prices_shown(open_rfq, api, page)
    event = open_rfq.audit_events.get(verb=AuditVerb.SEALING_CHANGED)
    assert event.actor == analyst_a
    assert event.detail == {"sealed_before": False, "sealed_after": True}
    r = api.patch(f"/api/v1/rfqs/{open_rfq.pk}/", {"sealed": False}, format="json")
    assert r.status_code == 400 and Rfq.objects.get(pk=open_rfq.pk).sealed


def test_a_drafts_sealing_and_deadline_changes_are_audited(make_rfq, analyst_a, api_as):
    draft = make_rfq(publish=False)
    later = draft.deadline + timedelta(days=1)
    r = api_as(analyst_a).patch(f"/api/v1/rfqs/{draft.pk}/",
                                {"sealed": False, "deadline": later.isoformat()},
                                format="json")  # fmt: skip
    assert r.status_code == 200, r.content
    assert sorted(_change_verbs(draft)) == [AuditVerb.DEADLINE_CHANGED, AuditVerb.SEALING_CHANGED]
    event = draft.audit_events.get(verb=AuditVerb.DEADLINE_CHANGED)
    assert datetime.fromisoformat(event.detail["deadline"]) == later


def test_the_service_used_by_the_form_applies_the_same_rule(answered, analyst_a):
    with pytest.raises(ValidationError) as caught:
        rfq_update(rfq=answered, user=analyst_a, data={"sealed": False})
    assert "sealed" in caught.value.message_dict
    with pytest.raises(ValidationError) as caught:
        rfq_update(rfq=answered, user=analyst_a,
                   data={"deadline": timezone.now() + timedelta(seconds=4)})  # fmt: skip
    assert "deadline" in caught.value.message_dict
    fresh = Rfq.objects.get(pk=answered.pk)
    assert fresh.sealed and fresh.deadline == answered.deadline


# --- the extension flow --------------------------------------------------------------------


@pytest.fixture
def admin_b(make_user, team_a):  # type: ignore[no-untyped-def]
    """A second admin of team A."""
    return make_user("ben", team_a, Role.ADMIN)


def test_an_extension_needs_another_admin_and_tells_the_suppliers(
    answered, analyst_a, approver_a, make_user, team_a, api_as, django_capture_on_commit_callbacks
):
    other_analyst = make_user("carl", team_a, Role.ANALYST)
    old = Rfq.objects.get(pk=answered.pk).deadline
    new = old + timedelta(days=2)
    url = f"/api/v1/rfqs/{answered.pk}/deadline-extensions/"
    r = api_as(analyst_a).post(url, {"deadline": new.isoformat(), "reason": "Customs delay of "
                                     "the test cluster"}, format="json")  # fmt: skip
    assert r.status_code == 201, r.content
    ext = r.json()["id"]
    assert Rfq.objects.get(pk=answered.pk).deadline == old  # nothing moves before approval
    decide = f"{url}decide/"
    body = {"extension": ext, "decision": "approve"}
    same = api_as(analyst_a).post(decide, body, format="json")
    assert same.status_code == 400 and "another team admin" in str(same.json())
    zh = api_as(analyst_a).post(decide, body, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.status_code == 400 and "另一位管理员" in str(zh.json())
    not_admin = api_as(other_analyst).post(decide, body, format="json")
    assert not_admin.status_code == 400 and "Only a team admin" in str(not_admin.json())
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        ok = api_as(approver_a).post(decide, body | {"comment": "fine"}, format="json")
    assert ok.status_code == 200 and ok.json()["state"] == ExtensionState.APPROVED
    assert Rfq.objects.get(pk=answered.pk).deadline == new
    assert sorted(m.to[0] for m in mail.outbox) == ["sup1@example.com", "sup2@example.com"]
    assert all("Customs delay of the test cluster" in m.body for m in mail.outbox)
    again = api_as(approver_a).post(decide, body, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_decided"
    verbs = list(answered.audit_events.values_list("verb", flat=True))
    assert verbs[-3:] == [AuditVerb.EXTENSION_PROPOSED, AuditVerb.EXTENSION_APPROVED,
                          AuditVerb.EXTENSION_MAILED]  # fmt: skip
    approved = answered.audit_events.get(verb=AuditVerb.EXTENSION_APPROVED)
    assert approved.actor == approver_a and approved.detail["reason"].startswith("Customs")
    assert datetime.fromisoformat(approved.detail["deadline_before"]) == old


def test_prices_stay_sealed_until_the_extended_deadline(answered, analyst_a, approver_a):
    answer = answered.answers.get()
    old = answered.deadline
    ext = deadline_extension_propose(rfq=answered, user=analyst_a, deadline=old + timedelta(
        days=1), reason="More time for the RoCE evidence")  # fmt: skip
    deadline_extension_decide(extension=ext, user=approver_a, approve=True)
    rfq = Rfq.objects.get(pk=answered.pk)
    just_after_old = old + timedelta(seconds=5)
    assert "price_per_node_month" not in answer_terms_for_team(rfq, answer, now=just_after_old)
    assert rfq_close(rfq_id=rfq.pk, now=just_after_old) == "skipped"
    assert Rfq.objects.get(pk=rfq.pk).state == RfqState.PUBLISHED
    after_new = rfq.deadline + timedelta(seconds=1)
    assert answer_terms_for_team(rfq, answer, now=after_new)["price_per_node_month"] == PRICE


def test_bad_extensions_are_refused_with_a_reason(answered, analyst_a, approver_a, api_as):
    url = f"/api/v1/rfqs/{answered.pk}/deadline-extensions/"
    api = api_as(analyst_a)
    earlier = answered.deadline - timedelta(hours=1)
    cases = [
        ({"deadline": earlier.isoformat(), "reason": "x"}, "later than the current"),
        ({"deadline": answered.deadline.isoformat(), "reason": "x"}, "later than the current"),
        ({"deadline": (answered.deadline + timedelta(1)).isoformat(), "reason": "  "}, "reason"),
        ({"deadline": "tomorrow", "reason": "x"}, "deadline"),
        ({"reason": "x"}, "deadline"),
    ]
    for body, message in cases:
        r = api.post(url, body, format="json")
        assert r.status_code == 400 and message in str(r.json()), (body, r.content)
    zh = api.post(url, {"deadline": earlier.isoformat(), "reason": "x"}, format="json",
                  HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    assert zh.status_code == 400 and "必须晚于" in str(zh.json())
    assert not DeadlineExtension.objects.exists()
    # one pending proposal at a time; a viewer cannot propose
    later = (answered.deadline + timedelta(days=1)).isoformat()
    assert api.post(url, {"deadline": later, "reason": "r1"}, format="json").status_code == 201
    second = api.post(url, {"deadline": later, "reason": "r2"}, format="json")
    assert second.status_code == 400 and "already waiting" in str(second.json())
    decide = f"{url}decide/"
    bogus = api_as(approver_a).post(decide, {"extension": 999999, "decision": "approve"},
                                    format="json")  # fmt: skip
    assert bogus.status_code == 400 and "extension" in bogus.json()


def test_an_extension_cannot_apply_after_the_deadline_passed(answered, analyst_a, approver_a):
    ext = deadline_extension_propose(rfq=answered, user=analyst_a,
                                     deadline=answered.deadline + timedelta(days=1),
                                     reason="late")  # fmt: skip
    with pytest.raises(ValidationError, match="deadline has passed"):
        deadline_extension_decide(extension=ext, user=approver_a, approve=True,
                                  now=answered.deadline + timedelta(seconds=1))  # fmt: skip
    assert DeadlineExtension.objects.get(pk=ext.pk).state == ExtensionState.PROPOSED
    assert Rfq.objects.get(pk=answered.pk).deadline == answered.deadline


def test_the_extension_flow_on_the_page(answered, analyst_a, approver_a, client,
                                        django_capture_on_commit_callbacks):  # fmt: skip
    client.force_login(analyst_a)
    page = client.get(f"/sourcing/{answered.pk}/").content.decode()
    assert 'class="extend"' in page
    new = timezone.localtime(answered.deadline + timedelta(days=3))
    new = new.replace(second=0, microsecond=0)
    past = timezone.localtime(answered.deadline - timedelta(days=1))
    r = client.post(f"/sourcing/{answered.pk}/extend/", {"deadline": past.strftime(
        "%Y-%m-%dT%H:%M"), "reason": "earlier"}, follow=True)  # fmt: skip
    assert "later than the current" in r.content.decode()
    r = client.post(f"/sourcing/{answered.pk}/extend/", {"deadline": new.strftime(
        "%Y-%m-%dT%H:%M"), "reason": "Power work in the data centre"}, follow=True)  # fmt: skip
    assert "another admin must approve" in r.content.decode()
    ext = DeadlineExtension.objects.get()
    assert 'class="extension-decide"' not in r.content.decode()  # not for the proposer
    client.force_login(approver_a)
    page = client.get(f"/sourcing/{answered.pk}/").content.decode()
    assert 'class="extension-decide"' in page and "Power work in the data centre" in page
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/sourcing/{answered.pk}/extension-decide/",
                        {"extension": ext.pk, "decision": "approve", "comment": "ok"},
                        follow=True)  # fmt: skip
    assert "Deadline extended" in r.content.decode()
    assert Rfq.objects.get(pk=answered.pk).deadline == new
    assert len(mail.outbox) == 2 and "Power work in the data centre" in mail.outbox[0].body
    assert "\n" not in mail.outbox[0].subject
    # the approver's page was English; the supplier reads Chinese first, then English, both times
    assert mail.outbox[0].subject.startswith("截止时间已延期：")
    assert "Deadline extended: " in mail.outbox[0].subject
    assert "的截止时间已延期。" in mail.outbox[0].body and "is extended." in mail.outbox[0].body


def test_the_admin_site_cannot_unseal_or_move_a_published_rfq(answered, make_user, team_a,
                                                              client):  # fmt: skip
    root = make_user("root", team_a, Role.ADMIN, is_staff=True, is_superuser=True)
    client.force_login(root)
    url = f"/admin/sourcing/rfq/{answered.pk}/change/"
    page = client.get(url).content.decode()
    assert 'name="title"' in page and 'name="sealed"' not in page
    assert 'name="deadline_0"' not in page and 'name="deadline"' not in page
    draft = Rfq.objects.create(**{f.name: getattr(answered, f.name) for f in Rfq._meta.fields
                                  if f.name not in ("id", "state")})  # fmt: skip
    assert 'name="sealed"' in client.get(f"/admin/sourcing/rfq/{draft.pk}/change/").content.decode()


def test_the_suppliers_are_told_once_even_if_the_task_runs_again(
    answered, analyst_a, approver_a, django_capture_on_commit_callbacks
):
    from sourcing.tasks import notify_deadline_extension

    ext = deadline_extension_propose(rfq=answered, user=analyst_a, reason="Holiday",
                                     deadline=answered.deadline + timedelta(days=1))  # fmt: skip
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        deadline_extension_decide(extension=ext, user=approver_a, approve=True)
    assert len(mail.outbox) == 2
    assert DeadlineExtension.objects.get(pk=ext.pk).notified_at is not None
    assert notify_deadline_extension(ext.pk) == {"sent": [], "failed": []}
    assert len(mail.outbox) == 2
    assert answered.audit_events.filter(verb=AuditVerb.EXTENSION_MAILED).count() == 1
