"""Websocket consumers: play and watch a game (the socket kit: ``kit/sockets.py``).

Thin, like the REST views: authenticate, check access through the same
selectors, join the group, hand actions to the same service. The protocol,
every message and close code, is in ``games/websocket.md``; the messages are
built in ``games/events.py``.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from dataclasses import dataclass
from typing import Any

from accounts.sockets import user_group
from kit.api import rate_limit
from kit.broadcast import outbox
from kit.commits import answers_first, run_all
from kit.errors import NotFound, Refusal
from kit.http import ApiError
from kit.sockets import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_UNAUTHENTICATED,
    JsonSocket,
    connect_sync_to_async,
    database_sync_to_async,
)

from . import events
from .api import action_input
from .metrics import ActionMeter
from .models import Attempt
from .realtime import game_group
from .selectors import attempt_elapsed_ms, attempt_for_viewer, attempt_json
from .services import ActionRefused, attempt_apply_action, attempt_resign

SNAPSHOT_KEEP_S = 5.0
"""How long a snapshot read is served again, to any socket of this process on
the game that has heard of no change since it was read (``JsonSocket.stirred``:
every change made is broadcast, or answered to the socket that made it). What no
broadcast announces (a replay check's verdict) shows within this."""
ACCESS_KEEP_S = 60.0
"""How long a spectator's access, checked on opening or on a snapshot read, lets
it take kept snapshots — never past 00:00 UTC, when a new day's daily may deal
the cards of the game watched (the spoiler rule, PRODUCT.md, anti-cheat)."""


@dataclass(frozen=True)
class _Kept:
    """A snapshot read (``_snapshot``): the game's text around its running clock."""

    at: float  # time.monotonic() of the read
    day: dt.date  # the UTC day it was read on: a daily's code is named from 00:00 UTC
    attempt: Attempt
    head: str
    tail: str  # after the clock's value, when it runs ("" when it does not)

    def text(self) -> str:
        if not self.tail:
            return events.snapshot(self.attempt.seq, self.head)
        clock = attempt_elapsed_ms(self.attempt)
        return events.snapshot(self.attempt.seq, f"{self.head}{clock}{self.tail}")


_KEPT: dict[tuple[int, bool], _Kept] = {}  # (attempt id, viewer is its player) -> read
_KEPT_LOCK = threading.Lock()


def _utc_day() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def _snapshot(attempt_id: int, viewer: Any) -> tuple[bool, str]:
    """Whether ``viewer`` plays the game, and the ``snapshot`` of it as they see
    it (a spectator gets no ``targets``), the attempt read once and its access
    rule checked; kept for ``_kept_snapshot``."""
    attempt = attempt_for_viewer(attempt_id=attempt_id, viewer=viewer, player_too=True)
    is_player = attempt.player_id == viewer.pk
    game = events.encode(attempt_json(attempt, viewer=viewer))
    head, tail = game, ""
    if attempt.elapsed_ms is None:  # the clock runs: its value is put in when served
        start = game.index('"elapsed_ms":') + len('"elapsed_ms":')
        end = game.index(",", start)
        head, tail = game[:start], game[end:]
    kept = _Kept(time.monotonic(), _utc_day(), attempt, head, tail)
    with _KEPT_LOCK:
        if len(_KEPT) > 1000:  # forget the stale
            for key in [k for k, old in _KEPT.items() if kept.at - old.at > SNAPSHOT_KEEP_S]:
                del _KEPT[key]
        _KEPT[attempt_id, is_player] = kept
    return is_player, kept.text()


def _kept_snapshot(attempt_id: int, *, is_player: bool, since: float) -> str | None:
    """The kept snapshot of the game, if read after ``since`` (the socket's last
    news of a change), less than ``SNAPSHOT_KEEP_S`` ago and today (UTC)."""
    kept = _KEPT.get((attempt_id, is_player))
    now = time.monotonic()
    if kept is None or kept.at < since or now - kept.at > SNAPSHOT_KEEP_S:
        return None
    return kept.text() if kept.day == _utc_day() else None


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
        try:  # on the connects' own threads: a storm of them waits there, not actions
            self.is_player, snapshot = await connect_sync_to_async(_snapshot)(self.attempt_id, user)
            self.access = (time.monotonic(), _utc_day())
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
        and ``finish`` when it has one (``kit.broadcast.relay``)."""
        text: str = event["text"] if self.is_player else event.get("watch", event["text"])
        return text

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "is_player"):
            await self.channel_layer.group_discard(game_group(self.attempt_id), self.channel_name)
            user_id = self.scope["user"].pk
            await self.channel_layer.group_discard(user_group(user_id), self.channel_name)

    async def handle(self, kind: Any, message: dict[str, Any]) -> None:
        if kind == "snapshot":
            if not await self.take_snapshot():  # the player's budget (kit.sockets.SNAPSHOTS)
                return
            # Kept: the player's own game, or a spectator's access checked lately.
            at, day = self.access
            kept = (
                _kept_snapshot(self.attempt_id, is_player=self.is_player, since=self.stirred)
                if self.is_player or (time.monotonic() - at < ACCESS_KEEP_S and day == _utc_day())
                else None
            )
            if kept is None:  # the same read as on opening, its access rule checked again
                _, kept = await connect_sync_to_async(_snapshot)(
                    self.attempt_id, self.scope["user"]
                )
                self.access = (time.monotonic(), _utc_day())
            await self.send(text_data=kept)
            return
        if kind not in ("action", "resign", None):
            raise ApiError(400, "bad_type", f"Unknown message type {kind!r}.")
        if not self.is_player:
            raise ApiError(403, "spectator", "Spectators watch; only the player can act.")
        user = self.scope["user"]
        # The broadcasts of what commits leave from the loop, after the answer;
        # the work that waits on Redis or the broker (a race's progress, a job
        # queued) runs after it too, off the loop (kit.commits, issue 38).
        async with outbox():
            with answers_first() as waiting:
                if kind == "resign":
                    reply = await database_sync_to_async(_resign)(
                        self.attempt_id, user, self.channel_name
                    )
                else:  # {"seq": N, "action": {...}}, with or without "type": "action"
                    reply = await database_sync_to_async(_act)(
                        self.attempt_id, user, message, self.channel_name
                    )
            await self.send(text_data=reply)
            if waiting:
                await database_sync_to_async(run_all)(waiting)
