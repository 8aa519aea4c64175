"""Choices of the sourcing app."""

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class RfqState(models.TextChoices):
    DRAFT = "draft", _("Draft")
    PUBLISHED = "published", _("Published (accepting answers)")
    CLOSED = "closed", _("Closed (deadline passed)")
    AWARDED = "awarded", _("Awarded")
    CANCELLED = "cancelled", _("Cancelled")


class FabricRequirement(models.TextChoices):
    ANY = "", _("Any fabric")
    IB = "ib", _("InfiniBand")
    ROCE = "roce", _("RoCE")
    RDMA = "rdma", _("Any RDMA (InfiniBand or RoCE)")
    TCP = "tcp", _("TCP / Ethernet")


class Requirement(models.TextChoices):
    """Requirements an RFQ can make mandatory (keys of domain.rfq_rules.REQUIREMENT_KEYS)."""

    GPU = "gpu", _("accepted GPU model")
    NODES = "nodes", _("number of servers")
    BANDWIDTH = "bandwidth", _("inter-node bandwidth per server")
    FABRIC = "fabric", _("fabric")
    AVAILABILITY = "availability", _("SLA availability")
    TERM = "term", _("contract term")
    TRIAL = "trial", _("trial period")


class Nonconforming(models.TextChoices):
    KNOCK_OUT = "knock_out", _("knocked out (not ranked)")
    RANK_LAST = "rank_last", _("ranked after every conforming bid")


class Evidence(models.TextChoices):
    IPERF3 = "iperf3", _("iperf3 TCP throughput, N concurrent pairs (-J)")
    IB_WRITE_BW = "ib_write_bw", _("ib_write_bw RDMA bandwidth, N concurrent pairs")
    IB_WRITE_LAT = "ib_write_lat", _("ib_write_lat RDMA latency")
    NCCL = "nccl", _("nccl-tests all_reduce bus bandwidth, across the servers")


class AwardState(models.TextChoices):
    PROPOSED = "proposed", _("Proposed (awaiting approval)")
    REJECTED = "rejected", _("Rejected by the approver")
    APPROVED = "approved", _("Approved (acceptance test pending)")
    CONFIRMED = "confirmed", _("Confirmed (acceptance test passed)")
    FLAGGED = "flagged", _("Flagged (acceptance test failed)")


ACTIVE_AWARD_STATES = (
    AwardState.PROPOSED,
    AwardState.APPROVED,
    AwardState.CONFIRMED,
    AwardState.FLAGGED,
)


class AuditVerb(models.TextChoices):
    CREATED = "created", _("RFQ created")
    EDITED = "edited", _("Draft RFQ edited")
    PUBLISHED = "published", _("RFQ published")
    INVITED = "invited", _("Supplier invited")
    INVITATION_ACCEPTED = "invitation_accepted", _("Invitation accepted")
    ANSWER_SUBMITTED = "answer_submitted", _("Answer submitted")
    ANSWER_REVISED = "answer_revised", _("Answer revised")
    EVIDENCE_UPLOADED = "evidence_uploaded", _("Evidence uploaded")
    CLOSED = "closed", _("RFQ closed")
    RANKING_STARTED = "ranking_started", _("Ranking started")
    AWARD_PROPOSED = "award_proposed", _("Award proposed")
    AWARD_APPROVED = "award_approved", _("Award approved")
    AWARD_REJECTED = "award_rejected", _("Award rejected")
    AWARD_OVERRIDE_PROPOSED = "award_override_proposed", _("Award proposed overriding the rules")
    AWARD_OVERRIDE_APPROVED = "award_override_approved", _("Override approved by a second admin")
    ACCEPTANCE_UPLOADED = "acceptance_uploaded", _("Acceptance logs uploaded")
    ACCEPTANCE_CONFIRMED = "acceptance_confirmed", _("Acceptance confirmed")
    ACCEPTANCE_FLAGGED = "acceptance_flagged", _("Acceptance flagged")
    SEALING_CHANGED = "sealing_changed", _("Sealing changed")
    DEADLINE_CHANGED = "deadline_changed", _("Deadline changed")
    EXTENSION_PROPOSED = "extension_proposed", _("Deadline extension proposed")
    EXTENSION_APPROVED = "extension_approved", _("Deadline extension approved")
    EXTENSION_REJECTED = "extension_rejected", _("Deadline extension rejected")
    EXTENSION_MAILED = "extension_mailed", _("Suppliers told of the extension")
    INVITATION_MAIL_FAILED = "invitation_mail_failed", _("Invitation e-mail failed")
    INVITATION_RESENT = "invitation_resent", _("Invitation sent again")


class MailStatus(models.TextChoices):
    # contexts of their own: "Sent" is also the column of the time an invitation was sent
    PENDING = "pending", pgettext_lazy("mail status", "Sending")
    SENT = "sent", pgettext_lazy("mail status", "Sent")
    FAILED = "failed", pgettext_lazy("mail status", "Failed")


class ExtensionState(models.TextChoices):
    PROPOSED = "proposed", _("Proposed (awaiting an admin)")
    APPROVED = "approved", _("Approved")
    REJECTED = "rejected", _("Rejected")
