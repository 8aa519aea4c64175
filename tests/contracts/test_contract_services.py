"""Contracts: created from a quote or an RFQ award, the schedule checked at the door by the
domain (both languages), constraints in the database, incidents checked, nothing half-written."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from contracts.choices import BandwidthSource
from contracts.models import Contract, Incident
from contracts.services import (
    contract_create,
    contract_create_from_award,
    contract_create_from_quote,
    contract_servers_set,
    contract_update,
    incident_create,
)
from quotes.testing import make_workload
from sourcing.models import Answer, Award, Rfq
from sourcing.testing import answer_terms

from .conftest import SCHEDULE, contract_data

pytestmark = pytest.mark.django_db


def test_a_contract_stores_the_schedule_in_the_domains_shape(contract_a):  # type: ignore[no-untyped-def]
    contract_a.refresh_from_db()
    assert set(contract_a.schedule) == {"availability_bands", "bandwidth", "latency", "overruns",
                                        "cap_pct", "claim_window_days"}  # fmt: skip
    assert contract_a.schedule["bandwidth"]["threshold_fraction"] == 0.8
    assert contract_a.claim_window_days == 30
    assert [s.hostname for s in contract_a.servers.all()] == ["gpu-01", "gpu-02", "gpu-03",
                                                               "gpu-04"]  # fmt: skip


@pytest.mark.parametrize(("lang", "needle"), [("en", "overlap"), ("zh-hans", "重叠")])
def test_overlapping_bands_are_refused_in_the_users_language(
    team_a, analyst_a, vendor_a, lang, needle
):  # type: ignore[no-untyped-def]
    bad = {**SCHEDULE, "availability_bands": [{"below_pct": 99.5, "credit_pct": 10},
                                              {"below_pct": 99.5, "credit_pct": 20}]}  # fmt: skip
    with translation.override(lang), pytest.raises(ValidationError) as exc:
        contract_create(team=team_a, user=analyst_a, vendor=vendor_a,
                        data=contract_data(schedule=bad))  # fmt: skip
    assert needle in " ".join(exc.value.message_dict["schedule"])
    assert not Contract.objects.exists()


@pytest.mark.parametrize(("lang", "needle"), [("en", "cap"), ("zh-hans", "上限")])
def test_a_negative_cap_is_refused(team_a, analyst_a, vendor_a, lang, needle):  # type: ignore[no-untyped-def]
    with translation.override(lang), pytest.raises(ValidationError) as exc:
        contract_create(team=team_a, user=analyst_a, vendor=vendor_a,
                        data=contract_data(schedule={**SCHEDULE, "cap_pct": -5}))  # fmt: skip
    assert needle in " ".join(exc.value.message_dict["schedule"]).lower()
    assert not Contract.objects.exists()


def test_the_database_refuses_a_schedule_without_the_stored_shape(contract_a):  # type: ignore[no-untyped-def]
    with pytest.raises(IntegrityError), transaction.atomic():
        Contract.objects.filter(pk=contract_a.pk).update(schedule={"cap_pct": 10})


def test_the_database_refuses_a_term_that_ends_before_it_starts(contract_a):  # type: ignore[no-untyped-def]
    with pytest.raises(IntegrityError), transaction.atomic():
        Contract.objects.filter(pk=contract_a.pk).update(ends_on=date(2026, 1, 1))


def test_an_update_with_a_bad_schedule_leaves_the_row_as_it_was(contract_a):  # type: ignore[no-untyped-def]
    before = dict(contract_a.schedule)
    with pytest.raises(ValidationError):
        contract_update(contract=contract_a, data={"schedule": {**SCHEDULE, "cap_pct": 150},
                                                   "title": "changed"})  # fmt: skip
    contract_a.refresh_from_db()
    assert contract_a.schedule == before and contract_a.title == "Rack A 8×H800"


def test_an_empty_schedule_means_nothing_agreed(team_a, analyst_a, vendor_a):  # type: ignore[no-untyped-def]
    c = contract_create(
        team=team_a, user=analyst_a, vendor=vendor_a, data=contract_data(schedule={})
    )
    assert c.schedule == {} and c.claim_window_days is None


def test_a_quote_marked_signed_prefills_the_contract(team_a, analyst_a, quote_a):  # type: ignore[no-untyped-def]
    version = quote_a.current_version
    c = contract_create_from_quote(team=team_a, user=analyst_a, quote=quote_a,
                                   starts_on=date(2026, 12, 1))  # fmt: skip
    assert c.vendor_id == quote_a.vendor_id and c.quote_version_id == version.pk
    assert c.monthly_fee == version.monthly_rent and c.currency == version.currency
    assert c.committed_gbps == version.nic_gbps * version.nics_per_node
    assert c.committed_gbps_source == BandwidthSource.QUOTE
    assert c.availability_pct == Decimal(version.availability) * 100
    assert c.ends_on == date(2027, 12, 1) if version.term_months == 12 else c.ends_on > c.starts_on


def test_a_quote_of_another_team_cannot_be_signed(team_b, analyst_b, quote_a):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError):
        contract_create_from_quote(team=team_b, user=analyst_b, quote=quote_a)
    assert not Contract.objects.exists()


def _award(team, user, quote, *, state: str, evidence: dict) -> Award:  # type: ignore[no-untyped-def, type-arg]
    rfq = Rfq.objects.create(
        team=team,
        title="64×H800",
        workload=make_workload(team),
        nodes=8,
        min_internode_gbps=100,
        fabric="roce",
        deadline=timezone.now() - timedelta(days=1),
        state="closed",
    )
    answer = Answer.objects.create(rfq=rfq, vendor=quote.vendor, terms=answer_terms(), quote=quote)
    return Award.objects.create(rfq=rfq, answer=answer, state=state, proposed_by=user,
                                acceptance_evidence=evidence)  # fmt: skip


def test_an_award_whose_acceptance_passed_commits_its_slowest_pair(team_a, analyst_a, quote_a):  # type: ignore[no-untyped-def]
    award = _award(team_a, analyst_a, quote_a, state="confirmed",
                   evidence={"passed": True, "min_pair_gbps": 92.5})  # fmt: skip
    c = contract_create_from_award(team=team_a, user=analyst_a, award=award)
    assert (c.award_id, c.quote_id) == (award.pk, quote_a.pk)
    assert c.committed_gbps == 92.5 and c.committed_gbps_source == BandwidthSource.ACCEPTANCE


def test_a_proposed_award_cannot_become_a_contract(team_a, analyst_a, quote_a):  # type: ignore[no-untyped-def]
    award = _award(team_a, analyst_a, quote_a, state="proposed", evidence={})
    with pytest.raises(ValidationError):
        contract_create_from_award(team=team_a, user=analyst_a, award=award)


def test_servers_repeating_a_host_name_are_refused(contract_a):  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError):
        contract_servers_set(contract=contract_a, servers=[{"hostname": "a"}, {"hostname": "a"}])
    assert contract_a.servers.count() == 4


def test_an_incident_on_an_unknown_host_or_answered_before_its_ticket_is_refused(contract_a):  # type: ignore[no-untyped-def]
    start = datetime(2026, 11, 5, 10, tzinfo=timezone.get_current_timezone())
    with pytest.raises(ValidationError) as exc:
        incident_create(contract=contract_a, data={"started_at": start, "hosts": ["gpu-99"]})
    assert "gpu-99" in str(exc.value)
    with pytest.raises(ValidationError):
        incident_create(
            contract=contract_a,
            data={
                "started_at": start,
                "opened_at": start,
                "responded_at": start - timedelta(hours=1),
            },
        )
    ok = incident_create(
        contract=contract_a,
        data={
            "started_at": start,
            "ended_at": start + timedelta(hours=3),
            "hosts": ["gpu-02"],
            "opened_at": start,
            "responded_at": start + timedelta(minutes=50),
            "vendor_ticket": "T-1",
        },
    )
    assert Incident.objects.get() == ok
