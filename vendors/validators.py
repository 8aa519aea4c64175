"""Field validators that reuse the domain parsers and speak the user's language."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from domain import plausibility
from domain.credentials import (
    CredentialFormatError,
    looks_like_icp_filing,
    normalize_credit_code,
    parse_icp_filing,
    parse_licence_number,
    validate_business_codes,
)
from domain.messages import Message

from .schemas import MAX_BUSINESS_CODE_CHARS, MAX_BUSINESS_CODES


def _error(message: Message) -> ValidationError:
    return ValidationError(message.text(get_language()), code=message.code)


def validate_credit_code(value: str) -> None:
    if not value:
        return
    try:
        normalize_credit_code(value)
    except CredentialFormatError as exc:
        raise _error(exc.message) from exc


def validate_licence_number(value: str) -> None:
    """A real licence number, or an ICP filing number *as the vendor presented it*.

    The second is accepted on purpose: the claim must be recorded so the checks can flag it.
    """
    if looks_like_icp_filing(value):
        return
    try:
        parse_licence_number(value)
    except CredentialFormatError as exc:
        raise _error(exc.message) from exc


def validate_icp_filing(value: str) -> None:
    try:
        parse_icp_filing(value)
    except CredentialFormatError as exc:
        raise _error(exc.message) from exc


def validate_business_code_list(value: object) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(
            _("A list of business codes such as B11, B12 is expected."), code="business_codes_shape"
        )
    if len(value) > MAX_BUSINESS_CODES or any(len(v) > MAX_BUSINESS_CODE_CHARS for v in value):
        raise ValidationError(
            _("At most %(n)s business codes, each a short code such as B11.")
            % {"n": MAX_BUSINESS_CODES},
            code="business_codes_shape",
        )
    try:
        validate_business_codes(value)
    except CredentialFormatError as exc:
        raise _error(exc.message) from exc


def licence_codes_consistent(number: str, codes: list[str]) -> None:
    """Cross-field check: the business codes must belong to the classes in the number."""
    if looks_like_icp_filing(number):
        return
    try:
        validate_business_codes(codes, parse_licence_number(number))
    except CredentialFormatError as exc:
        raise _error(exc.message) from exc


def plausibility_errors(kind: str, get) -> tuple[dict[str, list[str]], list]:  # type: ignore[no-untyped-def]
    """(errors, warnings) of domain/plausibility.py for a vendor record: values beyond a hard bound
    as field -> messages in the active language; soft-bound findings the analyst must confirm.
    Forms and the API call it with `kind` = the model's name."""
    hard, soft = plausibility.split(plausibility.vendor_findings(kind, get))
    lang = get_language()
    errors: dict[str, list[str]] = {}
    for f in hard:
        errors.setdefault(f.field, []).append(f.message.text(lang))
    return errors, soft
