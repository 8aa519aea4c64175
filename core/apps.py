from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

# What a user reads when a model constraint without its own message refuses a change during
# validation (Django's default names the constraint: "Constraint “vendor_…” is violated."). A
# constraint a user can hit on purpose has its own field message (e.g. Vendor.clean); this is the
# net for the rest: words, never an internal name.
CONSTRAINT_MESSAGE = _(
    "These values break a rule of this record (for example a duplicate or a value out of "
    "range). Check them and try again."
)


def _constraints_said_in_words() -> None:
    from django.apps import apps
    from django.db.models.constraints import BaseConstraint

    django_default = BaseConstraint.default_violation_error_message
    # Also the class default: a constraint's migration state then still equals its model's
    # (deconstruct() leaves the default out), so no migration changes.
    BaseConstraint.default_violation_error_message = CONSTRAINT_MESSAGE
    for model in apps.get_models():
        for constraint in model._meta.constraints:
            if constraint.violation_error_message is django_default:
                constraint.violation_error_message = CONSTRAINT_MESSAGE


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Core")

    def ready(self) -> None:
        from core.forms import say_nul_characters_plainly

        _constraints_said_in_words()
        say_nul_characters_plainly()
