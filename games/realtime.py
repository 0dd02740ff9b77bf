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

from .models import Attempt
from .selectors import attempt_json

log = logging.getLogger(__name__)


def game_group(attempt_id: int) -> str:
    return f"game.{attempt_id}"


def leaderboard_group(date: dt.date, variant: str) -> str:
    return f"leaderboard.{date.isoformat()}.{variant}"


def publish(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` (JSON-ready) to every socket of ``group``; never raise.
    The text is encoded once here, not once per socket."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "relay", "text": json.dumps(message)})
    except Exception:  # the action is committed; a lost event is healed by a snapshot
        log.warning("broadcast to %s failed", group, exc_info=True)


def game_event(attempt: Attempt, game: Game) -> dict[str, Any]:
    """The ``state`` event: the player's view of the game after action ``v``."""
    return {
        "type": "state",
        "v": attempt.seq,
        "game": attempt_json(attempt, viewer=attempt.player, game=game),
    }


def game_changed(attempt: Attempt, game: Game) -> dict[str, Any]:
    event = game_event(attempt, game)
    publish(game_group(attempt.pk), event)
    return event


def leaderboard_changed(attempt: Attempt) -> None:
    """A ranked attempt finished, its replay check ended or staff decided on it
    (games/fairplay.py): tell the day's leaderboard subscribers its row, or that
    it left the board (a failed check, a disqualification). Ranks are computed
    by the query, so a client refetches the page on either event."""
    from leaderboard.selectors import ranked_attempts, result_json, viewer_row

    daily = attempt.daily
    if daily is None:
        return
    try:
        attempts = ranked_attempts(daily=daily)
        row = viewer_row(attempts, player_id=attempt.player_id)
        count = attempts.count()
    except Exception:
        log.warning("leaderboard broadcast for %s failed", attempt.pk, exc_info=True)
        return
    group = leaderboard_group(daily.date, daily.variant)
    if row is None:  # a failed replay check or a disqualified result is not on the board
        if attempt.finished and (attempt.verified is False or attempt.disqualified):
            publish(
                group,
                {
                    "type": "removed",
                    "date": daily.date.isoformat(),
                    "variant": daily.variant,
                    "count": count,
                    "player": attempt.player.get_username(),
                },
            )
        return
    publish(
        group,
        {
            "type": "rows",
            "date": daily.date.isoformat(),
            "variant": daily.variant,
            "count": count,
            # Replay links depend on who looks: fetch the page over HTTP for them.
            "rows": [result_json(row, show_replay=False)],
        },
    )
