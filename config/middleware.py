"""Refuse request bodies over 64 KiB with 413 and the error shape (PRODUCT.md)."""

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
