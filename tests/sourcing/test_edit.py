"""The edit page of a draft RFQ: analysts and admins of the team only, drafts only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from quotes.models import GpuModel
from sourcing.choices import AuditVerb
from sourcing.models import Rfq
from sourcing.services import rfq_update_draft

pytestmark = pytest.mark.django_db


def _form(rfq: Rfq, **over) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """The edit form as the browser posts it, from the RFQ's current values."""
    data = {
        "title": rfq.title, "workload": rfq.workload_id, "nodes": rfq.nodes,
        "min_internode_gbps": rfq.min_internode_gbps, "fabric": rfq.fabric,
        "region": rfq.region, "term_months": rfq.term_months,
        "min_availability": rfq.min_availability, "min_trial_days": rfq.min_trial_days,
        "deadline": timezone.localtime(rfq.deadline).strftime("%Y-%m-%dT%H:%M"),
        "sealed": "on", "kit_pairs": rfq.kit_pairs, "kit_duration_s": rfq.kit_duration_s,
        "notes": rfq.notes, "gpu_models": [g.pk for g in rfq.gpu_models.all()],
        "required_evidence": list(rfq.required_evidence), "weight_cost": 0.6,
        "weight_network": 0.2, "weight_diligence": 0.1, "weight_sla": 0.1,
    }  # fmt: skip
    if rfq.require_pfc:
        data["require_pfc"] = "on"
    data.update(over)
    return data


@pytest.fixture
def draft(make_rfq):  # type: ignore[no-untyped-def]
    return make_rfq(publish=False)


def test_the_edit_page_shows_the_drafts_values(draft, analyst_a, client_as):
    r = client_as(analyst_a).get(f"/sourcing/{draft.pk}/edit/")
    page = r.content.decode()
    assert r.status_code == 200 and 'class="form rfq"' in page
    assert f'value="{draft.title}"' in page and "PRIVATE: budget ceiling 400k" in page
    gpu = GpuModel.objects.get(key="A100-SXM4-80GB")
    assert f'value="{gpu.pk}"' in page and "checked" in page
    detail = client_as(analyst_a).get(f"/sourcing/{draft.pk}/").content.decode()
    assert f"/sourcing/{draft.pk}/edit/" in detail  # the draft's page links to it


def test_an_analyst_edits_a_draft(draft, analyst_a, client_as):
    h800 = GpuModel.objects.get(key="H800-SXM")
    body = _form(draft, title="64×H800 instead", nodes=16, gpu_models=[h800.pk],
                 weight_cost=0.5, weight_network=0.3, required_evidence=["iperf3"])  # fmt: skip
    r = client_as(analyst_a).post(f"/sourcing/{draft.pk}/edit/", body, follow=True)
    assert r.redirect_chain[-1][0] == f"/sourcing/{draft.pk}/"
    assert "The draft is saved." in r.content.decode()
    draft.refresh_from_db()
    assert (draft.title, draft.nodes, draft.required_evidence) == ("64×H800 instead", 16,
                                                                   ["iperf3"])  # fmt: skip
    assert list(draft.gpu_models.values_list("key", flat=True)) == ["H800-SXM"]
    assert draft.weights == {"cost": 0.5, "network": 0.3, "diligence": 0.1, "sla": 0.1}
    assert draft.state == "draft"
    event = draft.audit_events.get(verb=AuditVerb.EDITED)
    assert event.actor == analyst_a and event.detail == {"title": "64×H800 instead"}


