"""The device id: a long-lived random cookie, for the fair-play review only
(issue 25, docs/operations.md, "Fair-play review"). Two accounts that start ranked games
from one browser are one of the cross-account signals (``games/fairplay.py``).
It holds nothing but 16 random bytes, signed so that a made-up value is
replaced; it is never sent anywhere or used for anything else.

It is set on the answer to a request that changes something (a POST: signing
in or up, starting a game) and that arrived without a valid one — never on a
GET, whose answer a shared cache may keep and hand to others with its
``Set-Cookie``. The value is on ``request.device_id`` for the views."""

from __future__ import annotations

import re
import secrets
from collections.abc import Awaitable, Callable

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import sync_and_async_middleware

DEVICE_COOKIE = "pd_device"
DEVICE_MAX_AGE = 2 * 365 * 24 * 3600
"""Two years: long enough to see a second account made weeks after the first."""
_SALT = "games.device"
_VALUE = re.compile(r"[A-Za-z0-9_-]{22}")
_SAFE = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def device_id(request: HttpRequest) -> str:
    """The request's device id ("" where the middleware did not run)."""
    return getattr(request, "device_id", "")


def _before(request: HttpRequest) -> bool:
    """Put the device id on ``request``; True when it is new (to be set)."""
    value = request.get_signed_cookie(DEVICE_COOKIE, default="", salt=_SALT)
    fresh = not _VALUE.fullmatch(value)
    request.device_id = secrets.token_urlsafe(16) if fresh else value  # type: ignore[attr-defined]
    return fresh


def _after(request: HttpRequest, response: HttpResponse, fresh: bool) -> HttpResponse:
    if fresh and request.method not in _SAFE:
        response.set_signed_cookie(
            DEVICE_COOKIE,
            device_id(request),
            salt=_SALT,
            max_age=DEVICE_MAX_AGE,
            httponly=True,
            samesite="Lax",
            secure=settings.SESSION_COOKIE_SECURE,  # true under HTTPS=1
        )
    return response


Handler = Callable[[HttpRequest], HttpResponse | Awaitable[HttpResponse]]


@sync_and_async_middleware
def DeviceIdMiddleware(get_response: Handler) -> Handler:
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            fresh = _before(request)
            return _after(request, await get_response(request), fresh)  # type: ignore[misc]

        return middleware  # type: ignore[return-value]

    def sync_middleware(request: HttpRequest) -> HttpResponse:
        fresh = _before(request)
        return _after(request, get_response(request), fresh)  # type: ignore[arg-type]

    return sync_middleware
