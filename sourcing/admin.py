from django.contrib import admin

from core.admin import TeamScopedAdmin

from .models import Answer, AuditEvent, Award, Invitation, Rfq, SupplierAccount


@admin.register(Rfq)
class RfqAdmin(TeamScopedAdmin):
    list_display = ("title", "state", "deadline", "sealed")
    list_filter = ("state", "sealed")


@admin.register(Invitation)
class InvitationAdmin(TeamScopedAdmin):
    team_path = "rfq__team"
    list_display = ("rfq", "vendor", "email", "sent_at", "accepted_at")
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
