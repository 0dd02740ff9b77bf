"""The games' websocket routes (PRODUCT.md, WebSocket)."""

from django.urls import path, re_path

import kit.api  # noqa: F401  (registers the game_id path converter)

from .consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/games/<game_id:attempt_id>/", GameConsumer.as_asgi()),
    # A number past the 64-bit ids is no game: said as for game 0, which never is
    # (an error not_found, then 4404), not looked up (SQLite overflows; issue 25).
    re_path(r"^ws/games/[0-9]+/$", GameConsumer.as_asgi(), {"attempt_id": 0}),
]
