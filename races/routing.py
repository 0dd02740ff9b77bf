"""The race rooms' websocket route."""

from django.urls import path

from . import urls  # noqa: F401  (registers the race_id path converter)
from .consumers import RaceConsumer

websocket_urlpatterns = [
    path("ws/races/<race_id:race>/", RaceConsumer.as_asgi()),
]
