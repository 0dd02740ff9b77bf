"""A player of a real daphne (``deploy/stack.py``), as the tests about real
processes play: signed up over HTTP (``deploy/client.py``), then on a game's or a
leaderboard's websocket with its session cookie (websockets' sync client).

One copy of the websocket side for every such test: the connection with its
cookie and origin, bounded reads, the game socket's send-and-wait-for-ack."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from typing import Any

from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from deploy.client import Client

WAIT = 10.0
"""A bounded wait, in seconds, unless the caller gives its own."""
PASSWORD = "correct horse battery staple"


def sign_up(username: str, port: int, *, wait: float = WAIT) -> Client:
    """A player signed up on the daphne at ``port``; each of its requests is one
    short HTTP/1.1 connection (a killed server leaves no stale keep-alive behind)."""
    player = Client(port, timeout=wait, keep_alive=False)
    player.sign_up(username, PASSWORD)
    return player


def session_cookie(browser: Client) -> dict[str, str]:
    """The header that signs ``browser``'s player in on a websocket."""
    return {"Cookie": f"sessionid={browser.cookies['sessionid']}"}


def open_socket(
    port: int, path: str, browser: Client | None, *, wait: float = WAIT
) -> ClientConnection:
    """The websocket at ``path`` on the daphne at ``port``, as ``browser``'s
    player (signed out when None), from the site's own origin."""
    return connect(
        f"ws://127.0.0.1:{port}{path}",
        origin=Origin(f"http://127.0.0.1:{port}"),
        additional_headers=session_cookie(browser) if browser is not None else {},
        proxy=None,
        open_timeout=wait,
        close_timeout=1,
        max_queue=None,
        legacy=True,  # a plain connection, closed by the test's clean-up
    )


def close_quietly(ws: ClientConnection | None) -> None:
    if ws is not None:
        with contextlib.suppress(Exception):
            ws.close()


def receive(ws: ClientConnection, deadline: float) -> dict[str, Any]:
    """The next frame, by ``deadline`` (``time.monotonic()``) or TimeoutError."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    message = json.loads(ws.recv(timeout=left))
    assert isinstance(message, dict) and "type" in message, message
    return message


def messages(ws: ClientConnection, what: str, *, wait: float = WAIT) -> Iterator[dict[str, Any]]:
    """Frames from ``ws`` until the caller stops; failing after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            yield receive(ws, deadline)
        except TimeoutError:
            raise AssertionError(f"no {what} within {wait} s") from None


class Player:
    """The player's game socket: sends actions, waits for their ``ack``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def snapshot(self) -> dict[str, Any]:
        for message in messages(self.ws, "snapshot"):
            if message["type"] == "snapshot":
                return message
            raise AssertionError(f"expected the snapshot first, got {message}")
        raise AssertionError("unreachable")

    def send(self, seq: int, action: dict[str, Any]) -> None:
        self.ws.send(json.dumps({"seq": seq, "action": action}))

    def ack(self, seq: int) -> dict[str, Any]:
        for message in messages(self.ws, f"ack of seq {seq}"):
            if message["type"] == "error":
                raise AssertionError(f"action seq {seq} refused: {message}")
            if message["type"] == "ack" and message["seq"] == seq:
                return message
            assert message["type"] == "state", message  # of actions its other sockets sent
        raise AssertionError("unreachable")

    def play(self, seq: int, action: dict[str, Any]) -> dict[str, Any]:
        self.send(seq, action)
        ack = self.ack(seq)
        assert ack["v"] == seq + 1 and ack["duplicate"] is False, ack
        assert ack["game"]["seq"] == seq + 1
        return ack
