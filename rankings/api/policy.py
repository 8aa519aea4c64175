"""The team's risk policy over the API: every member reads it, a team admin changes it (the
same validation as the policy page, `RiskPolicyForm`, and the same audit entry)."""

from __future__ import annotations

from collections.abc import Mapping

from django.forms.models import model_to_dict
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import TeamRolePermission
from core.api_schema import PortalAutoSchema
from core.teams import request_membership
from domain import plausibility

from ..decision import policy_note
from ..forms import RiskPolicyForm
from ..models import TeamRiskPolicy
from ..policy import policy_save

FIELDS = RiskPolicyForm._meta.fields
NUMBER_FIELDS = {f for f in FIELDS if f.endswith(("_pct", "_cny_month"))}


def _body(row: TeamRiskPolicy) -> dict:  # type: ignore[type-arg]
    data = model_to_dict(row, fields=FIELDS)
    for key, value in data.items():
        if key.endswith("_cny_month"):
            data[key] = str(value)
    note = policy_note(row.to_domain())
    return {**data, "is_default": row.pk is None, "summary": {"en": note.en, "zh": note.zh}}


_OBJ = extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT)


@extend_schema_view(get=_OBJ, put=_OBJ, patch=_OBJ)
class RiskPolicyView(APIView):
    permission_classes = [TeamRolePermission]
    schema = PortalAutoSchema()  # documents 400/401/403/415 (a non-admin's write is a 403)

    def _row(self, team) -> TeamRiskPolicy:  # type: ignore[no-untyped-def]
        return TeamRiskPolicy.objects.filter(team=team).first() or TeamRiskPolicy(team=team)

    def get(self, request):  # type: ignore[no-untyped-def]
        return Response(_body(self._row(request_membership(request).team)))

    def put(self, request, partial: bool = False):  # type: ignore[no-untyped-def]
        membership = request_membership(request)
        if not membership.is_admin:
            raise PermissionDenied(_("Only a team admin can change the team's risk policy."))
        if not isinstance(request.data, Mapping):  # the JSON parser refuses these already
            return Response(
                {"detail": _("The request body must be an object with the policy's fields.")},
                status=status.HTTP_400_BAD_REQUEST,
            )
        numbers = {
            key: [problem.text(get_language())]
            for key, value in request.data.items()
            if key in NUMBER_FIELDS and (problem := plausibility.number_problem(value)) is not None
        }
        flag = request.data.get("supplied_evidence_is_claim")
        if flag is not None and not isinstance(flag, bool):
            numbers["supplied_evidence_is_claim"] = [_("Give true or false.")]
        if numbers:  # true is not 1, 1e-320 is not a premium
            return Response(numbers, status=status.HTTP_400_BAD_REQUEST)
        row = self._row(membership.team)
        data = {**model_to_dict(row, fields=FIELDS), **request.data} if partial else request.data
        form = RiskPolicyForm(data, instance=row)
        if not form.is_valid():
            errors = {k: [e["message"] for e in v] for k, v in form.errors.get_json_data().items()}
            return Response(errors, status=status.HTTP_400_BAD_REQUEST)
        return Response(_body(policy_save(form=form, user=request.user)))

    def patch(self, request):  # type: ignore[no-untyped-def]
        return self.put(request, partial=True)
