"""Bodies above the upload bound get a JSON answer under /api/.

Django refuses a body above ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (5 MB) with ``RequestDataTooBig``,
which its handler turns into the HTML 400 page: an API client wants a 413 with a message it can
read. A declared ``Content-Length`` above the bound is answered before anything reads the body;
a body found too big while read (no length given) is answered the same. Multipart bodies are left
to Django: their files do not count against the bound (benchmark logs are uploaded that way), and
their other fields are checked as they are read.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import get_language

from domain.messages import Message

API_PREFIX = "/api/"


def too_big_message(limit: int) -> Message:
    mb = f"{limit / (1024 * 1024):g}"
    return Message(
        "request.too_big",
        f"The request body is larger than {mb} MB, the most this API reads. Send a smaller body "
        "(benchmark logs go as file uploads).",
        f"请求体超过 {mb} MB，超出本接口可读取的上限。"
        "请发送更小的请求体（基准测试日志请以文件上传）。",
    )


def _answer() -> JsonResponse:
    text = too_big_message(settings.DATA_UPLOAD_MAX_MEMORY_SIZE).text(get_language())
    return JsonResponse({"detail": text}, status=413)


def _declared_too_big(request: HttpRequest) -> bool:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    if limit is None or request.content_type == "multipart/form-data":
        return False
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return length > limit


class ApiBodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX) and _declared_too_big(request):
            return _answer()
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, RequestDataTooBig) and request.path.startswith(API_PREFIX):
            return _answer()
        return None
