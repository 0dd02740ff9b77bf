"""The games' broadcasts (the kit's ``kit.broadcast`` underneath), sent after
commit and on a best-effort basis.

Every game event carries ``v``, the number of accepted actions, so a client
drops stale events and heals a gap by asking for a snapshot: an event lost
here (Redis down, a process killed) costs a refetch, never a wrong state.
See ``games/websocket.md`` for the protocol.
"""

from __future__ import annotations

import datetime as dt

from games.engine import Game
from kit.broadcast import publish
from kit.commits import Followups

from . import events
from .models import Attempt
from .selectors import attempt_json


def game_group(attempt_id: int) -> str:
    return f"game.{attempt_id}"


def leaderboard_group(date: dt.date, variant: str) -> str:
    return f"leaderboard.{date.isoformat()}.{variant}"


def game_published(
    attempt: Attempt, game: Game, after: Followups, *, origin: str | None = None
) -> str:
    """Inside the transaction: encode the attempt as its player sees it (and as a
    spectator does) once, and have the ``state`` event sent to the game's
    sockets at the commit of ``after``'s change — never for a change rolled back
    — but not to ``origin``, the socket whose message made the change (its
    answer carries the same object). Returns the player's encoded attempt
    object, for the answer."""
    text = events.game_text(attempt_json(attempt, viewer=attempt.player, game=game))
    group, v = game_group(attempt.pk), attempt.seq
    after.at_commit(
        lambda: publish(
            group, events.state(v, text.player), watcher=events.state(v, text.watcher), skip=origin
        )
    )
    return text.player
