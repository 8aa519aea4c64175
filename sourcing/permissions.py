"""Access for supplier users: they have a SupplierAccount and no team Membership.

Team pages and the team API already refuse them (no Membership); these guard the supplier side.
"""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from rest_framework.permissions import BasePermission

from core.teams import request_membership

from .selectors import supplier_account


class SupplierRequiredMixin(LoginRequiredMixin):
    """Logged in as a supplier; `self.account` and `self.vendor` are set."""

    def dispatch(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not request.user.is_authenticated:
            return self.handle_no_permission()
        account = supplier_account(request.user)
        if account is None or request_membership(request) is not None:
            raise PermissionDenied(_("These pages are for invited suppliers."))
        self.account = account
        self.vendor = account.vendor
        return super().dispatch(request, *args, **kwargs)


class IsSupplier(BasePermission):
    message = _("This endpoint is for invited suppliers.")

    def has_permission(self, request, view) -> bool:  # type: ignore[no-untyped-def]
        if request_membership(request) is not None:
            return False
        account = supplier_account(request.user)
        if account is None:
            return False
        request.supplier_account = account
        return True
