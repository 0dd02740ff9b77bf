"""Websocket consumers: play and watch a game (the socket kit: ``kit/sockets.py``).

Thin, like the REST views: authenticate, check access through the same
selectors, join the group, hand actions to the same service. The protocol,
every message and close code, is in ``games/websocket.md``.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from accounts.sockets import user_group
from kit.api import rate_limit
from kit.errors import ApiError, NotFound, Refusal
from kit.sockets import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHENTICATED,
    JsonSocket,
    database_sync_to_async,
)

from . import metrics
from .api import action_input
from .models import Attempt
from .realtime import game_group
from .selectors import attempt_for_viewer, attempt_json
from .services import attempt_apply_action, attempt_resign


@functools.lru_cache(maxsize=256)
def watcher_text(text: str) -> str:
    """A ``state`` or ``ack`` as a spectator gets it: the player's ``targets`` and
    ``finish`` emptied, as ``attempt_json`` gives them to anyone but the player.
    Cached: every spectator socket of a process gets the same broadcast."""
    message = json.loads(text)
    view = (message.get("game") or {}).get("view")
    if not isinstance(view, dict) or not (view.get("targets") or view.get("finish")):
        return text
    view["targets"] = view["finish"] = []
    return json.dumps(message, separators=(",", ":"))


def _open_game(attempt_id: int, user: Any) -> tuple[bool, dict[str, Any]]:
    attempt = attempt_for_viewer(attempt_id=attempt_id, viewer=user, player_too=True)
    return attempt.player_id == user.pk, _snapshot(attempt, user)


def _snapshot(attempt: Attempt, viewer: Any) -> dict[str, Any]:
    """The game as ``viewer`` sees it: a spectator gets no ``targets``."""
    return {"type": "snapshot", "v": attempt.seq, "game": attempt_json(attempt, viewer=viewer)}


def _load_snapshot(attempt_id: int, viewer: Any) -> dict[str, Any]:
    attempt = Attempt.objects.select_related("player", "daily").get(pk=attempt_id)
    return _snapshot(attempt, viewer)


def _act(attempt_id: int, user: Any, message: dict[str, Any], origin: str) -> str:
    """Apply an action frame from socket ``origin``; the ``ack``, encoded around the
    attempt object the service encoded (the ``state`` event to the game's other
    sockets carries the same)."""
    with metrics.ActionMeter("websocket", attempt_id) as meter:
        seq, action = action_input({k: v for k, v in message.items() if k != "type"})
        rate_limit("actions", f"user-{user.pk}")  # the same budget as POST .../actions/
        applied = attempt_apply_action(
            attempt_id=attempt_id,
            player=user,
            seq=seq,
            action=action,
            origin=origin,
            said=meter.said,
        )
        meter.duplicate = applied.duplicate
    duplicate = "true" if applied.duplicate else "false"
    return (
        f'{{"type":"ack","seq":{seq},"v":{applied.attempt.seq},"duplicate":{duplicate},'
        f'"game":{applied.game_text}}}'
    )


def _resign(attempt_id: int, user: Any, origin: str) -> dict[str, Any]:
    attempt = attempt_resign(attempt_id=attempt_id, player=user, origin=origin)
    return {"type": "ack", "v": attempt.seq, "game": attempt_json(attempt, viewer=user)}


class GameConsumer(JsonSocket):
    """``/ws/games/{id}/``: the player plays, anyone allowed watches."""

    attempt_id: int
    is_player: bool

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.refuse(CLOSE_UNAUTHENTICATED)
            return
        self.attempt_id = int(self.scope["url_route"]["kwargs"]["attempt_id"])
        if not await self.take_slots():
            return
        try:
            self.is_player, snapshot = await database_sync_to_async(_open_game)(
                self.attempt_id, user
            )
        except Refusal as exc:
            await self.refuse(
                CLOSE_NOT_FOUND if isinstance(exc, NotFound) else CLOSE_FORBIDDEN, exc
            )
            return
        await self.channel_layer.group_add(game_group(self.attempt_id), self.channel_name)
        # Signing out closes the player's sockets on every daphne (accounts/api.py).
        await self.channel_layer.group_add(user_group(user.pk), self.channel_name)
        await self.accept_counted("game" if self.is_player else "watch")
        await self.send_json(snapshot)

    def relayed(self, text: str) -> str:
        return text if self.is_player else watcher_text(text)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "is_player"):
            await self.channel_layer.group_discard(game_group(self.attempt_id), self.channel_name)
            user_id = self.scope["user"].pk
            await self.channel_layer.group_discard(user_group(user_id), self.channel_name)

    async def handle(self, kind: Any, message: dict[str, Any]) -> None:
        if kind == "snapshot":
            snapshot = await database_sync_to_async(_load_snapshot)(
                self.attempt_id, self.scope["user"]
            )
            await self.send_json(snapshot)
            return
        if kind not in ("action", "resign", None):
            raise ApiError(400, "bad_type", f"Unknown message type {kind!r}.")
        if not self.is_player:
            raise ApiError(403, "spectator", "Spectators watch; only the player can act.")
        user = self.scope["user"]
        if kind == "resign":
            reply = await database_sync_to_async(_resign)(self.attempt_id, user, self.channel_name)
            await self.send_json(reply)
        else:  # {"seq": N, "action": {...}}, with or without "type": "action"
            ack = await database_sync_to_async(_act)(
                self.attempt_id, user, message, self.channel_name
            )
            await self.send(text_data=ack)
