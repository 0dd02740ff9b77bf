"""The URLs of ``failing_app.py``: the service's, plus one API view with a bug
(the service itself has no path that raises on purpose, and gets none for a
test). The view holds a game's full state, face-down cards and all, in a local
variable when it fails — what an error report must never carry."""

from __future__ import annotations

from typing import Any

from django.urls import path
from rest_framework.request import Request
from rest_framework.views import APIView

from config.urls import handler404, handler500
from config.urls import urlpatterns as service_urls
from games.engine import new_game

CODE = "EH1-N-AAAAAAF"  # a numbered Easy Harp deal: most of its cards face down


class Bug(APIView):
    def post(self, request: Request) -> Any:
        state = new_game(CODE).to_json()
        raise RuntimeError(f"a bug, {len(state['piles'])} piles in hand")


urlpatterns = [path("test-only/bug/", Bug.as_view()), *service_urls]
__all__ = ["handler404", "handler500", "urlpatterns"]
