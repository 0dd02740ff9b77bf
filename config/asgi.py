"""The ASGI application daphne serves: HTTP through Django, websockets through
Channels — only from allowed origins, with the session's user in the scope."""

import os
from typing import Any

import django
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponseBase


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


os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)  # as get_asgi_application(), before the imports below
from accounts import signin  # noqa: E402

http_application = OneCrossingHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.middleware import UnavailableSocketGuard  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": http_application,
        "websocket": AllowedHostsOriginValidator(
            UnavailableSocketGuard(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)
