from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SourcingConfig(AppConfig):
    name = "sourcing"
    verbose_name = _("Sourcing")
