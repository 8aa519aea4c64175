"""Teams (organisations) and the role each user holds in one."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from domain import money

from .choices import WRITE_ROLES, Role


class Team(models.Model):
    """A procurement team; every private record in the portal belongs to one."""

    name = models.CharField(_("name"), max_length=200, unique=True)
    slug = models.SlugField(_("slug"), unique=True)
    is_demo = models.BooleanField(_("demo data"), default=False)
    # The one basis on which the team compares prices (domain/money.py, "Money rule").
    tax_basis = models.CharField(
        _("tax basis of comparisons"),
        max_length=10,
        default=money.DEFAULT_TAX_BASIS,
        choices=[
            (
                money.BASIS_EXCLUDING_VAT,
                _("Excluding VAT (input VAT deductible with a special VAT invoice (专票))"),
            ),
            (money.BASIS_INCLUDING_VAT, _("Including VAT (what is paid)")),
        ],
        help_text=_("Every quote list, ranking and report converts prices to this basis."),
    )
    # The team's rule for inviting a vendor to an RFQ by its delivery record (Vendor.
    # delivered_ratio, written by the contracts' evaluation): below the minimum, an invitation
    # is sent with a warning or refused (domain.rfq_rules.invitation_standing).
    min_delivered_ratio = models.FloatField(
        _("minimum delivered ÷ committed bandwidth to invite"), null=True, blank=True,
        help_text=_("0–1, e.g. 0.8. Empty: no rule. Vendors without an evaluated contract are "
                    "not held back."),
    )  # fmt: skip
    standing_rule_mode = models.CharField(
        _("below the minimum"), max_length=8, default="warn",
        choices=[("warn", _("warn, and invite")), ("block", _("refuse the invitation"))],
    )  # fmt: skip
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(min_delivered_ratio__isnull=True)
                | (models.Q(min_delivered_ratio__gt=0) & models.Q(min_delivered_ratio__lte=1)),
                name="team_min_delivered_ratio_0_1",
            ),
            models.CheckConstraint(condition=models.Q(standing_rule_mode__in=["warn", "block"]),
                                   name="team_standing_rule_mode_valid"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's place in a team. One team per user keeps isolation simple and auditable."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="membership",
        verbose_name=_("user"),
    )
    team = models.ForeignKey(
        Team, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("team")
    )
    role = models.CharField(_("role"), max_length=16, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(role__in=[r.value for r in Role]), name="membership_role_valid"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.team} ({self.get_role_display()})"

    @property
    def can_write(self) -> bool:
        return self.role in WRITE_ROLES

    @property
    def is_admin(self) -> bool:
        return self.role == Role.ADMIN
