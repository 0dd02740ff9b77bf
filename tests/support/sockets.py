"""Websockets in process: JSON communicators on the real ASGI app, signed in like a
browser, and what every game frame must (not) show."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.support.api import start as start_game

ORIGIN = (b"origin", b"http://localhost")
HOST = (b"host", b"localhost")  # as a browser sends it: the Origin is checked against it


class Socket(WebsocketCommunicator):
    """A communicator that speaks JSON."""

    async def send(self, message: Any) -> None:
        await self.send_to(text_data=json.dumps(message))

    async def recv(self, timeout: float = 3) -> dict[str, Any]:
        return json.loads(await self.receive_from(timeout=timeout))

    async def until(
        self, test: Callable[[dict[str, Any]], bool], timeout: float = 10
    ) -> dict[str, Any]:
        """The first frame that passes ``test`` (those before it read and dropped)."""
        deadline = time.monotonic() + timeout
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if test(message):
                return message


def socket_for(path: str, client: Any = None, origin: tuple[bytes, bytes] = ORIGIN) -> Socket:
    """A socket on ``path`` carrying ``client``'s session cookie (if any)."""
    headers = [HOST, origin]
    if client is not None:
        cookie = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
        headers.append((b"cookie", cookie.encode()))
    return Socket(application, path, headers=headers)


async def new_player(make_player: Callable[..., Any]) -> Any:
    return await sync_to_async(make_player)()


async def start(client: Any, **body: str) -> dict[str, Any]:
    return await sync_to_async(start_game)(client, **body)


async def http_resign(client: Any, attempt_id: int) -> dict[str, Any]:
    response = await sync_to_async(client.send)(f"/api/games/{attempt_id}/resign/")
    assert response.status_code == 200, response.content
    return response.json()


def assert_hidden(message: dict[str, Any]) -> None:
    """The view in ``message`` (if any) shows no face-down card and no stock card."""
    assert isinstance(message.get("type"), str), message
    game = message.get("game")
    if game is None:
        return
    view = game["view"]
    down = view["down"]
    for pid, cards in view["piles"].items():
        hidden = len(cards) if pid == "s" else down.get(pid, 0)
        assert all(card is None for card in cards[:hidden]), (pid, cards, hidden)
        assert all(card is not None for card in cards[hidden:]), (pid, cards, hidden)


def without_targets(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "targets"}
