"""Request middleware: refuse bodies over 64 KiB (413, PRODUCT.md); time each request."""

import time
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse

from .errors import error_body


class BodySizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_BODY_BYTES
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        try:
            too_big = declared > limit or len(request.body) > limit
        except RequestDataTooBig:
            too_big = True
        if too_big:
            return JsonResponse(
                error_body("too_large", f"The request body is over {limit // 1024} KiB."),
                status=413,
            )
        return self.get_response(request)


class ServerTimingMiddleware:
    """Adds ``Server-Timing: app;dur=<ms>`` to every response: the time spent in
    Django, so clients and benchmarks can tell server time from the network."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        start = time.perf_counter()
        response = self.get_response(request)
        response["Server-Timing"] = f"app;dur={(time.perf_counter() - start) * 1000:.2f}"
        return response
