"""How every form of the portal renders: labels start with a capital letter in every language.

Labels are written lower-case in the code (as Django's verbose names are) and Django capitalises
only those it derives from model fields; a label given on a form field ("workload", "preset")
was shown as written. The renderer below gives every form a bound field that capitalises its
label, so the rule lives in one place (Chinese labels are unchanged by it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.validators import ProhibitNullCharactersValidator
from django.forms import DateTimeField, NullBooleanField
from django.forms.boundfield import BoundField
from django.forms.renderers import DjangoTemplates
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

# Every text field of Django (form, model and API fields) refuses a NUL character with this
# validator; its own message ("Null characters are not allowed.") was translated in Django's
# catalogue as "empty strings are not allowed" (不允许是用空字符串), which misleads. Said once
# here for every form and serializer (CoreConfig.ready).
NUL_MESSAGE = _("This text contains a character that cannot be stored (NUL). Remove it.")


def say_nul_characters_plainly() -> None:
    ProhibitNullCharactersValidator.message = NUL_MESSAGE


class CapitalisedBoundField(BoundField):
    def __init__(self, form: Any, field: Any, name: str) -> None:
        super().__init__(form, field, name)
        self.label = capfirst(self.label)


class PortalFormRenderer(DjangoTemplates):
    bound_field_class = CapitalisedBoundField


class KeepStoredInstants:
    """A form mixin: a date-time field whose submitted value is the stored instant to the second
    keeps the stored instant (its fraction of a second, which the datetime-local input cannot
    show, is not lost by saving the form unchanged)."""

    def _clean_fields(self) -> None:
        super()._clean_fields()  # type: ignore[misc]
        cleaned = self.cleaned_data  # type: ignore[attr-defined]
        for name, field in self.fields.items():  # type: ignore[attr-defined]
            if not isinstance(field, DateTimeField) or cleaned.get(name) is None:
                continue
            # the stored value itself (get_initial_for_field drops the microseconds)
            stored = self.initial.get(name)  # type: ignore[attr-defined]
            if isinstance(stored, datetime) and stored.replace(microsecond=0) == cleaned[name]:
                cleaned[name] = stored


# What a yes / no / not-stated select posts (NullBooleanSelect: "unknown", "true", "false"; its
# older "1", "2", "3"; a boolean from a test client).
TRISTATE_WORDS = {None, "", "unknown", "true", "false", "True", "False", "1", "2", "3", "0"}


class StrictTristates:
    """A form mixin: a yes / no / not-stated field refuses any other word (Django reads one as
    "not stated" and the form would store it silently)."""

    def _clean_fields(self) -> None:
        super()._clean_fields()  # type: ignore[misc]
        for name, field in self.fields.items():  # type: ignore[attr-defined]
            if not isinstance(field, NullBooleanField) or name in self.errors:  # type: ignore[attr-defined]
                continue
            raw = self.data.get(self.add_prefix(name))  # type: ignore[attr-defined]
            if raw not in TRISTATE_WORDS and not isinstance(raw, bool):
                self.add_error(name, _("Choose yes, no or not stated."))  # type: ignore[attr-defined]
