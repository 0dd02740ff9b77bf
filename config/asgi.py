"""The ASGI application daphne serves: HTTP through Django (no body over
``MAX_BODY_BYTES`` read), websockets through Channels — only from the site's
own origin, with the session's user in the scope."""

import json
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.csrf import CsrfViewMiddleware

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimit:
    """Refuse a request body over ``MAX_BODY_BYTES`` before anything reads it
    (issue 25): at once with 413 when its Content-Length says so, and as soon as
    a body without one (chunked) grows past it — Django would otherwise take the
    whole body into a file first and parse it, however big (a 40 MB form stalled
    every socket of the daphne). The rest of such a body is never read."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = settings.MAX_BODY_BYTES
        length = next((v for k, v in scope["headers"] if k == b"content-length"), None)
        if length is not None and (not length.isdigit() or int(length) > limit):
            await self.refuse(send, limit)
            return
        read = 0
        refused = False

        async def receive_bounded() -> dict[str, Any]:
            nonlocal read, refused
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > limit:  # the app is told the client went away: it stops reading
                    refused = True
                    return {"type": "http.disconnect"}
            return message

        async def send_unless_refused(message: dict[str, Any]) -> None:
            if not refused:
                await send(message)

        await self.app(scope, receive_bounded, send_unless_refused)
        if refused:
            await self.refuse(send, limit)

    @staticmethod
    async def refuse(send: Send, limit: int) -> None:
        body = json.dumps(too_large_body(limit)).encode()
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class OneCrossingHandler(ASGIHandler):
    """Django's ASGI handler with a request's middleware and view run in one
    crossing from the event loop to the worker thread (issue 14).

    Django's own builds the chain async; its middleware are "async capable" by
    running each hook through ``sync_to_async``, and a sync view through one
    more: about 18 crossings for an API call. Built sync, the chain (the
    middleware of ``config/middleware.py`` work either way) and the view run in
    one, on the thread Django's sync code always runs on under ASGI."""

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        if signin.hashes_password(request):  # ~0.4 s of CPU: on threads of its own (issue 25)
            return await signin.run_hashing(self.get_response, request)
        response: Any = await sync_to_async(self.get_response, thread_sensitive=True)(request)
        return response


def _too_large_response() -> bytes:
    body = json.dumps(too_large_body(settings.MAX_BODY_BYTES))
    head = (
        "HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return (head + body).encode()


def bound_daphne_bodies() -> None:
    """Daphne takes a whole request body (to a temporary file, then into the
    application's queue, all of it in memory at once) before the application
    hears of the request: 40 MB posted cost the daphne 40 MB and more whatever the
    application answered. Here its request refuses a body over
    ``MAX_BODY_BYTES`` as it arrives — at the headers when Content-Length says so,
    else (chunked) as soon as it grows past — with the 413 written at once, the
    rest read and dropped (closing at once would reset the connection, and the
    client could lose the answer), and the connection closed at its end. Nothing
    of it reaches the application. ``BodyLimit`` does the same for any other
    server."""
    try:
        from daphne.http_protocol import WebRequest
    except ImportError:  # not under daphne
        return
    if getattr(WebRequest, "bounded_bodies", False):
        return
    got_length, take_chunk, process = (
        WebRequest.gotLength,
        WebRequest.handleContentChunk,
        WebRequest.process,
    )

    def refuse(request: Any) -> None:
        request.body_refused = True
        request.channel.transport.write(_too_large_response())

    def gotLength(self: Any, length: int | None) -> None:
        self.body_read, self.body_refused = 0, False
        if length is not None and length > settings.MAX_BODY_BYTES:
            got_length(self, 0)  # an empty buffer: nothing of this body is kept
            refuse(self)
            return
        got_length(self, length)

    def handleContentChunk(self: Any, data: bytes) -> None:
        if self.body_refused:
            return
        self.body_read += len(data)
        if self.body_read > settings.MAX_BODY_BYTES:
            refuse(self)
            return
        take_chunk(self, data)

    def process_unless_refused(self: Any) -> Any:
        if getattr(self, "body_refused", False):
            self.channel.transport.loseConnection()
            return None
        return process(self)

    WebRequest.gotLength = gotLength
    WebRequest.handleContentChunk = handleContentChunk
    WebRequest.process = process_unless_refused
    WebRequest.bounded_bodies = True


os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # as get_asgi_application(), before the imports below
from accounts import signin  # noqa: E402

http_application = OneCrossingHandler()
bound_daphne_bodies()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import WebsocketDenier  # noqa: E402

from config.middleware import UnavailableSocketGuard  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from kit.http import too_large_body  # noqa: E402


class Handshake(HttpRequest):
    """A websocket handshake seen as Django sees a request: its headers in
    ``META``, its scheme ``https`` when daphne itself speaks TLS."""

    def __init__(self, scope: Scope) -> None:
        super().__init__()
        self.tls = scope.get("scheme") == "wss"
        # Where the Host header is missing, as Django's ASGIRequest: the server's
        # address, which ALLOWED_HOSTS must take (without it get_host() failed
        # with a KeyError: a traceback, not a refusal).
        server = scope.get("server") or ("unknown", "0")
        self.META["SERVER_NAME"], self.META["SERVER_PORT"] = server[0], str(server[1])
        for name, value in scope.get("headers", []):
            key = "HTTP_" + name.decode("latin-1").upper().replace("-", "_")
            text = value.decode("latin-1")
            self.META[key] = f"{self.META[key]},{text}" if key in self.META else text

    def _get_scheme(self) -> str:
        return "https" if self.tls else "http"


def allowed_origin(scope: Scope) -> bool:
    """The handshake's Origin is the site's own, compared exactly as Django's CSRF
    check compares a POST's (scheme, host and port): the scheme as Django reads
    it (``HTTPS`` and the proxy's X-Forwarded-Proto), host and port from the Host
    header, which ``ALLOWED_HOSTS`` must take — or one of
    ``CSRF_TRUSTED_ORIGINS``. What signs a player in may open their sockets, and
    nothing else. Channels' own validator compared the host only, so
    ``http://localhost:9999`` passed for a site on :8000 (issue 25)."""
    request = Handshake(scope)
    if not request.META.get("HTTP_ORIGIN"):
        return False
    try:
        # A Host we do not serve is refused as over HTTP, and logged as there (one
        # warning line, kit/logs.py); Django's origin check alone would let a
        # trusted origin through with any Host.
        request.get_host()
    except DisallowedHost as exc:
        logging.getLogger("django.security.DisallowedHost").warning(str(exc))
        return False
    # A fresh one each time: it reads CSRF_TRUSTED_ORIGINS once per instance.
    return CsrfViewMiddleware(lambda r: HttpResponse())._origin_verified(request)


class OriginCheck:
    """Refuse a websocket from another origin during the handshake (HTTP 403)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> Any:
        if not allowed_origin(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.app(scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": BodyLimit(http_application),
        "websocket": OriginCheck(
            UnavailableSocketGuard(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)
