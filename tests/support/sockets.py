"""Websocket fixtures: communicators on the real ASGI app, signed in like a browser."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application

ORIGIN = (b"origin", b"http://localhost")
HOST = (b"host", b"localhost")  # as a browser sends it: the Origin is checked against it


class Socket(WebsocketCommunicator):
    """A communicator that speaks JSON."""

    async def send(self, message: Any) -> None:
        await self.send_to(text_data=json.dumps(message))

    async def recv(self, timeout: float = 3) -> dict[str, Any]:
        return json.loads(await self.receive_from(timeout=timeout))


def socket_for(path: str, client: Any = None, origin: tuple[bytes, bytes] = ORIGIN) -> Socket:
    """A socket on ``path`` carrying ``client``'s session cookie (if any)."""
    headers = [HOST, origin]
    if client is not None:
        cookie = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
        headers.append((b"cookie", cookie.encode()))
    return Socket(application, path, headers=headers)


@pytest.fixture
def realtime_db(transactional_db):
    """Websocket handlers run the service in other threads: they need committed data."""
    return transactional_db


async def new_player(make_player: Callable[..., Any]) -> Any:
    return await sync_to_async(make_player)()


async def start(client: Any, **body: str) -> dict[str, Any]:
    response = await sync_to_async(client.send)("/api/games/", body)
    assert response.status_code in (200, 201), response.content
    return response.json()


async def http_resign(client: Any, attempt_id: int) -> dict[str, Any]:
    response = await sync_to_async(client.send)(f"/api/games/{attempt_id}/resign/")
    assert response.status_code == 200, response.content
    return response.json()
