"""How every form of the portal renders: labels start with a capital letter in every language.

Labels are written lower-case in the code (as Django's verbose names are) and Django capitalises
only those it derives from model fields; a label given on a form field ("workload", "preset")
was shown as written. The renderer below gives every form a bound field that capitalises its
label, so the rule lives in one place (Chinese labels are unchanged by it).
"""

from __future__ import annotations

from typing import Any

from django.forms.boundfield import BoundField
from django.forms.renderers import DjangoTemplates
from django.utils.text import capfirst


class CapitalisedBoundField(BoundField):
    def __init__(self, form: Any, field: Any, name: str) -> None:
        super().__init__(form, field, name)
        self.label = capfirst(self.label)


class PortalFormRenderer(DjangoTemplates):
    bound_field_class = CapitalisedBoundField
