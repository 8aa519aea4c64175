"""Optimistic concurrency of the quote API: ETag on reads, If-Match on writes.

A quote's ETag is its revision (`"7"`). PUT and PATCH must send it in If-Match (428 without:
a client that never read the quote would overwrite whatever changed); DELETE may (412 when
stale, unconditional without). `If-Match: *` is the explicit "whatever the revision" of RFC 9110:
the write goes ahead, still merged field by field with the current row. A weak tag (`W/"7"`,
as some proxies rewrite ETags) names the same revision. A stale or unknown tag gets 412 with the
changes since that revision (fields, current values, who and when) and the current ETag.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from core.api_schema import PortalAutoSchema

from ..models import Quote
from ..services import VERSION_FIELDS, QuoteConflict

ANY = "*"
# The header's grammar as documented (RFC 9110 entity tags of this API, or `*`).
IF_MATCH_PATTERN = r'^(\*|(W/)?"\d{1,9}"(\s*,\s*(W/)?"\d{1,9}")*)$'
_TAG = re.compile(r'^(?:W/)?"?(\d{1,9})"?$')


def etag(quote: Quote) -> str:
    return f'"{quote.revision}"'


def if_match(header: str | None) -> str | list[int] | None:
    """None without the header, ANY for `*`, else the revisions it names (empty: none)."""
    if header is None or not header.strip():
        return None
    if header.strip() == ANY:
        return ANY
    revisions = []
    for tag in header.split(","):
        match = _TAG.match(tag.strip())
        if match:
            revisions.append(int(match.group(1)))
    return revisions


def precondition_required() -> Response:
    return Response(
        {
            "detail": _(
                "Send the quote's ETag in an If-Match header (read the quote first): a change "
                "without it could overwrite someone else's."
            ),
            "code": "precondition_required",
        },
        status=status.HTTP_428_PRECONDITION_REQUIRED,
    )


def precondition_failed(conflict: QuoteConflict, current: dict[str, Any]) -> Response:
    """412 saying what changed since the revision the client sent; `current` is the quote as
    the API shows it now."""
    quote = conflict.quote
    changed: dict[str, Any] = {}
    for name in conflict.changed_fields:
        if name in VERSION_FIELDS:
            changed[f"terms.{name}"] = (current.get("terms") or {}).get(name)
        else:
            changed[name] = current.get(name)
    detail = _(
        "The quote has changed since the revision you sent; it is now at revision %(current)s. "
        "Nothing was saved: read it again and reapply your change."
    ) % {"current": quote.revision}
    if changed:
        detail += " " + _("Changed since: %(fields)s.") % {"fields": ", ".join(changed)}
    body = {
        "detail": detail,
        "code": "stale_revision",
        "your_revision": conflict.based_on,
        "current_revision": quote.revision,
        "changed": changed,
        "changes": [
            {
                "revision": c.revision,
                "fields": c.fields,
                "changed_by": c.changed_by.get_username() if c.changed_by else None,
                "changed_at": c.changed_at.isoformat(),
            }
            for c in conflict.changes
        ],
    }
    return Response(body, status=status.HTTP_412_PRECONDITION_FAILED, headers={"ETag": etag(quote)})


_STALE = {
    "type": "object",
    "properties": {
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "your_revision": {"type": ["integer", "null"]},
        "current_revision": {"type": "integer"},
        "changed": {"type": "object", "additionalProperties": True},
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "revision": {"type": "integer"},
                    "fields": {"type": "array", "items": {"type": "string"}},
                    "changed_by": {"type": ["string", "null"]},
                    "changed_at": {"type": "string", "format": "date-time"},
                },
            },
        },
    },
    "required": ["detail", "current_revision", "changed", "changes"],
    "additionalProperties": True,
}
_REQUIRED = {
    "type": "object",
    "properties": {"detail": {"type": "string"}, "code": {"type": "string"}},
    "required": ["detail"],
    "additionalProperties": True,
}


def _body(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


class QuoteAutoSchema(PortalAutoSchema):
    """Documents the quote API's ETag response header, the If-Match request header, 412 and
    428."""

    def _is_detail(self) -> bool:
        return "{" in self.path

    def get_override_parameters(self) -> list[Any]:
        params = list(super().get_override_parameters())
        if self.method in ("PUT", "PATCH", "DELETE") and self._is_detail():
            required = self.method != "DELETE"
            params.append(OpenApiParameter(
                "If-Match", OpenApiTypes.STR, OpenApiParameter.HEADER, required=required,
                pattern=IF_MATCH_PATTERN,
                description=(
                    "The quote's ETag as read (its revision, e.g. \"3\"), or * for any "
                    "revision. " + ("Required: 428 without it. " if required else "")
                    + "412 when the quote has changed since."
                ),
            ))  # fmt: skip
        ok = {"GET": [200], "PUT": [200], "PATCH": [200], "POST": [201]}.get(self.method)
        if ok and (self._is_detail() or self.method == "POST"):
            params.append(OpenApiParameter(
                "ETag", OpenApiTypes.STR, OpenApiParameter.HEADER, response=ok,
                description="The quote's revision; send it back in If-Match to change it.",
            ))  # fmt: skip
        return params

    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:  # type: ignore[override]
        responses = super()._get_response_bodies(direction)
        if direction != "response" or not self._is_detail():
            return responses
        if self.method in ("PUT", "PATCH", "DELETE"):
            responses["412"] = _body(
                "If-Match names another revision: nothing written; the body says what changed "
                "since (fields, current values, who and when).",
                _STALE,
            )
        if self.method in ("PUT", "PATCH"):
            responses["428"] = _body("No If-Match header: nothing written.", _REQUIRED)
        return responses
