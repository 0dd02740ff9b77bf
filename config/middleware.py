"""Request middleware: an id and an access log line per request; refuse bodies
over 64 KiB (413, PRODUCT.md); time each request; serve the static files (to the
hosts of ``ALLOWED_HOSTS`` only). And the websockets' one
guard: a socket opened while the database or Redis does not answer is closed
with 4503, "try again later" (``UnavailableSocketGuard``).

They work sync and async alike; under daphne the whole chain runs sync, in
one crossing to the worker thread (``config/asgi.py``).
"""

import json
import re
import time
import uuid
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.functional import SimpleLazyObject, empty
from rest_framework.settings import api_settings
from whitenoise.middleware import WhiteNoiseMiddleware

from kit import logs
from kit.http import too_large_body, unavailable, unavailable_body

Handler = Callable[[HttpRequest], Any]


def _too_large(request: HttpRequest) -> HttpResponse | None:
    limit = settings.MAX_BODY_BYTES
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    try:
        too_big = declared > limit or len(request.body) > limit
    except RequestDataTooBig:
        too_big = True
    if not too_big:
        return None
    return JsonResponse(too_large_body(limit), status=413)


class _Middleware:
    """Runs ``before``/``after`` around the handler, sync or async as the handler is."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def before(self, request: HttpRequest) -> HttpResponse | None:
        return None

    def after(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        return response

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        if iscoroutinefunction(self):
            return self.__acall__(request)
        early = self.before(request)
        return early or self.after(request, self.get_response(request))

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        early = self.before(request)
        return early or self.after(request, await self.get_response(request))


class BodySizeLimitMiddleware(_Middleware):
    def before(self, request: HttpRequest) -> HttpResponse | None:
        return _too_large(request)


class ServerTimingMiddleware(_Middleware):
    """Adds ``Server-Timing: app;dur=<ms>``: the time spent in Django, so clients
    and benchmarks can tell server time from the network."""

    def before(self, request: HttpRequest) -> None:
        request._started = time.perf_counter()  # type: ignore[attr-defined]

    def after(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        elapsed = time.perf_counter() - request._started  # type: ignore[attr-defined]
        response["Server-Timing"] = f"app;dur={elapsed * 1000:.2f}"
        return response


class StaticFilesMiddleware(_Middleware):
    """WhiteNoise serving the client's ES modules and CSS (``/static/``), async
    capable: WhiteNoise's own middleware is sync-only, and under daphne one
    sync middleware would move every request through a thread. Files are opened
    on a worker thread; every other request passes straight through.

    A file is served only to a Host in ``ALLOWED_HOSTS``, as every other answer
    is: Django checks the Host where something asks for it (``CommonMiddleware``,
    after this one), so a static file went to any Host. ``get_host()`` raises
    ``DisallowedHost``; Django logs it (one warning line, ``kit/logs.py``) and
    answers ``handler400``: 400 ``bad_host`` in the error shape
    (``kit.http.bad_request``, issue 37)."""

    def __init__(self, get_response: Handler) -> None:
        super().__init__(get_response)
        with warnings.catch_warnings():
            # Without collectstatic (a development run, the tests) STATIC_ROOT is
            # not there yet and the files come from the apps' folders instead.
            warnings.filterwarnings("ignore", "No directory at", UserWarning)
            self.whitenoise = WhiteNoiseMiddleware(get_response)

    def _static_file(self, request: HttpRequest) -> Any:
        whitenoise = self.whitenoise
        if whitenoise.autorefresh:
            return whitenoise.find_file(request.path_info)
        return whitenoise.files.get(request.path_info)

    def __call__(self, request: HttpRequest) -> HttpResponse | Awaitable[HttpResponse]:
        if iscoroutinefunction(self):
            return self.__acall__(request)
        static_file = self._static_file(request)
        if static_file is not None:
            request.get_host()
            return self.whitenoise.serve(static_file, request)
        return self.get_response(request)  # type: ignore[return-value]

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(settings.STATIC_URL):
            static_file = await sync_to_async(self._static_file, thread_sensitive=False)(request)
            if static_file is not None:
                request.get_host()
                return await sync_to_async(self.whitenoise.serve, thread_sensitive=False)(
                    static_file, request
                )
        return await self.get_response(request)  # type: ignore[misc]


_GOOD_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
access_log = logs.get_logger("config.access")
_ROUTINE = frozenset({"/livez", "/readyz", "/healthz", "/metrics"})
"""What the platform asks every few seconds (probes, Prometheus' scrape): its
access lines are DEBUG while it is answered well, INFO once it is not."""


def _known_user_id(request: HttpRequest) -> int | None:
    """The user a request turned out to be, without asking the session for it
    (a view that never looked at the user leaves the lazy object unevaluated)."""
    user = request.__dict__.get("user")
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:  # type: ignore[attr-defined]
        return None
    return logs.user_id(user)


class RequestIdMiddleware(_Middleware):
    """Every request gets an id: the proxy's ``X-Request-ID`` when there is a
    proxy and it is a sane token (nginx sets ``$request_id``), else a new one. It is echoed in the
    answer and is in the context of every log line written while handling it
    (``kit/logs.py``), the last of which is the access line: method, path
    (never the query string), status, milliseconds, user — at DEBUG for a
    probe or a scrape answered well."""

    def before(self, request: HttpRequest) -> None:
        # Believed only behind a proxy (NUM_PROXIES, whose X-Forwarded-For is
        # believed too; nginx and ingress-nginx set it on every request): facing
        # clients, an id is the client's to choose, and could pass one's requests
        # off as another's in the logs (issue 25).
        given = request.headers.get("X-Request-ID", "") if api_settings.NUM_PROXIES else ""
        rid = given if _GOOD_ID.fullmatch(given) else uuid.uuid4().hex
        request.request_id = rid  # type: ignore[attr-defined]
        request._log_started = time.perf_counter()  # type: ignore[attr-defined]
        logs.start(request_id=rid)

    def after(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        response["X-Request-ID"] = request.request_id  # type: ignore[attr-defined]
        started = request._log_started  # type: ignore[attr-defined]
        logs.bind(user_id=_known_user_id(request))  # signed in or out by this request
        routine = request.path in _ROUTINE and response.status_code < 400
        (access_log.debug if routine else access_log.info)(
            "request",
            method=request.method,
            path=request.path,
            status=response.status_code,
            ms=round((time.perf_counter() - started) * 1000, 2),
        )
        return response


CLOSE_UNAVAILABLE = 4503
"""A websocket's close code when the database or Redis did not answer: try again
later (4000 + the HTTP status, as ``kit.sockets``' codes; games/websocket.md)."""


class UnavailableSocketGuard:
    """ASGI middleware around the websocket routes: when opening a socket finds
    the database or Redis not answering (the session's user is looked up
    before any consumer runs, the game's snapshot as it opens) — down, or
    stalled past the bounded waits of ``DATABASES`` — the socket is accepted,
    told why (the 503's error body in an ``error`` frame) and closed with
    ``CLOSE_UNAVAILABLE`` (4503): try again later, which the client does with
    its backoff (games/websocket.md). Not a handshake dropped with a traceback.
    Frames of an open socket answer such errors themselves (an ``error`` frame:
    ``kit.sockets.JsonSocket.receive``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        said = {"accepted": False, "closed": False}

        async def tracked(message: dict[str, Any]) -> None:
            if message["type"] == "websocket.accept":
                said["accepted"] = True
            elif message["type"] == "websocket.close":
                said["closed"] = True
            await send(message)

        async def heard() -> Any:
            message = await receive()
            if message["type"] == "websocket.disconnect":  # the client has gone
                said["closed"] = True
            return message

        try:
            await self.app(scope, heard, tracked)
        except Exception as exc:
            if not unavailable(exc) or said["closed"]:
                raise
            access_log.warning("websocket unavailable", path=scope.get("path"))
            if not said["accepted"]:  # accept first: a close before it loses the code
                await send({"type": "websocket.accept"})
            error = {"type": "error", **unavailable_body(exc)}
            await send({"type": "websocket.send", "text": json.dumps(error)})
            await send({"type": "websocket.close", "code": CLOSE_UNAVAILABLE})
