"""A test-only ASGI app for ``test_sentry.py``: the service, plus one API view with
a bug (the service itself has no path that raises on purpose, and gets none for
a test). The view holds a game's full state, face-down cards and all, in a local
variable when it fails — what an error report must never carry.

    daphne tests.ops.failing_app:application
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import path
from rest_framework.request import Request
from rest_framework.views import APIView

from config.asgi import application  # sets Django up, before the URLs' imports
from config.urls import urlpatterns as service_urls
from games.engine import new_game

CODE = "EH1-N-AAAAAAF"  # a numbered Easy Harp deal: most of its cards face down


class Bug(APIView):
    def post(self, request: Request) -> Any:
        state = new_game(CODE).to_json()
        raise RuntimeError(f"a bug, {len(state['piles'])} piles in hand")


urlpatterns = [path("test-only/bug/", Bug.as_view()), *service_urls]
settings.ROOT_URLCONF = __name__

__all__ = ["application"]
