"""The portal's OpenAPI generator: every operation also documents the errors it can answer.

drf-spectacular only documents the success response; the API also answers 400 (bad input),
401 (no or bad credentials), 403 (no team or read-only role), 404 (unknown or another
team's row, or a page past the end) and, for operations with a body, 415 (no or another
Content-Type), each with a JSON body. Clients and schemathesis read them
from the schema instead of meeting them undocumented.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

_DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": True,
}
# A validation error is an object of field -> messages, or (from a view) a list of messages.
_VALIDATION = {
    "oneOf": [
        {"type": "object", "additionalProperties": True},
        {"type": "array", "items": {"type": "string"}},
    ]
}


def _error(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


class PortalAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction: str = "response") -> dict[str, Any]:  # type: ignore[override]
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        errors: dict[str, dict[str, Any]] = {}
        has_query = self.method == "GET" and self._is_list_view()
        if self.method in ("POST", "PUT", "PATCH") or has_query:
            errors["400"] = _error("Invalid input; the body names each problem.", _VALIDATION)
        errors["401"] = _error("Authentication credentials were missing or invalid.", _DETAIL)
        errors["403"] = _error("No team membership, or the role may not write.", _DETAIL)
        if "{" in self.path or has_query:
            errors["404"] = _error("Not found (or another team's), or no such page.", _DETAIL)
        if self.method in ("POST", "PUT", "PATCH"):
            errors["415"] = _error(
                "The request body's Content-Type is missing or not accepted.", _DETAIL
            )
        for code, body in errors.items():
            responses.setdefault(code, body)
        return responses
