from django.contrib import admin

from core.admin import TeamScopedAdmin

from .choices import RfqState
from .models import Answer, AuditEvent, Award, DeadlineExtension, Invitation, Rfq, SupplierAccount


@admin.register(Rfq)
class RfqAdmin(TeamScopedAdmin):
    list_display = ("title", "state", "deadline", "sealed")
    list_filter = ("state", "sealed")

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        """Past the draft, sealing and deadline change only through the audited services (an
        extension approved by a second admin), never by editing the row here."""
        fields = tuple(super().get_readonly_fields(request, obj))
        if obj is not None and obj.state != RfqState.DRAFT:
            fields += ("sealed", "deadline", "state")
        return fields


@admin.register(DeadlineExtension)
class DeadlineExtensionAdmin(TeamScopedAdmin):
    team_path = "rfq__team"
    list_display = ("rfq", "new_deadline", "state", "proposed_by", "decided_by")

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False  # decided on the RFQ page or the API, with four eyes and an audit event


@admin.register(Invitation)
class InvitationAdmin(TeamScopedAdmin):
    team_path = "rfq__team"
    list_display = ("rfq", "vendor", "email", "sent_at", "mail_status", "accepted_at")
    exclude = ("token_sha256",)


@admin.register(Answer)
class AnswerAdmin(TeamScopedAdmin):
    team_path = "rfq__team"
    list_display = ("rfq", "vendor", "revision", "revised_at")


@admin.register(Award)
class AwardAdmin(TeamScopedAdmin):
    team_path = "rfq__team"
    list_display = ("rfq", "answer", "state", "proposed_by", "decided_by")


@admin.register(AuditEvent)
class AuditEventAdmin(TeamScopedAdmin):
    list_display = ("rfq", "verb", "actor", "at")


@admin.register(SupplierAccount)
class SupplierAccountAdmin(TeamScopedAdmin):
    team_path = "vendor__team"
    list_display = ("user", "vendor")
