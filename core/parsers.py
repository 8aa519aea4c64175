"""The API's JSON parser, bounded: a deeply nested body is a 400 with a clear message.

DRF's JSONParser hands the body to ``json.loads``, whose C decoder recurses once per level: a
200 KB body of 100,000 ``[`` raised ``RecursionError``, which DRF does not catch (a 500). The body
is first read through the same nesting bound as uploaded logs (``domain.benchlogs.depth``).
"""

from __future__ import annotations

import io
from typing import Any

from django.utils.translation import get_language
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from domain.benchlogs.depth import DepthGuard
from domain.benchlogs.errors import BenchLogError


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = stream.read() if stream is not None else b""
        guard = DepthGuard(io.BytesIO(body))
        try:
            while guard.read(64 * 1024):
                pass
        except BenchLogError as exc:
            zh = (get_language() or "").startswith("zh")
            raise ParseError(exc.message.zh if zh else exc.message.en) from exc
        try:
            return super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError as exc:  # unreachable with the bound; kept as the last guard
            raise ParseError("JSON nested too deeply.") from exc
