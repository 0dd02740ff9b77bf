"""The leaderboard's websocket route (PRODUCT.md, WebSocket)."""

from django.urls import path

from .consumers import LeaderboardConsumer

websocket_urlpatterns = [
    path("ws/leaderboard/<str:date>/<str:variant>/", LeaderboardConsumer.as_asgi()),
]
