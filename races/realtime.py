"""What the room's sockets are sent (``/ws/races/{race}/``; protocol:
``games/websocket.md``), after commit, on a best-effort basis: a lost event
costs a client a refetch of the race, never a wrong standing.

A ``race`` frame differs between sockets only by its ``you``: the race is
encoded once and each socket adds its own (``races.consumers``). ``progress``
frames are the same for everyone and relayed as they are."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from games.realtime import group_event
from kit.sockets import encode

from .selectors import race_get, race_view

log = logging.getLogger(__name__)


def race_group(slug: str) -> str:
    return f"race.{slug}"


def race_event(slug: str) -> dict[str, Any]:
    """The channel-layer event of the race as it is now: its JSON encoded once,
    without ``you`` (``race``), and what each socket's ``you`` is made of."""
    view = race_view(race_get(slug=slug))
    return {
        "type": "race.changed",
        "race": encode(view.race),
        "v": view.race["version"],
        "host": view.host_id,
        "attempts": {str(player): attempt for player, attempt in view.attempts.items()},
    }


def race_frame(event: dict[str, Any], viewer_id: int | None) -> str:
    """The ``race`` frame of ``event`` (``race_event``) for the socket of ``viewer_id``."""
    attempts = event["attempts"]
    racer = viewer_id is not None and str(viewer_id) in attempts
    you = {
        "racer": racer,
        "host": viewer_id is not None and viewer_id == event["host"],
        "attempt": attempts[str(viewer_id)] if racer else None,
    }
    race: str = event["race"]
    return f'{{"type":"race","v":{event["v"]},"race":{race[:-1]},"you":{encode(you)}}}}}'


def start_frame(event: dict[str, Any], viewer_id: int | None) -> str:
    """The ``start`` frame: the instant every racer's clock starts, and to a
    racer their own game's id (to no one else)."""
    attempt = event["attempts"].get(str(viewer_id)) if viewer_id is not None else None
    return encode({"type": "start", "starts_at": event["starts_at"], "attempt": attempt})


def race_changed(slug: str) -> None:
    """After commit: the room changed (a join, a leave, the start, a finish, the
    end): every socket of it gets the race."""
    try:
        event = race_event(slug)
    except Exception:
        log.warning("race %s: its change not sent", slug, exc_info=True)
        return
    group_event(race_group(slug), event)


def race_started(slug: str, starts_at: dt.datetime) -> None:
    """After commit of the start: each racer's socket gets its own game's id."""
    try:
        view = race_view(race_get(slug=slug))
    except Exception:
        log.warning("race %s: its start not sent", slug, exc_info=True)
        return
    group_event(
        race_group(slug),
        {
            "type": "race.start",
            "starts_at": starts_at.isoformat().replace("+00:00", "Z"),
            "attempts": {str(player): attempt for player, attempt in view.attempts.items()},
        },
    )
