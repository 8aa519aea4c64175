from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    VIEWER = "viewer", _("Viewer")
    ANALYST = "analyst", _("Analyst")
    ADMIN = "admin", _("Team admin")


WRITE_ROLES = frozenset({Role.ANALYST, Role.ADMIN})