def test_invalid_edits_come_back_with_messages_and_change_nothing(draft, analyst_a, client_as):
    client = client_as(analyst_a)
    past = timezone.localtime(timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    cases = {
        "deadline must be in the future": {"deadline": past},
        "greater than or equal to 0": {"weight_cost": -1},
        "At least one weight must be above 0": {"weight_cost": 0, "weight_network": 0,
                                                "weight_diligence": 0, "weight_sla": 0},
        "Enter a whole number": {"nodes": "many"},
        "This field is required": {"title": ""},
    }  # fmt: skip
    for message, over in cases.items():
        r = client.post(f"/sourcing/{draft.pk}/edit/", _form(draft, **over))
        assert r.status_code == 400, message
        assert message in r.content.decode(), message
    fresh = Rfq.objects.get(pk=draft.pk)
    assert fresh.title == draft.title and fresh.deadline == draft.deadline
    assert fresh.weights == draft.weights
    assert not draft.audit_events.filter(verb=AuditVerb.EDITED).exists()


def test_a_published_rfq_is_refused_with_a_message(rfq, analyst_a, client_as):
    client = client_as(analyst_a)
    for response in (
        client.get(f"/sourcing/{rfq.pk}/edit/", follow=True),
        client.post(f"/sourcing/{rfq.pk}/edit/", _form(rfq, title="changed"), follow=True),
    ):
        assert response.redirect_chain[-1][0] == f"/sourcing/{rfq.pk}/"
        page = response.content.decode()
        assert "only a draft can be edited" in page and 'class="form rfq"' not in page
    rfq.refresh_from_db()
    assert rfq.title == "64×A100 for 7B pretraining"
    assert f"/sourcing/{rfq.pk}/edit/" not in client.get(f"/sourcing/{rfq.pk}/").content.decode()


def test_a_draft_past_its_deadline_is_refused_with_a_message(draft, analyst_a, client_as):
    Rfq.objects.filter(pk=draft.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    r = client_as(analyst_a).post(f"/sourcing/{draft.pk}/edit/", _form(draft, nodes=2),
                                  follow=True)  # fmt: skip
    assert r.redirect_chain[-1][0] == f"/sourcing/{draft.pk}/"
    assert "has passed: this RFQ can no longer be edited" in r.content.decode()
    assert Rfq.objects.get(pk=draft.pk).nodes == 8


def test_the_service_refuses_a_draft_published_meanwhile(draft, analyst_a):
    from django.core.exceptions import ValidationError

    Rfq.objects.filter(pk=draft.pk).update(state="published")  # a concurrent publish
    with pytest.raises(ValidationError, match="only a draft"):
        rfq_update_draft(rfq=draft, user=analyst_a, data={"title": "late change"})
    assert Rfq.objects.get(pk=draft.pk).title != "late change"


def test_only_writers_of_the_team_reach_the_edit_page(draft, viewer_a, analyst_b, vendors_a,
                                                      client_as, client):  # fmt: skip
    url = f"/sourcing/{draft.pk}/edit/"
    assert client_as(viewer_a).get(url).status_code == 403
    assert client_as(viewer_a).post(url, _form(draft, title="viewer")).status_code == 403
    assert client_as(analyst_b).get(url).status_code == 404
    assert client_as(analyst_b).post(url, _form(draft, title="other team")).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302  # to the login page
    assert Rfq.objects.get(pk=draft.pk).title == draft.title
    assert client_as(analyst_b).get("/sourcing/999999/edit/").status_code == 404


def test_the_workload_of_another_team_is_refused(draft, analyst_a, client_as, team_b):
    from quotes.testing import make_workload

    foreign = make_workload(team_b)
    r = client_as(analyst_a).post(f"/sourcing/{draft.pk}/edit/", _form(draft, workload=foreign.pk))
    assert r.status_code == 400 and "Select a valid choice" in r.content.decode()
    assert Rfq.objects.get(pk=draft.pk).workload_id == draft.workload_id


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_deadline_with_seconds_survives_the_edit_form_unchanged(
    make_rfq, analyst_a, client_as, lang
):  # type: ignore[no-untyped-def]
    """The deadline input is to the second, in the form a browser reads in either language; the
    form submitted as shown changes nothing (its fraction of a second included)."""
    import re

    deadline = (timezone.now() + timedelta(days=3)).replace(second=42, microsecond=123456)
    draft = make_rfq(publish=False, deadline=deadline)
    client = client_as(analyst_a)
    client.cookies.load({"django_language": lang})
    page = client.get(f"/sourcing/{draft.pk}/edit/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    tag = re.search(r'<input type="datetime-local"[^>]*name="deadline"[^>]*>', page).group(0)
    shown = re.search(r'value="([^"]*)"', tag).group(1)
    assert shown == timezone.localtime(deadline).strftime("%Y-%m-%dT%H:%M:%S")
    assert 'step="1"' in tag
    r = client.post(f"/sourcing/{draft.pk}/edit/", _form(draft, deadline=shown))
    assert r.status_code == 302, r.content.decode()[:2000]
    draft.refresh_from_db()
    assert draft.deadline == deadline
    # one second later is a change, kept to the second
    later = timezone.localtime(deadline + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S")
    client.post(f"/sourcing/{draft.pk}/edit/", _form(draft, deadline=later))
    draft.refresh_from_db()
    assert draft.deadline == (deadline + timedelta(seconds=1)).replace(microsecond=0)


def test_the_extension_form_takes_a_deadline_to_the_second(rfq, approver_a, client_as):  # type: ignore[no-untyped-def]
    from sourcing.forms import ExtensionForm

    html = str(ExtensionForm()["deadline"])
    assert 'type="datetime-local"' in html and 'step="1"' in html
    when = timezone.localtime(rfq.deadline + timedelta(days=2)).replace(microsecond=0)
    form = ExtensionForm({"deadline": when.strftime("%Y-%m-%dT%H:%M:%S"), "reason": "later"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["deadline"] == when and when.second == rfq.deadline.second
