"""Create the demo team, the demo/demo user and every app's demo data (DEBUG only)."""

from __future__ import annotations

import importlib
import logging
import os

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.choices import Role
from accounts.models import Membership, Team

# Apps whose `demo.load(team=..., user=...)` runs, in this order (later ones use earlier data).
SECOND_ADMIN = "demo2"  # four-eyes approvals need a second team admin
DEMO_APPS = (
    "vendors", "quotes", "benchmarks", "rankings", "reports", "serving", "sourcing", "contracts",
)  # fmt: skip


def _delete_team_data(team: Team) -> None:
    """Delete a team's rows app by app, newest apps first, so protected links go before targets."""
    for app_label in reversed(DEMO_APPS):
        for model in reversed(list(apps.get_app_config(app_label).get_models())):
            if any(f.name == "team" for f in model._meta.fields):
                model.objects.filter(team=team).delete()
    team.delete()


class Command(BaseCommand):
    help = "Create the demo team, user demo/demo and demo data. Refuses when DEBUG is off."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--reset", action="store_true", help="delete and recreate demo data")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        if not settings.DEBUG:
            raise CommandError(
                "Refusing to create the demo user demo/demo: DEBUG is off (production settings)."
            )
        # Tasks run in-process here: one INFO line per task and per broker default is noise.
        for name in ("celery.app.trace", "kombu.connection"):
            logging.getLogger(name).setLevel(logging.WARNING)
        team = Team.objects.filter(slug="demo").first()
        if team and not options["reset"]:
            self.stdout.write("Demo data already present (use --reset to recreate).")
            self._announce()
            return
        with transaction.atomic():
            if team:
                _delete_team_data(team)
            team = Team.objects.create(name="演示团队 Demo team", slug="demo", is_demo=True)
            user = self._demo_user(team)
            self._demo_user(team, SECOND_ADMIN)  # a second admin: four-eyes approvals
            for app in DEMO_APPS:
                try:
                    module = importlib.import_module(f"{app}.demo")
                except ModuleNotFoundError:
                    continue
                if hasattr(module, "load"):
                    module.load(team=team, user=user)
                    self.stdout.write(f"  demo data loaded: {app}")
        self._announce()

    def _demo_user(self, team: Team, username: str = "demo"):  # type: ignore[no-untyped-def]
        """A team admin whose password is its name (demo/demo, demo2/demo2)."""
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=username, defaults={"is_staff": True})
        user.is_staff = True
        user.set_password(username)
        user.save()
        Membership.objects.update_or_create(user=user, defaults={"team": team, "role": Role.ADMIN})
        return user

    def _announce(self) -> None:
        self.stdout.write(
            self.style.WARNING(
                f"DEMO MODE: log in at http://127.0.0.1:{os.environ.get('PORT', '8000')}/"
                " with user 'demo', password 'demo' "
                "(created because DEBUG is on; never use this in production)."
            )
        )
        self.stdout.write(
            self.style.WARNING(
                f"DEMO MODE: a second team admin '{SECOND_ADMIN}', password '{SECOND_ADMIN}', "
                "approves what 'demo' proposes (awards, overrides, deadline extensions)."
            )
        )
