"""Sourcing API: team endpoints (team permission) and supplier endpoints (IsSupplier)."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from core.api import TeamScopedViewSet
from core.api_schema import PortalAutoSchema

from .. import deadlines, selectors, services
from ..models import Answer, Award, DeadlineExtension, Invitation, Rfq
from ..permissions import IsSupplier
from . import serializers as s


def _evaluation_payload(rfq: Rfq) -> dict:  # type: ignore[type-arg]
    evaluation = selectors.rfq_evaluation(rfq)
    rows = [{k: v for k, v in row.items() if k != "answer"} for row in evaluation["rows"]]
    return {"weights": evaluation["weights"], "ready": evaluation["ready"], "rows": rows,
            "method": selectors.rfq_evaluation.__doc__.split("\n\n", 1)[1].strip()}  # fmt: skip


def _conflict_response(exc: services.Conflict) -> Response:
    """409 with the reason: someone decided first, this request recorded nothing."""
    return Response({"detail": " ".join(exc.messages), "code": exc.code or "conflict"},
                    status=status.HTTP_409_CONFLICT)  # fmt: skip


CONFLICT = OpenApiResponse(
    response=s.ConflictSerializer,
    description="Decided meanwhile by someone else; this request changed nothing.",
)


class RfqViewSet(TeamScopedViewSet):
    """RFQs of the team; operations (publish, invite, propose an award) are their own actions."""

    queryset = Rfq.objects.select_related("workload").prefetch_related("gpu_models")
    schema = PortalAutoSchema()
    serializer_class = s.RfqSerializer
    http_method_names = ["get", "post", "patch", "head", "options"]
    filterset_fields = ["state", "sealed"]

    def get_serializer_context(self):  # type: ignore[no-untyped-def]
        return super().get_serializer_context() | {"team": self.get_team()}

    def perform_create(self, serializer):  # type: ignore[no-untyped-def]
        serializer.instance = services.rfq_create(
            team=self.get_team(), user=self.request.user, data=serializer.validated_data
        )

    def perform_update(self, serializer):  # type: ignore[no-untyped-def]
        serializer.instance = services.rfq_update(
            rfq=serializer.instance, user=self.request.user, data=serializer.validated_data
        )

    @extend_schema(request=None, responses=s.RfqSerializer)
    @action(detail=True, methods=["post"])
    def publish(self, request, pk=None):  # type: ignore[no-untyped-def]
        rfq = services.rfq_publish(rfq=self.get_object(), user=request.user)
        return Response(self.get_serializer(rfq).data)

    @extend_schema(methods=["GET"], responses=s.InvitationSerializer(many=True))
    @extend_schema(
        methods=["POST"],
        request=s.InvitationCreateSerializer,
        responses={201: s.InvitationSerializer},
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def invitations(self, request, pk=None):  # type: ignore[no-untyped-def]
        rfq = self.get_object()
        if request.method == "GET":
            rows = selectors.rfq_invitations(rfq)
            return Response(s.InvitationSerializer(rows, many=True).data)
        data = s.InvitationCreateSerializer(data=request.data, context={"team": self.get_team()})
        data.is_valid(raise_exception=True)
        invitation, _token = services.invitation_create(
            rfq=rfq, user=request.user, base_url=request.build_absolute_uri("/"),
            **data.validated_data,
        )  # fmt: skip
        invitation.refresh_from_db()  # the mail went out on commit: its outcome is recorded
        body = dict(s.InvitationSerializer(invitation).data)
        # the team's standing rule: a vendor below the minimum is invited with this warning
        # (in "block" mode it was refused above, a 400 with the same sentence)
        warning = services.invitation_standing_warning(rfq.team, invitation.vendor)
        body["warnings"] = [warning] if warning else []
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.InvitationResendSerializer, responses=s.InvitationSerializer)
    @action(detail=True, methods=["post"], url_path="invitations/resend",
            url_name="invitations-resend")  # fmt: skip
    def invitations_resend(self, request, pk=None):  # type: ignore[no-untyped-def]
        """Send an invitation whose e-mail failed again, with a new link; the same row back."""
        rfq = self.get_object()
        data = s.InvitationResendSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation = Invitation.objects.filter(rfq=rfq, pk=data.validated_data["invitation"])
        if not invitation.exists():
            raise ValidationError({"invitation": [_("Choose an invitation of this RFQ.")]})
        row, _token = services.invitation_resend(
            invitation=invitation.get(), user=request.user,
            base_url=request.build_absolute_uri("/"),
        )  # fmt: skip
        row.refresh_from_db()
        return Response(s.InvitationSerializer(row).data)

    @extend_schema(methods=["GET"], responses=s.DeadlineExtensionSerializer(many=True))
    @extend_schema(
        methods=["POST"],
        request=s.ExtensionProposeSerializer,
        responses={201: s.DeadlineExtensionSerializer},
    )
    @action(detail=True, methods=["get", "post"], url_path="deadline-extensions",
            url_name="deadline-extensions", pagination_class=None)  # fmt: skip
    def deadline_extensions(self, request, pk=None):  # type: ignore[no-untyped-def]
        rfq = self.get_object()
        if request.method == "GET":
            rows = selectors.rfq_extensions(rfq)
            return Response(s.DeadlineExtensionSerializer(rows, many=True).data)
        data = s.ExtensionProposeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        extension = deadlines.deadline_extension_propose(
            rfq=rfq, user=request.user, **data.validated_data
        )
        return Response(
            s.DeadlineExtensionSerializer(extension).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        request=s.ExtensionDecisionSerializer,
        responses={200: s.DeadlineExtensionSerializer, 409: CONFLICT},
    )
    @action(detail=True, methods=["post"], url_path="deadline-extensions/decide",
            url_name="deadline-extensions-decide")  # fmt: skip
    def deadline_extensions_decide(self, request, pk=None):  # type: ignore[no-untyped-def]
        rfq = self.get_object()
        data = s.ExtensionDecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        extension = DeadlineExtension.objects.filter(rfq=rfq, pk=d["extension"]).first()
        if extension is None:
            raise ValidationError({"extension": [_("Choose an extension of this RFQ.")]})
        try:
            extension = deadlines.deadline_extension_decide(
                extension=extension, user=request.user, approve=d["decision"] == "approve",
                comment=d["comment"],
            )  # fmt: skip
        except services.Conflict as exc:
            return _conflict_response(exc)
        return Response(s.DeadlineExtensionSerializer(extension).data)

    @extend_schema(responses=s.TeamAnswerSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def answers(self, request, pk=None):  # type: ignore[no-untyped-def]
        rfq = self.get_object()
        rows = selectors.rfq_answers(rfq)
        return Response(s.TeamAnswerSerializer(rows, many=True).data)

    @extend_schema(responses=s.EvaluationSerializer)
    @action(detail=True, methods=["get"])
    def evaluation(self, request, pk=None):  # type: ignore[no-untyped-def]
        return Response(_evaluation_payload(self.get_object()))

    @extend_schema(
        request=s.AwardProposeSerializer, responses={201: s.AwardSerializer, 409: CONFLICT}
    )
    @action(detail=True, methods=["post"])
    def awards(self, request, pk=None):  # type: ignore[no-untyped-def]
        rfq = self.get_object()
        data = s.AwardProposeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        d = dict(data.validated_data)
        answer = Answer.objects.filter(rfq=rfq, pk=d.pop("answer")).first()
        if answer is None:
            raise ValidationError({"answer": [_("Choose an answer to this RFQ.")]})
        try:
            award = services.award_propose(rfq=rfq, user=request.user, answer=answer, **d)
        except services.Conflict as exc:  # proposed meanwhile by someone else: nothing recorded
            return _conflict_response(exc)
        return Response(s.AwardSerializer(award).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=s.AuditEventSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def audit(self, request, pk=None):  # type: ignore[no-untyped-def]
        return Response(
            s.AuditEventSerializer(selectors.rfq_audit(self.get_object()), many=True).data
        )


class AwardViewSet(TeamScopedViewSet):
    """Awards of the team's RFQs: approve / reject by a different user, acceptance logs."""

    queryset = Award.objects.select_related("rfq", "answer__vendor")
    schema = PortalAutoSchema()
    serializer_class = s.AwardSerializer
    team_path = "rfq__team"
    http_method_names = ["get", "post", "head", "options"]
    filterset_fields = ["state", "rfq"]

    def create(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise ValidationError({"detail": [_("Propose an award with POST /rfqs/{id}/awards/.")]})

    def _decide(self, request, approve: bool):  # type: ignore[no-untyped-def]
        award = self.get_object()
        data = s.DecisionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            award = services.award_decide(
                award=award, user=request.user, approve=approve,
                comment=data.validated_data["comment"],
                confirm_override=data.validated_data["confirm_override"],
            )  # fmt: skip
        except services.Conflict as exc:  # decided first by someone else: nothing recorded
            return _conflict_response(exc)
        return Response(s.AwardSerializer(award).data)

    @extend_schema(request=s.DecisionSerializer, responses={200: s.AwardSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):  # type: ignore[no-untyped-def]
        return self._decide(request, True)

    @extend_schema(request=s.DecisionSerializer, responses={200: s.AwardSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):  # type: ignore[no-untyped-def]
        return self._decide(request, False)

    @extend_schema(
        request={"multipart/form-data": s.EvidenceUploadSerializer},
        responses={202: s.AwardSerializer},
    )
    @action(detail=True, methods=["post"], url_path="acceptance-logs")
    def acceptance_logs(self, request, pk=None):  # type: ignore[no-untyped-def]
        award = self.get_object()  # another team's award is a 404 before the upload is read
        data = s.EvidenceUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.award_acceptance_upload(award=award, user=request.user,
                                         upload=data.validated_data["file"])  # fmt: skip
        award.refresh_from_db()
        return Response(s.AwardSerializer(award).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses=s.AwardSerializer)
    @action(detail=True, methods=["post"], url_path="check-acceptance")
    def check_acceptance(self, request, pk=None):  # type: ignore[no-untyped-def]
        award = self.get_object()
        services.award_acceptance_check(award_id=award.pk)
        award.refresh_from_db()
        return Response(s.AwardSerializer(award).data)


# --- supplier side ---------------------------------------------------------------------------


class SupplierAutoSchema(PortalAutoSchema):
    """The portal's error responses, with 403 described for supplier endpoints: the caller is not
    an invited supplier (a team member, or a user without a supplier account)."""

    def _get_response_bodies(self, direction: str = "response"):  # type: ignore[no-untyped-def]
        responses = super()._get_response_bodies(direction)
        if direction == "response" and "403" in responses:
            responses["403"] = dict(responses["403"], description=str(IsSupplier.message))
        return responses


class SupplierRfqViewSet(viewsets.ReadOnlyModelViewSet):
    """RFQs the supplier is invited to; GET/PUT ``answer`` reads, submits or revises its answer."""

    permission_classes = [IsSupplier]
    schema = SupplierAutoSchema()
    serializer_class = s.SupplierRfqSerializer
    queryset = Rfq.objects.none()

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return selectors.supplier_rfqs(self.request.supplier_account)

    @extend_schema(request=s.AnswerSubmitSerializer, responses=s.SupplierAnswerSerializer)
    @action(detail=True, methods=["get", "put"])
    def answer(self, request, pk=None):  # type: ignore[no-untyped-def]
        rfq = self.get_object()
        account = request.supplier_account
        if request.method == "GET":
            answer = selectors.supplier_answer(account, rfq)
            if answer is None:
                raise Http404
            return Response(s.SupplierAnswerSerializer(answer).data)
        data = s.AnswerSubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = services.answer_submit(rfq=rfq, account=account, **data.validated_data)
        return Response(s.SupplierAnswerSerializer(answer).data)


class SupplierAnswerViewSet(viewsets.ReadOnlyModelViewSet):
    """The supplier's own answers; POST ``logs`` uploads benchmark-kit output."""

    permission_classes = [IsSupplier]
    schema = SupplierAutoSchema()
    serializer_class = s.SupplierAnswerSerializer
    queryset = Answer.objects.none()

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return selectors.supplier_answers(self.request.supplier_account)

    @extend_schema(request={"multipart/form-data": s.EvidenceUploadSerializer},
                   responses={202: s.SupplierAnswerSerializer})  # fmt: skip
    @action(detail=True, methods=["post"])
    def logs(self, request, pk=None):  # type: ignore[no-untyped-def]
        answer = self.get_object()
        data = s.EvidenceUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.answer_upload_evidence(answer=answer, account=request.supplier_account,
                                        upload=data.validated_data["file"])  # fmt: skip
        answer.refresh_from_db()
        return Response(s.SupplierAnswerSerializer(answer).data, status=status.HTTP_202_ACCEPTED)


class InvitationAcceptViewSet(mixins.CreateModelMixin, viewsets.GenericViewSet):
    """POST a token (and a new user name and password) to accept an invitation once."""

    permission_classes = [AllowAny]
    schema = PortalAutoSchema()
    serializer_class = s.AcceptInvitationSerializer

    @extend_schema(responses={201: s.AcceptedInvitationSerializer})
    def create(self, request, *args, **kwargs):  # type: ignore[no-untyped-def]
        data = s.AcceptInvitationSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        account = services.invitation_accept(user=request.user, **data.validated_data)
        return Response({"username": account.user.get_username(), "vendor": str(account.vendor)},
                        status=status.HTTP_201_CREATED)  # fmt: skip
