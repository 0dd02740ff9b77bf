"""Websocket routes: each app's own (``games/routing.py``, ``leaderboard/routing.py``),
then any other path refused (4404)."""

from django.urls import re_path

from games import routing as games_routing
from kit.sockets import NotFoundConsumer
from leaderboard import routing as leaderboard_routing
from races import routing as races_routing

websocket_urlpatterns = [
    *games_routing.websocket_urlpatterns,
    *leaderboard_routing.websocket_urlpatterns,
    *races_routing.websocket_urlpatterns,
    re_path(r"", NotFoundConsumer.as_asgi()),
]
