"""The portal's log-in page, and the trivial signed-in page (the load test's baseline).

The failure limit is not here: it is django-axes (``accounts.throttle``), which watches
``authenticate`` itself, so this page, ``/admin/login/`` and any other password path share one
count per normalised user name and address.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import views as auth_views
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views import View

from .forms import TeamSettingsForm
from .mixins import TeamRequiredMixin
from .models import Team


class RateLimitedLoginView(auth_views.LoginView):
    """Django's log-in view; the name is kept for the URL configuration."""


class TrivialPageView(TeamRequiredMixin, View):
    """A trivial portal page: what every page costs before its own data (session, user, team,
    the layout with its navigation), with nothing of its own. The load test's baseline."""

    def get(self, request):  # type: ignore[no-untyped-def]
        return render(request, "core/trivial.html")


class TeamSettingsView(TeamRequiredMixin, View):
    """The team's settings: the standing rule for inviting vendors to an RFQ (minimum delivered
    ÷ committed bandwidth, warn or refuse) and the tax basis of comparisons. Every member reads
    them (an analyst whose invitation is warned or refused sees why, as on the risk policy
    page); only a team admin changes them (403 otherwise), logged in the admin's history with
    each changed field before and after."""

    template = "accounts/team_settings.html"

    def _page(self, request, form, status: int = 200):  # type: ignore[no-untyped-def]
        return render(request, self.template, {"form": form, "is_admin": self.membership.is_admin},
                      status=status)  # fmt: skip

    def _team(self) -> Team:
        return Team.objects.get(pk=self.team.pk)  # a fresh row: the form edits it

    def get(self, request):  # type: ignore[no-untyped-def]
        return self._page(request, TeamSettingsForm(instance=self._team()))

    def post(self, request):  # type: ignore[no-untyped-def]
        if not self.membership.is_admin:
            raise PermissionDenied(_("Only a team admin can change the team's settings."))
        form = TeamSettingsForm(request.POST, instance=self._team())
        if not form.is_valid():
            return self._page(request, form, status=400)
        if form.has_changed():
            values = {f: [form.initial.get(f), form.cleaned_data.get(f)] for f in form.changed_data}
            with transaction.atomic():
                team = form.save()
                LogEntry.objects.log_actions(
                    user_id=request.user.pk, queryset=[team], action_flag=CHANGE,
                    change_message=[{"changed": {"fields": form.changed_data, "values": values}}],
                    single_object=True,
                )  # fmt: skip
        messages.success(request, _("The team's settings are saved; the next invitations and "
                                    "comparisons use them."))  # fmt: skip
        return redirect("team-settings")
