"""Every message the game sockets and broadcasts send, built here and encoded by
one encoder (``kit.sockets.encode``: compact JSON), so a message has the same
bytes wherever it goes. The protocol is in ``games/websocket.md``.

The attempt object (``games.selectors.attempt_json``) is encoded once per change,
in two copies: the player's, and a spectator's without ``targets`` and
``finish`` — made from the same object, never by reading the player's text back.
The envelopes wrap those texts without decoding them again. What follows a
commit — these broadcasts, the announcements, the jobs — goes through
``kit.commits.after_commit``. (The ``error`` and ``pong`` every socket sends are the socket
kit's: ``kit.sockets.error_frame``, ``PONG``.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kit.sockets import encode, frame

__all__ = ["GameText", "ack", "encode", "game_text", "snapshot", "state"]


@dataclass(frozen=True)
class GameText:
    """An attempt object encoded: as its player sees it, and as anyone else does."""

    player: str
    watcher: str

    def seen_by(self, *, player: bool) -> str:
        return self.player if player else self.watcher


def game_text(game: dict[str, Any]) -> GameText:
    """``game`` (the player's attempt object) encoded for the player and for a
    spectator (empty ``targets`` and ``finish``: nothing to play)."""
    player = encode(game)
    view = game["view"]
    if not (view["targets"] or view.get("finish")):
        return GameText(player, player)
    watcher = encode({**game, "view": {**view, "targets": [], "finish": []}})
    return GameText(player, watcher)


def snapshot(v: int, game: str) -> str:
    """The game as it is (``game``: an encoded attempt object), on connect and when asked."""
    return frame("snapshot", v=v, texts={"game": game})


def state(v: int, game: str) -> str:
    """To the game's other sockets: the game after ``v`` actions."""
    return frame("state", v=v, texts={"game": game})


def ack(v: int, game: str, *, seq: int | None = None, duplicate: bool = False) -> str:
    """To the sender: its action ``seq`` (or its resignation, no ``seq``) is committed."""
    said = {} if seq is None else {"seq": seq}
    return frame("ack", **said, v=v, duplicate=duplicate, texts={"game": game})
