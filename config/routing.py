"""Websocket routes (PRODUCT.md, WebSocket)."""

from django.urls import path, re_path

from games.consumers import GameConsumer, LeaderboardConsumer, NotFoundConsumer

websocket_urlpatterns = [
    path("ws/games/<int:attempt_id>/", GameConsumer.as_asgi()),
    path("ws/leaderboard/<str:date>/<str:variant>/", LeaderboardConsumer.as_asgi()),
    re_path(r"", NotFoundConsumer.as_asgi()),
]
