"""Broadcasts to websocket groups, sent after commit and on a best-effort basis.

Every game event carries ``v``, the number of accepted actions, so a client
drops stale events and heals a gap by asking for a snapshot: an event lost
here (Redis down, a process killed) costs a refetch, never a wrong state.
See ``games/websocket.md`` for the protocol.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from games.engine import Game
from kit.metrics import channel_send_failed

from .models import Attempt
from .selectors import attempt_json

log = logging.getLogger(__name__)


def game_group(attempt_id: int) -> str:
    return f"game.{attempt_id}"


def leaderboard_group(date: dt.date, variant: str) -> str:
    return f"leaderboard.{date.isoformat()}.{variant}"


def encode(message: Any) -> str:
    """A message as sent: compact JSON, encoded once however many sockets get it."""
    return json.dumps(message, separators=(",", ":"))


def state_text(v: int, game_text: str) -> str:
    """The ``state`` event around an attempt object already encoded: the player's
    view of the game after action ``v``."""
    return f'{{"type":"state","v":{v},"game":{game_text}}}'


def publish(group: str, message: dict[str, Any] | str, skip: str | None = None) -> None:
    """Send ``message`` (JSON-ready, or encoded) to every socket of ``group`` but
    ``skip`` (a channel name: the socket that has its answer already); never raise."""
    layer = get_channel_layer()
    if layer is None:
        return
    text = message if isinstance(message, str) else encode(message)
    event = {"type": "relay", "text": text}
    if skip is not None:
        event["skip"] = skip
    try:
        async_to_sync(layer.group_send)(group, event)
    except Exception:  # the action is committed; a lost event is healed by a snapshot
        log.warning("broadcast to %s failed", group, exc_info=True)
        channel_send_failed(group)


def game_changed(attempt: Attempt, game: Game) -> None:
    """Tell the game's sockets its new state (after commit)."""
    view = attempt_json(attempt, viewer=attempt.player, game=game)
    publish(game_group(attempt.pk), state_text(attempt.seq, encode(view)))
