"""Websocket consumers: play and watch a game (the socket kit: ``kit/sockets.py``).

Thin, like the REST views: authenticate, check access through the same
selectors, join the group, hand actions to the same service. The protocol,
every message and close code, is in ``games/websocket.md``; the messages are
built in ``games/events.py``.
"""

from __future__ import annotations

from typing import Any

from accounts.sockets import user_group
from kit.api import rate_limit
from kit.errors import NotFound, Refusal
from kit.http import ApiError
from kit.sockets import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHENTICATED,
    JsonSocket,
    database_sync_to_async,
)

from . import events
from .api import action_input
from .metrics import ActionMeter
from .realtime import game_group, outbox
from .selectors import attempt_for_viewer, attempt_json
from .services import ActionRefused, attempt_apply_action, attempt_resign


def _snapshot(attempt_id: int, viewer: Any) -> tuple[bool, str]:
    """Whether ``viewer`` plays the game, and the ``snapshot`` of it as they see
    it (a spectator gets no ``targets``), the attempt read once."""
    attempt = attempt_for_viewer(attempt_id=attempt_id, viewer=viewer, player_too=True)
    game = events.encode(attempt_json(attempt, viewer=viewer))
    return attempt.player_id == viewer.pk, events.snapshot(attempt.seq, game)


def _act(attempt_id: int, user: Any, message: dict[str, Any], origin: str) -> str:
    """Apply an action frame from socket ``origin``; its ``ack`` (the ``state``
    event to the game's other sockets carries the same attempt object)."""
    with ActionMeter("websocket", attempt_id) as meter:
        seq, action = action_input({k: v for k, v in message.items() if k != "type"})
        rate_limit("actions", f"user-{user.pk}")  # the same budget as POST .../actions/
        try:
            applied = attempt_apply_action(
                attempt_id=attempt_id, player=user, seq=seq, action=action, origin=origin
            )
        except ActionRefused as refused:
            meter.said = refused.action or {}
            raise
        meter.said, meter.duplicate = applied.action, applied.duplicate
    return events.ack(applied.attempt.seq, applied.game_text, seq=seq, duplicate=applied.duplicate)


def _resign(attempt_id: int, user: Any, origin: str) -> str:
    applied = attempt_resign(attempt_id=attempt_id, player=user, origin=origin)
    return events.ack(applied.attempt.seq, applied.game_text)


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
            self.is_player, snapshot = await database_sync_to_async(_snapshot)(
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
        await self.send(text_data=snapshot)

    def relayed(self, event: dict[str, Any]) -> str:
        """A spectator takes the broadcast's copy without the player's ``targets``
        and ``finish`` when it has one (``games.events.relay``)."""
        text: str = event["text"] if self.is_player else event.get("watch", event["text"])
        return text

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "is_player"):
            await self.channel_layer.group_discard(game_group(self.attempt_id), self.channel_name)
            user_id = self.scope["user"].pk
            await self.channel_layer.group_discard(user_group(user_id), self.channel_name)

    async def handle(self, kind: Any, message: dict[str, Any]) -> None:
        if kind == "snapshot":
            # The same read as on opening, its access rule checked again.
            _, snapshot = await database_sync_to_async(_snapshot)(
                self.attempt_id, self.scope["user"]
            )
            await self.send(text_data=snapshot)
            return
        if kind not in ("action", "resign", None):
            raise ApiError(400, "bad_type", f"Unknown message type {kind!r}.")
        if not self.is_player:
            raise ApiError(403, "spectator", "Spectators watch; only the player can act.")
        user = self.scope["user"]
        # The broadcasts of what commits leave from the loop, after the answer.
        async with outbox():
            if kind == "resign":
                reply = await database_sync_to_async(_resign)(
                    self.attempt_id, user, self.channel_name
                )
            else:  # {"seq": N, "action": {...}}, with or without "type": "action"
                reply = await database_sync_to_async(_act)(
                    self.attempt_id, user, message, self.channel_name
                )
            await self.send(text_data=reply)
