"""One error shape everywhere: ``{"error": {"code": "…", "message": "…"}}`` (PRODUCT.md).

The doors' side of saying no. Services and selectors refuse in the domain's
words (``kit/errors.py``: a :class:`Refusal` of one kind); the doors (REST
views, websocket consumers) answer each kind with its status (``STATUS``),
through :func:`describe_error`, and raise :class:`ApiError`, an HTTP error, for
what only a door can refuse (a malformed request, a frame, a socket over its caps).

This module turns every exception DRF sees, CSRF failures, and Django's own
400/404/500 on API paths (a Host not served: on every path) into that shape. It
imports no app.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.exceptions import DisallowedHost, PermissionDenied, RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import bad_request as django_bad_request
from django.views.defaults import page_not_found, server_error
from django_redis.exceptions import ConnectionInterrupted
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request
from rest_framework.response import Response

from . import logs
from .errors import (
    Conflict,
    Forbidden,
    Gone,
    Illegal,
    Invalid,
    NotFound,
    Refusal,
    as_refusal,
)

STATUS: dict[type[Refusal], int] = {
    Refusal: 400,
    Invalid: 400,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Gone: 410,
    Illegal: 422,
}
"""The HTTP status each kind of refusal is answered with, at every door."""


class ApiError(exceptions.APIException):
    """An HTTP error a door raises, with our code and message; ``extra`` fields
    go beside them. Never raised by a service or selector (a test checks)."""

    def __init__(self, status_code: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.code = code
        self.message = message
        self.extra = extra


def refusal_status(refusal: Refusal) -> int:
    """The HTTP status of ``refusal``'s kind (its nearest kind in ``STATUS``)."""
    return next(STATUS[k] for k in type(refusal).__mro__ if k in STATUS)


THROTTLED = {
    "register": "Too many sign-ups from your address",
    "login": "Too many sign-in attempts from your address",
    "login-account": "Too many sign-in attempts at this account",
    "games": "Too many new games",
    "actions": "Too many moves",
}
"""What a 429 of each rate-limit scope (kit.api.rate_limit) was counting."""


def how_long(seconds: int) -> str:
    """42 → "42 seconds"; 2520 → "42 minutes" (rounded up); 7200 → "2 hours"."""
    if seconds < 60:
        return f"{seconds} second{'s' * (seconds != 1)}"
    minutes = -(-seconds // 60)
    if minutes < 120:
        return f"{minutes} minute{'s' * (minutes != 1)}"
    hours = -(-minutes // 60)
    return f"{hours} hours"


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **extra}}


def too_large_body(limit: int) -> dict[str, Any]:
    """The 413's body, wherever a body over ``MAX_BODY_BYTES`` is refused (daphne's
    request, ``config.asgi.BodyLimit``, the middleware)."""
    return error_body("too_large", f"The request body is over {limit // 1024} KiB.")


