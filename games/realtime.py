"""Broadcasts to websocket groups, sent after commit and on a best-effort basis.

Every game event carries ``v``, the number of accepted actions, so a client
drops stale events and heals a gap by asking for a snapshot: an event lost
here (Redis down, a process killed) costs a refetch, never a wrong state.
See ``games/websocket.md`` for the protocol.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
import logging
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.engine import Game
from kit.metrics import channel_send_failed
from kit.sockets import encode

from . import events
from .models import Attempt
from .selectors import attempt_json

log = logging.getLogger(__name__)


def game_group(attempt_id: int) -> str:
    return f"game.{attempt_id}"


def leaderboard_group(date: dt.date, variant: str) -> str:
    return f"leaderboard.{date.isoformat()}.{variant}"


OUTBOX: contextvars.ContextVar[list[tuple[str, dict[str, Any]]] | None] = contextvars.ContextVar(
    "outbox", default=None
)
"""Set by a consumer around its database work (``outbox``): the broadcasts that
work commits wait here and go out from the event loop after its answer,
instead of each crossing back to the loop from the worker thread."""


def publish(
    group: str,
    message: dict[str, Any] | str,
    *,
    watcher: str | None = None,
    skip: str | None = None,
) -> None:
    """Send ``message`` (JSON-ready, or encoded; ``watcher``: a game's spectators'
    copy) to every socket of ``group`` but ``skip`` (a channel name: the socket
    that has its answer already); never raise. Called after commit
    (``games.events.after_commit``); in a consumer's ``outbox``, sent by it."""
    text = message if isinstance(message, str) else encode(message)
    group_event(group, events.relay(text, watcher, skip))


def group_event(group: str, event: dict[str, Any]) -> None:
    """Send the channel-layer ``event`` to ``group`` as ``publish`` does (from a
    consumer's ``outbox`` when in one), never raising: for a group whose sockets
    each make their own frame of it (``races/consumers.py``)."""
    waiting = OUTBOX.get()
    if waiting is not None:
        waiting.append((group, event))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:  # the action is committed; a lost event is healed by a snapshot
        log.warning("broadcast to %s failed", group, exc_info=True)
        channel_send_failed(group)


@contextlib.asynccontextmanager
async def outbox() -> AsyncIterator[list[tuple[str, dict[str, Any]]]]:
    """Around a consumer's database work and its answer: the broadcasts the work
    committed are sent on leaving, from the loop (after the answer), never
    raising — each one a commit already made."""
    waiting: list[tuple[str, dict[str, Any]]] = []
    token = OUTBOX.set(waiting)
    try:
        yield waiting
    finally:
        OUTBOX.reset(token)
        layer = get_channel_layer() if waiting else None
        for group, event in waiting if layer is not None else ():
            try:
                await layer.group_send(group, event)
            except Exception:  # as in publish: a lost event is healed by a snapshot
                log.warning("broadcast to %s failed", group, exc_info=True)
                channel_send_failed(group)


def game_published(attempt: Attempt, game: Game, *, origin: str | None = None) -> str:
    """Inside the transaction: encode the attempt as its player sees it (and as a
    spectator does) once, and have the ``state`` event sent to the game's
    sockets after commit — never for a change rolled back — but not to
    ``origin``, the socket whose message made the change (its answer carries the
    same object). Returns the player's encoded attempt object, for the answer."""
    text = events.game_text(attempt_json(attempt, viewer=attempt.player, game=game))
    group, v = game_group(attempt.pk), attempt.seq
    events.after_commit(
        lambda: publish(
            group, events.state(v, text.player), watcher=events.state(v, text.watcher), skip=origin
        )
    )
    return text.player
