"""View mixins that give every page its team and enforce roles."""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from core.teams import request_membership


class TeamRequiredMixin(LoginRequiredMixin):
    """Logged in and member of a team; `self.team` and `self.membership` are set."""

    write_required = False

    def dispatch(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        membership = request_membership(request)
        if membership is None:
            raise PermissionDenied(_("Your account does not belong to any team yet."))
        if self.write_required and not membership.can_write:
            raise PermissionDenied(_("Your role (viewer) can read but not change data."))
        self.membership = membership
        self.team = membership.team
        return super().dispatch(request, *args, **kwargs)


class TeamWriteMixin(TeamRequiredMixin):
    write_required = True
