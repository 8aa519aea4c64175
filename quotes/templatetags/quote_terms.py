"""Template helpers for a quote's terms in words (`{% load quote_terms %}`)."""

from django import template

from quotes.choices import BandwidthBilling

register = template.Library()


@register.filter
def billing_model(code) -> str:  # type: ignore[no-untyped-def]
    """A bandwidth billing model's name in the active language ("p95" → its label)."""
    return BandwidthBilling.label_of(code)
