"""Websocket routes (PRODUCT.md, WebSocket)."""

from django.urls import path, re_path

import config.api  # noqa: F401  (registers the game_id path converter)
from games.consumers import GameConsumer, LeaderboardConsumer, NotFoundConsumer

websocket_urlpatterns = [
    path("ws/games/<game_id:attempt_id>/", GameConsumer.as_asgi()),
    path("ws/leaderboard/<str:date>/<str:variant>/", LeaderboardConsumer.as_asgi()),
    re_path(r"", NotFoundConsumer.as_asgi()),
]
