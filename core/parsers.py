"""The API's JSON parser, bounded: a deeply nested body is a 400 with a clear message.

A body that is not a JSON object (`[]`, `5`, `"x"`, `true`, `null`) is a 400 too: every endpoint
takes an object, and code reading one from a list or a number answered a 500.

Numbers a float cannot hold are refused by name: an exponent overflow (``1e999`` became infinity,
and ``int(inf)`` in a foreign-key field raised OverflowError) and a subnormal (``5e-324`` passed
every "greater than zero" check and later divided into infinity). Lone UTF-16 surrogates
(``"\ud800"``) are refused before any serializer can echo them in a message the JSON renderer
cannot encode.

It also refuses NUL characters (``\u0000``) anywhere in the body's strings and keys: PostgreSQL
cannot hold them in text, so any lookup or write with one was a 500 (a fuzzed quote's GPU key).

DRF's JSONParser hands the body to ``json.loads``, whose C decoder recurses once per level: a
200 KB body of 100,000 ``[`` raised ``RecursionError``, which DRF does not catch (a 500). The body
is first read through the same nesting bound as uploaded logs (``domain.benchlogs.depth``).
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections.abc import Callable
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _
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
            data = json.loads(
                body,
                parse_float=_parse_float,
                parse_int=_parse_int,
                parse_constant=_refuse_constant,
            )
        except RecursionError as exc:  # unreachable with the bound; kept as the last guard
            raise ParseError("JSON nested too deeply.") from exc
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(_("The request body is not valid JSON.")) from exc
        if not isinstance(data, dict):
            # every body of this API is an object; `[]`, `5`, `"x"`, `true` or `null` is a 400
            zh = (get_language() or "").startswith("zh")
            raise ParseError(NOT_OBJECT_ZH if zh else NOT_OBJECT_EN)
        where = _first_field(data, _is_out_of_range)
        if where is not None:
            text = _(
                "This number is out of range: it is too large or too close to zero to be stored."
            )
            raise ParseError(_error_at(where, text))
        # checked on every body: json decodes raw bytes with "surrogatepass" as well as escapes
        where = _first_field(data, _has_surrogate)
        if where is not None:
            text = _("Text in the request contains an invalid character (a lone surrogate).")
            raise ParseError(_error_at(where, text))
        if b"\\u0000" in body or b"\x00" in body:
            where = _nul_field(data)
            if where is not None:
                zh = (get_language() or "").startswith("zh")
                text = NUL_ZH if zh else NUL_EN
                # Named by its top-level field, like the serializers' own errors.
                raise ParseError({where: [text]} if where else text)
        return data


NOT_OBJECT_EN = "The request body must be a JSON object ({...}) with the fields of this endpoint."
NOT_OBJECT_ZH = "请求体必须是包含该接口字段的 JSON 对象（{...}）。"
NUL_EN = "Text in the request contains a null character (\\u0000), which cannot be stored."
NUL_ZH = "请求中的文本含有 NUL 字符（\\u0000），无法保存。"


class _OutOfRange:
    """A number literal a float cannot hold; found and named by its field after parsing."""


OUT_OF_RANGE = _OutOfRange()
SMALLEST_NORMAL = sys.float_info.min  # 2.2e-308: below it (but not 0) a float loses precision


def _parse_float(literal: str) -> float | _OutOfRange:
    value = float(literal)
    if math.isinf(value) or (value != 0.0 and abs(value) < SMALLEST_NORMAL):
        return OUT_OF_RANGE
    return value


def _parse_int(literal: str) -> int | _OutOfRange:
    # an integer no float can hold raised OverflowError (a 500) in DRF's float fields
    if len(literal.lstrip("-")) > 308:
        return OUT_OF_RANGE
    return int(literal)


def _refuse_constant(literal: str) -> Any:
    # NaN, Infinity and -Infinity are not JSON (DRF's strict mode refused them too)
    raise ValueError(f"{literal} is not a JSON number")


def _first_field(data: Any, bad: Callable[[Any], bool]) -> list[str] | None:
    """The path of keys to the first value (or key) holding something `bad`, as DRF names nested
    fields (["terms", "nic_gbps"]); it stops at a list or at a bad key ("detail" when that is the
    top level). [] when the body itself is bad; None when nothing is."""
    if isinstance(data, dict):
        for key, value in data.items():
            if bad(key):
                return ["detail"]
            if _contains(value, bad):
                below = _first_field(value, bad) if isinstance(value, dict) else []
                return [str(key), *(below or [])] if below != ["detail"] else [str(key)]
        return None
    return [] if _contains(data, bad) else None


def _error_at(path: list[str], text: str) -> Any:
    """A ParseError detail naming the field: {"terms": {"nic_gbps": [text]}}, or the text."""
    if not path:
        return text
    detail: Any = [text]
    for key in reversed(path):
        detail = {key: detail}
    return detail


def _contains(value: Any, bad: Callable[[Any], bool]) -> bool:
    if bad(value):
        return True
    if isinstance(value, dict):
        return any(bad(k) or _contains(v, bad) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains(v, bad) for v in value)
    return False


def _is_out_of_range(value: Any) -> bool:
    return value is OUT_OF_RANGE


def _has_surrogate(value: Any) -> bool:
    return isinstance(value, str) and any("\ud800" <= c <= "\udfff" for c in value)


def _nul_field(data: Any) -> str | None:
    """The top-level field holding a NUL character ("" when not under a key), or None."""
    if isinstance(data, dict):
        for key, value in data.items():
            if _has_nul(key) or _has_nul(value):
                return str(key).replace("\x00", "") or "detail"
        return None
    return "" if _has_nul(data) else None


def _has_nul(value: Any) -> bool:
    """Any string or key holding a NUL character (the depth is already bounded)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False