def _first_message(detail: Any) -> tuple[str, str]:
    """The first (field path, message) of a DRF validation detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            path, message = _first_message(value)
            return (f"{key}.{path}" if path else str(key)), message
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return "", str(detail)


UNAVAILABLE_RETRY_S = 5
UNAVAILABLE_MESSAGE = "The service is unreachable right now; nothing was changed. Try again."
DATABASE_UNAVAILABLE_MESSAGE = (
    "The database did not answer in time; nothing was changed. Try again in a few seconds."
)


def unavailable(exc: BaseException | None) -> bool:
    """PostgreSQL or Redis did not answer (down, restarting, the pool out of
    connections): the request changed nothing — its transaction never
    committed, and what runs after a commit (broadcasts, queued jobs) never
    raises — and can be sent again."""
    if _database_unavailable(exc):
        return True
    # Redis, and django-redis's wrapper of its errors (the cache).
    return isinstance(exc, RedisConnectionError | RedisTimeoutError | ConnectionInterrupted)


def _database_unavailable(exc: BaseException | None) -> bool:
    """PostgreSQL down, or stalled past a bounded wait (settings, DATABASES: a
    timeout, PgBouncer's query_wait_timeout), or the pool out of connections."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    return type(exc).__name__ == "PoolTimeout"  # psycopg_pool, when the pool is in use


def unavailable_body(exc: BaseException | None) -> dict[str, Any]:
    """The 503's body, naming the database when it was the one that did not
    answer (down, or stalled past its bounded waits: settings, DATABASES)."""
    database = _database_unavailable(exc)
    return error_body(
        "unavailable", DATABASE_UNAVAILABLE_MESSAGE if database else UNAVAILABLE_MESSAGE
    )


def describe_error(exc: Exception) -> tuple[int, dict[str, Any], dict[str, str]] | None:
    """(status, body, headers) for an error we answer; None for a real bug.
    Shared by the REST views and the websocket consumers."""
    headers: dict[str, str] = {}
    if unavailable(exc):
        headers["Retry-After"] = str(UNAVAILABLE_RETRY_S)
        return 503, unavailable_body(exc), headers
    if isinstance(exc, ApiError):
        return exc.status_code, error_body(exc.code, exc.message, **exc.extra), headers
    refusal = as_refusal(exc)
    if refusal is not None:
        body = error_body(refusal.code, refusal.message, **refusal.extra)
        return refusal_status(refusal), body, headers
    if isinstance(exc, RequestDataTooBig):
        return 413, error_body("too_large", "The request body is over 64 KiB."), headers
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None
    code, message = "error", str(exc.detail)
    if isinstance(exc, exceptions.ParseError):
        code, message = "bad_json", f"The body is not valid JSON: {exc.detail}"
    elif isinstance(exc, exceptions.ValidationError):
        field, text = _first_message(exc.detail)
        code, message = "invalid", f"{field}: {text}" if field else text
    elif isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        code, message = "not_authenticated", "Sign in first."
    elif isinstance(exc, exceptions.Throttled):
        wait = max(1, int(exc.wait or 1))
        scope = getattr(exc, "scope", "")
        headers["Retry-After"] = str(wait)
        what = THROTTLED.get(scope, "Too many requests")
        message = f"{what}: try again in {how_long(wait)}."
        # The client says it in the player's language from these (reasons.js).
        return 429, error_body("throttled", message, params={"wait": wait, "scope": scope}), headers
    else:
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else "error"
    auth_header = getattr(exc, "auth_header", None)
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    return exc.status_code, error_body(code, message), headers


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    described = describe_error(exc)
    if described is None:
        return None  # a real bug: Django's 500 handler answers (JSON on API paths)
    status_code, body, headers = described
    return Response(body, status=status_code, headers=headers)


class CsrfSessionAuthentication(SessionAuthentication):
    """Session auth that checks CSRF on every unsafe request, signed in or not
    (DRF's own skips anonymous ones, which would leave sign-in open to login CSRF)."""

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied as exc:
            raise ApiError(403, "csrf_failed", str(exc.detail)) from None

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        self.enforce_csrf(request)
        user = getattr(request._request, "user", None)
        if not user or not user.is_active:
            return None
        logs.bind(user_id=logs.user_id(user))  # on the lines the view writes
        return (user, None)

    def authenticate_header(self, request: Request) -> str:
        return 'Session realm="api"'


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return JsonResponse(
        error_body("csrf_failed", f"CSRF check failed: {reason or 'missing token'}."), status=403
    )


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 400 (``handler400``): a request it takes as suspicious. A Host
    not in ``ALLOWED_HOSTS`` is answered in the error shape on every path, pages
    and static files too (``config.middleware.StaticFilesMiddleware`` checks it
    before serving a file): nothing of ours answers for another host, and a
    client — a page or a script — reads why as from any other 4xx (issue 37).
    Django has logged it already (one warning line: ``kit/logs.py``)."""
    if isinstance(exception, DisallowedHost):
        message = "The Host header names a host this server does not answer for."
        return JsonResponse(error_body("bad_host", message), status=400)
    if _is_api(request):
        return JsonResponse(error_body("bad_request", "The request is malformed."), status=400)
    return django_bad_request(request, exception)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(
            error_body("not_found", f"No such resource: {request.path}"), status=404
        )
    return page_not_found(request, exception)


def server_failure(request: HttpRequest) -> HttpResponse:
    # Errors outside DRF's views (middleware, pages) come here: a database that
    # does not answer is a 503, not our bug.
    exc = sys.exc_info()[1]
    if unavailable(exc):
        body = unavailable_body(exc)
        if _is_api(request):
            response: HttpResponse = JsonResponse(body, status=503)
        else:
            message = body["error"]["message"]
            response = HttpResponse(message, status=503, content_type="text/plain")
        response["Retry-After"] = str(UNAVAILABLE_RETRY_S)
        return response
    if _is_api(request):
        return JsonResponse(error_body("server_error", "Something broke on our side."), status=500)
    return server_error(request)
