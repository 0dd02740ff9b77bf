"""Websocket consumers: play and watch a game, follow a day's leaderboard.

Thin, like the REST views: authenticate, check access through the same
selectors, join the group, hand actions to the same service. The protocol,
every message and close code, is in ``games/websocket.md``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async as _database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from config import logs, metrics
from config.api import rate_limit
from config.errors import ApiError, describe_error, error_body
from games.engine import EngineError, parse_variant

from .api import action_input
from .models import Attempt
from .realtime import game_group, leaderboard_group
from .selectors import attempt_for_viewer, attempt_json
from .services import attempt_apply_action, attempt_resign

log = logging.getLogger(__name__)
socket_log = logs.get_logger("games.sockets")


def database_sync_to_async(func: Any) -> Any:
    """Run ``func`` (database work) on a worker from a thread pool, closing stale
    connections around it as Channels does — but not on Channels' one shared
    thread, where every socket of the process would queue behind the others."""
    return _database_sync_to_async(func, thread_sensitive=False)


MAX_FRAME = 64 * 1024  # the same limit as an HTTP body (PRODUCT.md)

# Close codes (4000 + the HTTP status they stand for).
CLOSE_BAD_REQUEST = 4400
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_UNAVAILABLE = 4503  # the database or Redis did not answer: try later (config.middleware)


class JsonSocket(AsyncWebsocketConsumer):
    """Shared frame handling: JSON objects in, JSON out, errors as messages."""

    counted = ""
    """The kind this socket is counted as open under (``metrics.SOCKET_KINDS``)."""

    async def accept_counted(self, kind: str) -> None:
        """Accept, counted open (before the handshake's answer: a client that
        has its socket finds it counted)."""
        self.counted = kind
        metrics.socket_opened(kind)
        await self.accept()

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without the crossing it makes before every message
        (a frame in, a broadcast relayed) to close the stale database connections
        of its one shared thread: this consumer's database work runs in
        ``database_sync_to_async``, which closes them around itself in the
        thread that holds them, so that crossing only cost CPU (issue 14)."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    def log_context(self) -> None:
        """Each frame is a unit of work of its own (``config/logs.py``): its log
        lines carry this socket (``conn``: its channel name), the user and game."""
        attempt_id = getattr(self, "attempt_id", None)
        logs.start(conn=self.channel_name, user_id=logs.user_id(self.scope.get("user")))
        logs.bind(attempt_id=attempt_id)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        self.log_context()
        socket_log.info("websocket open", path=self.scope["path"])
        await super().websocket_connect(message)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        self.log_context()
        socket_log.info("websocket closed", code=message.get("code"))
        if self.counted:
            metrics.socket_closed(self.counted)
            self.counted = ""
        await super().websocket_disconnect(message)

    async def refuse(self, code: int, why: ApiError | None = None) -> None:
        # Accept first: a close before the handshake completes loses the code.
        await self.accept()
        if why is not None:  # say why (a spoiler: when it opens) before closing
            await self.send_json({"type": "error", **error_body(why.code, why.message)})
        await self.close(code=code)

    async def send_json(self, message: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(message))

    async def send_error(self, exc: Exception, **extra: Any) -> None:
        described = describe_error(exc)
        if described is None:
            log.exception("websocket handler failed", exc_info=exc)
            body = error_body("server_error", "Something broke on our side.")
        else:
            body = described[1]
        await self.send_json({"type": "error", **extra, **body})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Parse one frame; a bad frame gets an error message and changes nothing."""
        self.log_context()
        if text_data is None:
            await self.send_error(ApiError(400, "bad_frame", "Send JSON text frames."))
            return
        # The limit is in bytes (UTF-8), as for an HTTP body; 4 bytes a character at most.
        if len(text_data) * 4 > MAX_FRAME and len(text_data.encode()) > MAX_FRAME:
            await self.send_error(ApiError(413, "too_large", "A frame is at most 64 KiB."))
            return
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):
            await self.send_error(ApiError(400, "bad_json", "The frame is not valid JSON."))
            return
        if not isinstance(message, dict):
            await self.send_error(ApiError(400, "bad_json", "A frame is a JSON object."))
            return
        kind = message.get("type")
        if kind == "ping":
            await self.send_json({"type": "pong"})
            return
        try:
            await self.handle(kind, message)
        except Exception as exc:
            seq = message.get("seq")
            await self.send_error(exc, **({"seq": seq} if type(seq) is int else {}))

    async def handle(self, kind: Any, message: dict[str, Any]) -> None:
        raise ApiError(400, "bad_type", f"Unknown message type {kind!r}.")

    async def relay(self, event: dict[str, Any]) -> None:
        """A group broadcast (``games.realtime.publish``): pass the text on, unless
        it reports this socket's own message (answered already) or the client
        has gone in the meantime (its events are best effort)."""
        if event.get("skip") == self.channel_name:
            return
        with contextlib.suppress(Disconnected):
            await self.send(text_data=event["text"])


def _open_game(attempt_id: int, user: Any) -> tuple[bool, dict[str, Any]]:
    attempt = attempt_for_viewer(attempt_id=attempt_id, viewer=user, player_too=True)
    return attempt.player_id == user.pk, _snapshot(attempt)


def _snapshot(attempt: Attempt) -> dict[str, Any]:
    return {
        "type": "snapshot",
        "v": attempt.seq,
        "game": attempt_json(attempt, viewer=attempt.player),
    }


def _load_snapshot(attempt_id: int) -> dict[str, Any]:
    return _snapshot(Attempt.objects.select_related("player", "daily").get(pk=attempt_id))


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
        try:
            self.is_player, snapshot = await database_sync_to_async(_open_game)(
                self.attempt_id, user
            )
        except ApiError as exc:
            not_found = exc.status_code == 404
            await self.refuse(CLOSE_NOT_FOUND if not_found else CLOSE_FORBIDDEN, exc)
            return
        await self.channel_layer.group_add(game_group(self.attempt_id), self.channel_name)
        await self.accept_counted("game" if self.is_player else "watch")
        await self.send_json(snapshot)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "is_player"):
            await self.channel_layer.group_discard(game_group(self.attempt_id), self.channel_name)

    async def handle(self, kind: Any, message: dict[str, Any]) -> None:
        if kind == "snapshot":
            await self.send_json(await database_sync_to_async(_load_snapshot)(self.attempt_id))
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


def _parse_board(date: str, variant: str) -> tuple[dt.date, str]:
    try:
        day = dt.date.fromisoformat(date)
        game, letter = parse_variant(variant)
    except (ValueError, EngineError) as exc:
        raise ApiError(400, "bad_board", str(exc)) from None
    return day, f"{game}-{letter}"


class LeaderboardConsumer(JsonSocket):
    """``/ws/leaderboard/{date}/{variant}/``: rows as attempts on that deal finish."""

    group = ""

    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        try:
            day, variant = _parse_board(kwargs["date"], kwargs["variant"])
        except ApiError:
            await self.refuse(CLOSE_BAD_REQUEST)
            return
        self.group = leaderboard_group(day, variant)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept_counted("leaderboard")
        await self.send_json({"type": "subscribed", "date": day.isoformat(), "variant": variant})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)


class NotFoundConsumer(JsonSocket):
    """Any other websocket path."""

    async def connect(self) -> None:
        await self.refuse(CLOSE_NOT_FOUND)
