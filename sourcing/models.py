"""Sourcing events: RFQs, supplier accounts and invitations, sealed answers, awards, audit."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.models import Job, TeamScoped
from domain.messages import Message
from domain.regions import PROVINCE_CHOICES

from .choices import (
    ACTIVE_AWARD_STATES,
    AuditVerb,
    AwardState,
    ExtensionState,
    FabricRequirement,
    MailStatus,
    Nonconforming,
    Requirement,
    RfqState,
)

DEFAULT_WEIGHTS = {"cost": 0.6, "network": 0.2, "diligence": 0.1, "sla": 0.1}


def default_weights() -> dict[str, float]:
    return dict(DEFAULT_WEIGHTS)


def default_evidence() -> list[str]:
    return ["iperf3", "ib_write_bw"]


def default_mandatory() -> list[str]:
    return []


class Rfq(TeamScoped, Job):
    """A request for quotation: the team's requirements, deadline and the kit suppliers must run.

    ``state`` is the business state; the ``Job`` fields record the deadline job that closes it.
    ``notes`` are the team's private notes and are never shown to suppliers.
    """

    title = models.CharField(_("title"), max_length=200)
    workload = models.ForeignKey(
        "quotes.WorkloadProfile",
        on_delete=models.PROTECT,
        related_name="rfqs",
        verbose_name=_("workload"),
    )
    gpu_models = models.ManyToManyField(
        "quotes.GpuModel", blank=True, related_name="+", verbose_name=_("accepted GPU models")
    )
    nodes = models.PositiveIntegerField(_("nodes"))
    min_internode_gbps = models.FloatField(
        _("minimum inter-node bandwidth per node (Gbit/s)"), validators=[MinValueValidator(0.1)]
    )
    fabric = models.CharField(
        _("fabric"), max_length=8, choices=FabricRequirement.choices, blank=True
    )
    require_pfc = models.BooleanField(_("PFC required (lossless)"), default=False)
    require_ecn = models.BooleanField(_("ECN required"), default=False)
    region = models.CharField(
        _("data-centre region"), max_length=4, choices=PROVINCE_CHOICES, blank=True
    )
    term_months = models.PositiveSmallIntegerField(_("contract term (months)"), default=12)
    min_availability = models.DecimalField(
        _("minimum SLA availability"), max_digits=6, decimal_places=5, default=Decimal("0.99")
    )
    min_trial_days = models.PositiveSmallIntegerField(_("minimum trial period (days)"), default=7)
    # Requirements a bid must meet (Requirement keys; domain/rfq_rules.py `bid_standing`), and
    # what happens to a bid that fails one.
    mandatory = models.JSONField(_("mandatory requirements"), default=default_mandatory, blank=True)
    nonconforming = models.CharField(
        _("a bid failing a mandatory requirement is"), max_length=16,
        choices=Nonconforming.choices, default=Nonconforming.KNOCK_OUT,
    )  # fmt: skip
    deadline = models.DateTimeField(_("deadline"))
    sealed = models.BooleanField(
        _("sealed bids"), default=True, help_text=_("Prices stay hidden until the deadline.")
    )
    required_evidence = models.JSONField(_("required evidence"), default=default_evidence)
    kit_pairs = models.PositiveSmallIntegerField(
        _("concurrent server pairs in the kit"), default=4, validators=[MinValueValidator(1)]
    )
    kit_duration_s = models.PositiveIntegerField(
        _("duration of each test (s)"), default=60, validators=[MinValueValidator(10)]
    )
    weights = models.JSONField(_("evaluation weights"), default=default_weights)
    # A published per-card envelope the acceptance evidence is judged against (its key in
    # domain/evidence/envelopes.py); blank: the card's own envelope, when one is published.
    acceptance_envelope = models.CharField(
        _("acceptance envelope"), max_length=40, blank=True,
        choices=[("", _("the card's own, when published"))] + [
            ("azure-nd-h100-v5", _("Azure ND H100 v5 health check")),
            ("azure-nd-h200-v5", _("Azure ND H200 v5 health check")),
        ],
        help_text=_("Acceptance logs must be within this published envelope (e.g. ib_write_bw "
                    "per HCA, single-node all_reduce bus bandwidth)."),
    )  # fmt: skip
    notes = models.TextField(_("private notes of the team"), blank=True)
    state = models.CharField(
        _("state"), max_length=16, choices=RfqState.choices, default=RfqState.DRAFT
    )
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    ranking_run = models.ForeignKey(
        "rankings.RankingRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("ranking"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("RFQ")
        verbose_name_plural = _("RFQs")
        ordering = ["-deadline", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(nodes__gt=0), name="rfq_nodes_positive"),
            models.CheckConstraint(condition=Q(term_months__gt=0), name="rfq_term_positive"),
            models.CheckConstraint(condition=Q(kit_pairs__gt=0), name="rfq_kit_pairs_positive"),
            models.CheckConstraint(condition=Q(min_internode_gbps__gt=0), name="rfq_bw_positive"),
            models.CheckConstraint(
                condition=Q(min_availability__gt=0) & Q(min_availability__lte=1),
                name="rfq_availability_0_1",
            ),
            models.CheckConstraint(
                condition=Q(state__in=[s.value for s in RfqState]), name="rfq_state_valid"
            ),
            models.CheckConstraint(
                condition=Q(nonconforming__in=[s.value for s in Nonconforming]),
                name="rfq_nonconforming_valid",
            ),
        ]
        indexes = [models.Index(fields=["state", "deadline"])]

    def __str__(self) -> str:
        return self.title

    def mandatory_labels(self) -> list[str]:
        """The mandatory requirements by name, in the page's language and the form's order."""
        chosen = set(self.mandatory or ())
        return [str(label) for key, label in Requirement.choices if key in chosen]

    def is_open_for_answers(self, now=None) -> bool:  # type: ignore[no-untyped-def]
        now = now or timezone.now()
        return self.state == RfqState.PUBLISHED and now < self.deadline

    def prices_visible(self, now=None) -> bool:  # type: ignore[no-untyped-def]
        """Open RFQs show prices at once; sealed ones only once the deadline has passed."""
        now = now or timezone.now()
        return (
            not self.sealed
            or now >= self.deadline
            or self.state
            in (
                RfqState.CLOSED,
                RfqState.AWARDED,
            )
        )


class SupplierAccount(models.Model):
    """A supplier's login: one user speaking for one vendor of the inviting team.

    A supplier user has no team ``Membership``, so every team page and team API refuses them.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="supplier_account"
    )
    vendor = models.ForeignKey(
        "vendors.Vendor", on_delete=models.CASCADE, related_name="supplier_accounts"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("supplier account")
        verbose_name_plural = _("supplier accounts")

    def __str__(self) -> str:
        return f"{self.user} → {self.vendor}"


class Invitation(models.Model):
    """An e-mailed, single-use link inviting one vendor to answer one RFQ.

    Only the SHA-256 of the token is stored; the token itself exists only in the e-mail. The
    e-mail goes out after the invitation is committed; ``mail_status`` says whether it left
    (``mailed_at``) or failed (``mail_error``), and a failed one can be sent again with a new
    token.
    """

    rfq = models.ForeignKey(Rfq, on_delete=models.CASCADE, related_name="invitations")
    vendor = models.ForeignKey("vendors.Vendor", on_delete=models.CASCADE, related_name="+")
    email = models.EmailField(_("e-mail"))
    token_sha256 = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    sent_at = models.DateTimeField(_("sent at"), default=timezone.now)
    accepted_at = models.DateTimeField(_("accepted at"), null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    mail_status = models.CharField(
        _("e-mail"), max_length=8, choices=MailStatus.choices, default=MailStatus.PENDING
    )
    mail_error = models.TextField(_("e-mail error"), blank=True)
    mail_attempts = models.PositiveSmallIntegerField(_("e-mail attempts"), default=0)
    mailed_at = models.DateTimeField(_("e-mailed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["rfq_id", "sent_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["rfq", "vendor"], name="invitation_one_per_vendor"),
            models.UniqueConstraint(fields=["rfq", "email"], name="invitation_one_per_email"),
            models.CheckConstraint(
                condition=Q(mail_status__in=[s.value for s in MailStatus]),
                name="invitation_mail_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rfq} → {self.vendor} <{self.email}>"


class Answer(models.Model):
    """A vendor's answer to an RFQ: offer terms (sealed until the deadline) and evidence.

    ``terms`` holds the quote-version fields as JSON until the RFQ closes; closing turns them into
    a team ``quotes.Quote`` (``quote``) so the ranking treats the answer like any other quote.
    """

    rfq = models.ForeignKey(Rfq, on_delete=models.CASCADE, related_name="answers")
    vendor = models.ForeignKey("vendors.Vendor", on_delete=models.CASCADE, related_name="+")
    terms = models.JSONField(_("offer terms"), default=dict)
    # The servers offered: [{"name": host name, "ids": [NIC GUIDs, MACs, GPU UUIDs]}]
    # (domain/evidence/hosts.py). A kit log naming other hosts or hardware is not kit-verified.
    hosts = models.JSONField(_("host list"), default=list, blank=True)
    supplier_notes = models.TextField(_("notes from the supplier"), blank=True)
    revision = models.PositiveIntegerField(_("revision"), default=1)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    submitted_at = models.DateTimeField(_("first submitted at"), default=timezone.now)
    revised_at = models.DateTimeField(_("last revised at"), default=timezone.now)
    evidence_run = models.ForeignKey(
        "benchmarks.TestRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("benchmark evidence"),
    )
    quote = models.ForeignKey(
        "quotes.Quote",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("quote created at closing"),
    )

    class Meta:
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        ordering = ["rfq_id", "submitted_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["rfq", "vendor"], name="answer_one_per_vendor"),
            models.CheckConstraint(condition=Q(revision__gt=0), name="answer_revision_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.rfq} · {self.vendor} (r{self.revision})"


class Award(models.Model):
    """A proposed award of an RFQ to one answer, its approval and its acceptance test.

    At most one award per RFQ is active (not rejected). Acceptance criteria: at least
    ``min_pairs`` concurrent pairs reaching ``min_line_fraction`` of line rate, measured by logs
    uploaded before ``trial_ends_at``.
    """

    rfq = models.ForeignKey(Rfq, on_delete=models.CASCADE, related_name="awards")
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="awards")
    state = models.CharField(
        _("state"), max_length=16, choices=AwardState.choices, default=AwardState.PROPOSED
    )
    rationale = models.TextField(_("rationale"), blank=True)
    # An award to a bidder the rules block (knocked out, or excluded by the team's risk policy):
    # the reasons as they stood when proposed (bilingual messages) and the proposer's written
    # reason to award anyway; only a second admin approves it (domain/rfq_rules.py).
    blockers = models.JSONField(_("rules overridden"), default=list, blank=True)
    override_reason = models.TextField(_("reason for overriding the rules"), blank=True)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    proposed_at = models.DateTimeField(_("proposed at"), default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decision_comment = models.TextField(_("approver's comment"), blank=True)
    min_line_fraction = models.FloatField(
        _("minimum share of line rate"),
        default=0.9,
        validators=[MinValueValidator(0.01), MaxValueValidator(1)],
    )
    min_pairs = models.PositiveSmallIntegerField(
        _("concurrent pairs"), default=4, validators=[MinValueValidator(1)]
    )
    trial_days = models.PositiveSmallIntegerField(_("trial period (days)"), default=7)
    trial_ends_at = models.DateTimeField(_("trial ends at"), null=True, blank=True)
    acceptance_run = models.ForeignKey(
        "benchmarks.TestRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("acceptance test run"),
    )
    acceptance_evidence = models.JSONField(_("acceptance evidence"), default=dict, blank=True)
    acceptance_checked_at = models.DateTimeField(_("acceptance checked at"), null=True, blank=True)

    class Meta:
        verbose_name = _("award")
        verbose_name_plural = _("awards")
        ordering = ["rfq_id", "-proposed_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["rfq"],
                condition=Q(state__in=[s.value for s in ACTIVE_AWARD_STATES]),
                name="award_one_active_per_rfq",
            ),
            models.CheckConstraint(
                condition=Q(min_line_fraction__gt=0) & Q(min_line_fraction__lte=1),
                name="award_fraction_0_1",
            ),
            models.CheckConstraint(condition=Q(min_pairs__gt=0), name="award_pairs_positive"),
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("proposed_by")),
                name="award_approver_differs",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rfq} → {self.answer.vendor} ({self.get_state_display()})"

    def blocker_texts(self) -> list[str]:
        """The rules this award overrides, in the page's language."""
        lang = get_language()
        return [Message(**m).text(lang) for m in self.blockers or ()]

    @property
    def team_id(self) -> int:
        """The RFQ's team, so the team permission classes can check an award like any row."""
        return self.rfq.team_id


class DeadlineExtension(models.Model):
    """A later deadline for a published RFQ: proposed with a reason, approved by another admin.

    On approval the RFQ's deadline moves and every invited supplier is e-mailed the reason.
    At most one proposal per RFQ waits for a decision.
    """

    rfq = models.ForeignKey(Rfq, on_delete=models.CASCADE, related_name="extensions")
    old_deadline = models.DateTimeField(_("deadline before"))
    new_deadline = models.DateTimeField(_("new deadline"))
    reason = models.TextField(_("reason (sent to the suppliers)"))
    state = models.CharField(
        _("state"), max_length=16, choices=ExtensionState.choices, default=ExtensionState.PROPOSED
    )
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    proposed_at = models.DateTimeField(_("proposed at"), default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decision_comment = models.TextField(_("approver's comment"), blank=True)
    notified_at = models.DateTimeField(_("suppliers told at"), null=True, blank=True)

    class Meta:
        verbose_name = _("deadline extension")
        verbose_name_plural = _("deadline extensions")
        ordering = ["rfq_id", "-proposed_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["rfq"],
                condition=Q(state=ExtensionState.PROPOSED),
                name="extension_one_pending_per_rfq",
            ),
            models.CheckConstraint(
                condition=Q(new_deadline__gt=models.F("old_deadline")),
                name="extension_is_later",
            ),
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("proposed_by")),
                name="extension_approver_differs",
            ),
            models.CheckConstraint(
                condition=Q(state__in=[s.value for s in ExtensionState]),
                name="extension_state_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rfq} → {self.new_deadline:%Y-%m-%d %H:%M} ({self.get_state_display()})"

    @property
    def team_id(self) -> int:
        return self.rfq.team_id


class AuditEvent(TeamScoped):
    """One step of a sourcing event, who did it and when; rows are only ever added."""

    rfq = models.ForeignKey(Rfq, on_delete=models.CASCADE, related_name="audit_events")
    verb = models.CharField(_("what"), max_length=32, choices=AuditVerb.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    detail = models.JSONField(_("detail"), default=dict, blank=True)
    at = models.DateTimeField(_("at"), default=timezone.now)

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["rfq_id", "at", "pk"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.get_verb_display()}"
