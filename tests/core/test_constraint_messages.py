"""A model constraint that refuses a change during validation is said in words, never by its
internal name ("Constraint “sw_peak_at_least_mean” is violated.")."""

import pytest
from django.apps import apps
from django.core.exceptions import ValidationError

from serving.models import ServingWorkload


def test_no_constraint_of_the_project_names_itself_to_a_user() -> None:
    named = [
        f"{model.__name__}.{c.name}"
        for model in apps.get_models()
        for c in model._meta.constraints
        if c.name in str(c.get_violation_error_message())
        or "Constraint" in str(c.get_violation_error_message())
    ]
    assert named == []


@pytest.mark.django_db
def test_a_check_constraint_without_its_own_message_reads_as_words(team_a) -> None:  # type: ignore[no-untyped-def]
    w = ServingWorkload(
        team=team_a,
        name="chat",
        params_b=7,
        mean_rps=20,
        peak_rps=1,
        tokens_in=800,
        tokens_out=300,
        response_kb=150,
    )  # peak below the mean
    with pytest.raises(ValidationError) as err:
        w.full_clean()
    text = " ".join(err.value.messages)
    assert "sw_peak_at_least_mean" not in text and "Constraint" not in text
    assert "break a rule of this record" in text


@pytest.mark.django_db
def test_a_unique_constraint_keeps_djangos_readable_message(team_a) -> None:  # type: ignore[no-untyped-def]
    from rankings.models import TeamRiskPolicy

    TeamRiskPolicy.objects.create(team=team_a)
    with pytest.raises(ValidationError) as err:
        TeamRiskPolicy(team=team_a).validate_constraints()
    assert "already exists" in " ".join(err.value.messages)
