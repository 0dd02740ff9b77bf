"""Broadcasts to websocket groups, sent after commit and on a best-effort basis.

Every game event carries ``v``, the number of accepted actions, so a client
drops stale events and heals a gap by asking for a snapshot: an event lost
here (Redis down, a process killed) costs a refetch, never a wrong state.
See ``games/websocket.md`` for the protocol.
"""

from __future__ import annotations

import datetime as dt
import logging
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
    (``games.events``' envelopes, through ``after_commit``)."""
    layer = get_channel_layer()
    if layer is None:
        return
    text = message if isinstance(message, str) else encode(message)
    try:
        async_to_sync(layer.group_send)(group, events.relay(text, watcher, skip))
    except Exception:  # the action is committed; a lost event is healed by a snapshot
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
